#!/bin/bash
# the launched predict's stop case (4 cases) 10 times, then test_launched_sigterm.py whole with its failures named
cd /tmp/wt_r130
R=benchmarks/results/review_handler_inside_itself_2026-12-08
export PYTHONPATH=/tmp/wt_r130
PY="/work/main/.venv/bin/python /tmp/r130_run.py /work/main/.venv/bin/python"
for i in $(seq 1 10); do
  echo "== run $i $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "%e s" $PY -m pytest -q -p no:cacheprovider \
    -rf tests/test_inference_distributed.py -k "sigterm_just_before_a_process_is_killed" 2>&1 \
      | grep -E "^(FAILED|ERROR)|passed|failed| s$"
done > $R/launched_case_10.txt 2>&1
for i in 1 2; do
  echo "== tests/test_launched_sigterm.py, again ($i) $(date +%T)"
  /usr/bin/time -f "%e s" $PY -m pytest -q -p no:cacheprovider -rf tests/test_launched_sigterm.py 2>&1 \
    | grep -E "^(FAILED|ERROR|E  )|passed|failed| s$" | cut -c1-400 | head -30
done >> $R/whole_files.txt 2>&1
echo done >> $R/launched_case_10.txt
