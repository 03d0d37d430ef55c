"""Every code span of the old docs/inference.md (a flag, a setting, a file, a line quoted), looked for in the new page
and, failing that, in docs/*.md and README.md of this checkout.

    git show 0a7fb78e:docs/inference.md > /tmp/inference.base
    python benchmarks/results/inference_md_rewrite_2026-12-06/spans_kept.py /tmp/inference.base > .../spans_kept.txt

A span is looked for whitespace aside; a quoted line shortened with "…" or "..." counts as kept where its part before
the first ellipsis is found.
"""
import glob
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def flat(text: str) -> str:
    return " ".join(text.split())


def spans(text: str) -> list[str]:
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return [flat(s) for s in re.findall(r"`([^`]+)`", prose)]


old = Path(sys.argv[1]).read_text(encoding="utf-8")
new = flat((ROOT / "docs" / "inference.md").read_text(encoding="utf-8"))
others = " ".join(flat(Path(p).read_text(encoding="utf-8")) for p in [ROOT / "README.md", *glob.glob(str(ROOT / "docs" / "*.md"))])
seen, in_new, elsewhere, missing = set(), 0, [], []
for span in spans(old):
    if span in seen:
        continue
    seen.add(span)
    probe = re.split(r"…|\.\.\.", span)[0].strip() or span
    if probe in new:
        in_new += 1
    elif probe in others:
        elsewhere.append(span)
    else:
        missing.append(span)
print(f"{len(seen)} distinct code spans in the old page: {in_new} in the new page, {len(elsewhere)} only in other "
      f"pages, {len(missing)} in none:")
for span in missing:
    print("-", span[:200])
print("\nonly in other pages:")
for span in elsewhere:
    print("-", span[:200])
