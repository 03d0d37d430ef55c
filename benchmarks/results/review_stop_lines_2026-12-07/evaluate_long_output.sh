#!/bin/sh
# evaluate --output with a name too long (ENAMETOOLONG; a folder one may not search, EACCES, fails alike), before
# h114 (26c879c8~1, extracted to /tmp/r100_before) and on r100: a traceback both times, from the earlier-evaluation
# test outside the line's try (pre-existing; left, noted in known_issues). Data: /tmp/r100data (one 8^3 case).
# Command: sh benchmarks/results/review_stop_lines_2026-12-07/evaluate_long_output.sh
cd /tmp/r100data
LONG=/tmp/r100data/$(python3 -c "print('a'*300)")
for tree in /tmp/r100_before /tmp/wt_r100; do
  echo "== $tree: --output <300-character name>"
  PYTHONPATH=$tree /work/main/.venv/bin/python -m accelerated_seg evaluate preds labels --output $LONG 2>&1 | tail -1 \
    | sed 's/aaaa*/a...a/'
done
