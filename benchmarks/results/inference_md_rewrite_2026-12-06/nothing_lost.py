"""Every sentence of docs/inference.md as it stood on main, looked for in docs/*.md and README.md of this checkout.

    git show 0a7fb78e:docs/inference.md > /tmp/inference.base
    python benchmarks/results/inference_md_rewrite_2026-12-06/nothing_lost.py /tmp/inference.base > .../nothing_lost.txt

Prints each sentence (code blocks left out) whose text, whitespace and link prefixes aside, is in none of them, and
whether it tells history (a session named, "until"/"before the"): those are in history.md. Read the others by hand:
a sentence shortened or merged into a table shows here too. (After the README's check of the same name.)
"""
import glob
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HISTORY = re.compile(r"session|\buntil\b|\bbefore the\b|\bbefore an audit|\ba probe\b|\bprobe's\b|\breview\b", re.I)


def normalised(text: str) -> str:
    text = re.sub(r"\]\((?:\.\./)?(?:docs/)?", "](", text)
    return " ".join(text.split())


base = Path(sys.argv[1]).read_text(encoding="utf-8")
pages = [ROOT / "README.md", *sorted(Path(p) for p in glob.glob(str(ROOT / "docs" / "*.md")))]
pool = " ".join(normalised(page.read_text(encoding="utf-8")) for page in pages)
prose = re.sub(r"^```.*?^```", "", base, flags=re.S | re.M)
sentences = [normalised(s) for s in re.split(r"(?<=[.;:])\s+(?=[A-Z`(\-])", prose)]
sentences = [s for s in sentences if len(s) >= 25 and not s.startswith("#")]
missing = [s for s in sentences if s not in pool]
history = [s for s in missing if HISTORY.search(s)]
print(f"{len(sentences)} sentences of the base page; {len(missing)} not found whole, {len(history)} of them telling "
      f"history (in history.md), {len(missing) - len(history)} others:")
for sentence in missing:
    if not HISTORY.search(sentence):
        print("-", sentence[:300])
