"""The old docs/inference.md's history, kept: every sentence that names a session or says how a behaviour was
before ("until ...", "before the ..."), under its old section, as the base page said it.

    git show 0a7fb78e:docs/inference.md > /tmp/inference.base
    python benchmarks/results/inference_md_rewrite_2026-12-06/history.py /tmp/inference.base > .../history.md
"""
import re
import sys
from pathlib import Path

HISTORY = re.compile(r"session|\buntil\b|\bbefore the\b|\bbefore an audit|\ba probe\b|\bprobe's\b|\breview\b", re.I)

base = Path(sys.argv[1]).read_text(encoding="utf-8")
print("# docs/inference.md's history, as the page told it until the hundred-and-eighteenth session\n")
print("The page now says what is true; these sentences (whole, as written at main 0a7fb78e) told how each behaviour")
print("was before and which session changed it. The Fixed entries of docs/known_issues.md tell the later ones too.\n")
section = None
for part in re.split(r"^(#{1,4} .*)$", re.sub(r"^```.*?^```", "", base, flags=re.S | re.M), flags=re.M):
    if part.startswith("#"):
        section = part.lstrip("# ").strip()
        continue
    sentences = [" ".join(s.split()) for s in re.split(r"(?<=[.;])\s+(?=[A-Z`(])", part)]
    told = [s for s in sentences if HISTORY.search(s)]
    if told:
        print(f"## {section}\n")
        for sentence in told:
            print(f"- {sentence}")
        print()
