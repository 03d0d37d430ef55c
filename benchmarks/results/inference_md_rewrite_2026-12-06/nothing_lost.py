"""Every sentence of docs/inference.md as it stood on main, looked for in docs/*.md and README.md of this checkout,
by the README's check (readme_entry_page_2026-12-06/nothing_lost.py), each sentence not found then told apart as
history (a session named, "until"/"before the": those are in history.md) or not (read by hand: facts.md).

    git show 0a7fb78e:docs/inference.md > /tmp/inference.base
    python benchmarks/results/inference_md_rewrite_2026-12-06/nothing_lost.py /tmp/inference.base > .../nothing_lost.txt
"""
import contextlib
import io
import re
import runpy
from pathlib import Path

HISTORY = re.compile(r"session|\buntil\b|\bbefore the\b|\bbefore an audit|\ba probe\b|\bprobe's\b|\breview\b", re.I)
README_CHECK = Path(__file__).resolve().parents[1] / "readme_entry_page_2026-12-06" / "nothing_lost.py"

with contextlib.redirect_stdout(io.StringIO()):  # its own listing: the split below is this page's
    found = runpy.run_path(str(README_CHECK), run_name="readme_check")
sentences, missing = found["sentences"], found["missing"]
history = [s for s in missing if HISTORY.search(s)]
print(f"{len(sentences)} sentences of the base page; {len(missing)} not found whole, {len(history)} of them telling "
      f"history (in history.md), {len(missing) - len(history)} others:")
for sentence in missing:
    if not HISTORY.search(sentence):
        print("-", sentence[:300])
