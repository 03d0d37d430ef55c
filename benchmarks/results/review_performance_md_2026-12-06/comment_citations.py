"""Code comments that cite docs/performance.md beside a figure: is the figure on that page? (A figure moved to
docs/performance_history.md by the rewrite leaves the comment pointing at a page without it.)

    cd /tmp/wt_r88 && python benchmarks/results/review_performance_md_2026-12-06/comment_citations.py
"""
import re
import subprocess

new = " ".join(open("docs/performance.md", encoding="utf-8").read().split())
hist = " ".join(open("docs/performance_history.md", encoding="utf-8").read().split())
files = subprocess.run("git grep -l 'docs/performance.md' -- accelerated_seg 'benchmarks/*.py' 'benchmarks/*.sh' "
                       "tests examples", shell=True, capture_output=True, text=True).stdout.split()
for f in files:
    lines = open(f, encoding="utf-8").read().splitlines()
    for i, line in enumerate(lines):
        if "docs/performance.md" not in line:
            continue
        context = " ".join(lines[max(0, i - 3):i + 1])
        figures = re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?:[-–]\d+(?:\.\d+)?)?(?:%| ms| s\b|x\b|×)", context)
        missing = [g for g in figures if g.replace("-", "–").replace("x", "×") not in new and g not in new]
        if missing:
            in_history = [g for g in missing if g.replace("-", "–").replace("x", "×") in hist or g in hist]
            print(f"{f}:{i + 1}: not in performance.md {missing}; in performance_history.md {in_history}")
