#!/bin/bash
# tests/test_ranks_stop_together.py run $RUNS times with $BUSY busy loops beside it (2-core host), each run's tail kept
cd /tmp/wt_r74
BUSY=${BUSY:-3}; RUNS=${RUNS:-3}
pids=(); for i in $(seq $BUSY); do (while :; do :; done) & pids+=($!); done
for r in $(seq $RUNS); do
  echo "== run $r, busy $BUSY, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%T)"
  PYTHONPATH=/tmp/wt_r74 timeout 900 /work/main/.venv/bin/python -m pytest -q -p no:cacheprovider \
    tests/test_ranks_stop_together.py 2>&1 | grep -E "passed|failed|FAILED|Error" | tail -8
done
for p in "${pids[@]}"; do kill $p; done
