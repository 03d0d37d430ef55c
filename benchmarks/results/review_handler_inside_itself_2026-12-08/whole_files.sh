#!/bin/bash
# whole test files and the launched case 10 times, on branch r130's tree
cd /tmp/wt_r130
R=benchmarks/results/review_handler_inside_itself_2026-12-08
export PYTHONPATH=/tmp/wt_r130
PY="/work/main/.venv/bin/python /tmp/r130_run.py /work/main/.venv/bin/python"
for f in tests/test_launched_sigterm.py tests/test_stops_held.py tests/test_dropped_interrupts.py \
    tests/test_interrupts_between_imports.py; do
  echo "== $f $(date +%T)"; /usr/bin/time -f "%e s" $PY -m pytest -q -p no:cacheprovider $f 2>&1 | tail -3
done > $R/whole_files.txt 2>&1
{ echo "== tests/test_inference_pipeline.py -n 2 --dist worksteal $(date +%T)"
  /usr/bin/time -f "%e s" $PY -m pytest -q -p no:cacheprovider -n 2 --dist worksteal tests/test_inference_pipeline.py \
    2>&1 | tail -3; } >> $R/whole_files.txt 2>&1
for i in $(seq 1 10); do
  echo "== run $i $(date +%T)"; /usr/bin/time -f "%e s" $PY -m pytest -q \
    -p no:cacheprovider tests/test_inference_distributed.py -k "sigterms_just_before_a_process_is_killed" 2>&1 | tail -3
done > $R/launched_case_10.txt 2>&1
echo done >> $R/launched_case_10.txt
