"""Every code span (`...`) and every figure (a number with a decimal point, a range, a percentage, a size or a time)
of the old docs/checkpoints.md, looked for in this checkout's README.md, docs/*.md and this folder's history.md:
those found nowhere are printed, to be read by hand (a setting, file, line or figure the rewrite may have lost).

    git show 0a7fb78e:docs/checkpoints.md > /tmp/checkpoints.base.md
    python benchmarks/results/checkpoints_md_rewrite_2026-12-06/spans_kept.py /tmp/checkpoints.base.md \
        > benchmarks/results/checkpoints_md_rewrite_2026-12-06/spans_kept.txt
"""
import glob
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
FIGURE = re.compile(r"\d+(?:\.\d+)?(?:[–-]\d+(?:\.\d+)?)?\s?(?:%|s\b|ms\b|MB\b|GB/s|KiB|min\b)|\d+\.\d+")

base = Path(sys.argv[1]).read_text(encoding="utf-8")
pool = "\n".join(Path(p).read_text(encoding="utf-8") for p in
                 [ROOT / "README.md", *glob.glob(str(ROOT / "docs" / "*.md")), HERE / "history.md"])
pool = " ".join(pool.split())
spans = sorted(set(" ".join(s.split()) for s in re.findall(r"`([^`\n]+(?:\n[^`\n]+)?)`", base)))
figures = sorted(set(FIGURE.findall(re.sub(r"`[^`]*`", "", base))))
lost_spans = [s for s in spans if s not in pool]
lost_figures = [f for f in figures if f not in pool]
print(f"{len(spans)} code spans of the old page; {len(lost_spans)} found in no page now nor in history.md:")
print("\n".join(f"- `{s}`" for s in lost_spans))
print(f"\n{len(figures)} figures of the old page; {len(lost_figures)} found in no page now nor in history.md:")
print("\n".join(f"- {f}" for f in lost_figures))
