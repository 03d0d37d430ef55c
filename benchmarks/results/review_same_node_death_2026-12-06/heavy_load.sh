#!/bin/bash
# Review of h85 (r71): the one-node training kill test (its end within ROLL_CALL_S of the kill) with 4 busy loops
# beside it on this 2-core host (and other sessions' work), 3 times; prints the assertion's numbers where it fails.
#   benchmarks/results/review_same_node_death_2026-12-06/heavy_load.sh <checkout>
CHECKOUT=$(cd "$1" && pwd); PY=/work/main/.venv/bin/python
echo "\$ heavy_load.sh $CHECKOUT   # $(git -C "$CHECKOUT" rev-parse --short HEAD), $(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
PIDS=""; for i in 1 2 3 4; do python3 -c "while True: pass" & PIDS="$PIDS $!"; done
for i in 1 2 3; do
  cd "$CHECKOUT" && PYTHONPATH=$CHECKOUT timeout 300 $PY -m pytest -x -q -p no:cacheprovider \
    "tests/test_training_process_lost.py::test_a_training_process_killed_on_the_main_process_s_node_is_named_lost_not_taken_for_a_notice_to_save" 2>&1 \
    | grep -E "passed|failed|^E  .*(assert|where|<)" | grep -v "proc.stderr\|Traceback" | cut -c1-200 | head -6
  echo "run $i done $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)"
done
kill $PIDS
