#!/bin/bash
# test_launched_sigterm.py 4 more times (a first background run had 1 failure unnamed),
# then main's launched case 3 times
cd /tmp/wt_r130
R=benchmarks/results/review_handler_inside_itself_2026-12-08
PY="/work/main/.venv/bin/python /tmp/r130_run.py /work/main/.venv/bin/python"
for i in 3 4 5 6; do
  echo "== tests/test_launched_sigterm.py, again ($i) $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=/tmp/wt_r130 /usr/bin/time -f "%e s" $PY -m pytest -q -p no:cacheprovider \
    -rf tests/test_launched_sigterm.py 2>&1 | grep -E "^(FAILED|ERROR|E  )|passed|failed| s$" | cut -c1-400 | head -30
done >> $R/whole_files.txt 2>&1
cd /tmp/r130_main
for i in 1 2 3; do
  echo "== main (7daee7bd) run $i $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=/tmp/r130_main /usr/bin/time -f "%e s" $PY -m pytest -q -p no:cacheprovider \
    -rf tests/test_inference_distributed.py -k "sigterm_just_before_a_process_is_killed" 2>&1 \
      | grep -E "^(FAILED|ERROR)|passed|failed| s$"
done >> /tmp/wt_r130/$R/launched_case_10.txt 2>&1
echo done-more >> /tmp/wt_r130/$R/launched_case_10.txt
