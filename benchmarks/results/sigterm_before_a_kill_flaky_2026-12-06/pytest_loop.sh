#!/bin/bash
# Command: cd /tmp/wt_h102 && benchmarks/results/sigterm_before_a_kill_flaky_2026-12-06/pytest_loop.sh BUSY RUNS OUT K
# The launched test's cases that pytest's -k K selects, under pytest -rA, RUNS times beside BUSY busy loops (ended by
# their ids as the script ends); each run's whole output kept in OUT.runN.log, its summary lines printed.
busy=$1
runs=$2
out=$3
shift 3
source "$(dirname "$0")/busy_loops.sh"
busy_loops "$busy"
echo "# $busy busy loop(s); $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg);" \
  "at $(git rev-parse --short HEAD) + the change"
for i in $(seq "$runs"); do
  PYTHONPATH=$PWD timeout 900 /work/main/.venv/bin/python -m pytest -q -p no:randomly -rA \
    tests/test_inference_distributed.py -k "$*" > "$out.run$i.log" 2>&1
  grep -E "^(PASSED|FAILED|ERROR)|passed|failed" "$out.run$i.log" | cut -c1-200
  echo "run $i rc done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
done
