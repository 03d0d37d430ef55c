"""Every figure of the rewritten docs/performance.md (outside the session table, which cpu_history.py prints) that
the old page (f3cca687) does not hold: each is either computed anew or a figure reworded. Run from the repository
root: python benchmarks/results/review_performance_md_2026-12-06/new_figures.py"""
import re
import subprocess

old = subprocess.run(["git", "show", "f3cca687:docs/performance.md"], capture_output=True, text=True).stdout
new = open("docs/performance.md", encoding="utf-8").read()
FIGURE = r"(?<![\w.])\d+(?:[.,]\d+)*(?:[–-]\d+(?:\.\d+)*)?%?(?![\w])"
for number, line in enumerate(new.splitlines(), 1):
    if re.match(r"\| (first|20\d\d-)", line):
        continue
    for m in re.finditer(FIGURE, line):
        figure = m.group(0)
        if len(figure.strip("%")) < 3 or figure in old:
            continue
        print(f"{number}: {figure!r:14} ...{line[max(0, m.start() - 60):m.end() + 30]}...")
