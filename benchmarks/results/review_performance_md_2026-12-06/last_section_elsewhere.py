"""Is each sentence of performance_history.md's last section ("The other sections as they stood before the
rewrite") whole somewhere else: performance.md, the history page's earlier sections, performance_cpu_sessions.md,
or any other page of docs/ or the README? Sentences as the rewrite's nothing_lost.py splits them.

    cd /tmp/wt_r88 && python benchmarks/results/review_performance_md_2026-12-06/last_section_elsewhere.py
"""
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location(
    "nothing_lost", ROOT / "benchmarks/results/performance_md_rewrite_2026-12-06/nothing_lost.py")
nothing_lost = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nothing_lost)
flat = nothing_lost._flat

docs = ROOT / "docs"
history = (docs / "performance_history.md").read_text(encoding="utf-8")
cut = history.index("\n## The other sections as they stood before the rewrite")
earlier, last = history[:cut], history[cut:]
places = {"performance.md": flat((docs / "performance.md").read_text(encoding="utf-8")),
          "history, earlier sections": flat(earlier),
          "performance_cpu_sessions.md": flat((docs / "performance_cpu_sessions.md").read_text(encoding="utf-8")),
          "other pages": flat(" ".join(p.read_text(encoding="utf-8") for p in [*docs.glob("*.md"), ROOT / "README.md"]
                                       if p.name not in ("performance.md", "performance_history.md",
                                                         "performance_cpu_sessions.md")))}
sections = re.split(r"\n(?=### )", last)
total = only_here = 0
for section in sections[1:]:
    title = section.splitlines()[0]
    sentences = nothing_lost._sentences(section)
    alone = [s for s in sentences if not any(flat(s) in text for text in places.values())]
    total += len(sentences)
    only_here += len(alone)
    print(f"{title}: {len(sentences)} sentences, {len(alone)} in no other place")
    for s in alone[:400]:
        print(f"   - {flat(s)[:170]}")
print(f"\nall: {total} sentences, {only_here} whole in no other place")
