#!/bin/bash
# Command: cd /tmp/wt_h102 && benchmarks/results/sigterm_before_a_kill_flaky_2026-12-06/other_tests_loop.sh RUNS OUT
# The other tests the hundred-and-eighteenth session added or changed with timing in them, RUNS times, run beside
# pytest_loop.sh (its launched test and its 2 busy loops): tests/test_lost_processes.py whole (its 1 s bounds of the
# stop's end), the launched test of a process killed once its error is published, tests/test_early_signals.py whole
# (handed_over, taken_over). Each run's whole output kept in OUT.runN.log.
runs=$1
out=$2
echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg); at $(git rev-parse --short HEAD) + the change"
for i in $(seq "$runs"); do
  PYTHONPATH=$PWD timeout 1200 /work/main/.venv/bin/python -m pytest -q -p no:randomly -rfE \
    tests/test_lost_processes.py tests/test_early_signals.py \
    "tests/test_inference_distributed.py::test_a_process_killed_once_its_error_is_published_still_has_its_error_said" \
    > "$out.run$i.log" 2>&1
  grep -E "^(FAILED|ERROR)|passed|failed" "$out.run$i.log" | cut -c1-300
  echo "run $i done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
done
