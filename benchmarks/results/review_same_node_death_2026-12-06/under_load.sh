#!/bin/bash
# Review of h85 (r71): the one-node training kill test as h85 left it (an end within ROLL_CALL_S, 3.4 s, of the
# kill), run 5 times with 2 busy loops beside it on this 2-core host (others' sessions loading it too); then the
# review's same_node.py probe, which prints how long after the kill the launch ended (the test's own measure).
#   benchmarks/results/review_same_node_death_2026-12-06/under_load.sh <checkout>
CHECKOUT=$(cd "$1" && pwd); PY=/work/main/.venv/bin/python
echo "\$ under_load.sh $CHECKOUT   # $(git -C "$CHECKOUT" rev-parse --short HEAD), $(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 -c "while True: pass" & B1=$!
python3 -c "while True: pass" & B2=$!
for i in 1 2 3 4 5; do
  cd "$CHECKOUT" && PYTHONPATH=$CHECKOUT timeout 300 $PY -m pytest -x -q -p no:cacheprovider \
    "tests/test_training_process_lost.py::test_a_training_process_killed_on_the_main_process_s_node_is_named_lost_not_taken_for_a_notice_to_save" 2>&1 \
    | grep -E "passed|failed|assert .*ROLL_CALL|AssertionError|^E " | head -8
  echo "run $i done $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)"
done
kill $B1 $B2
# And the review's same_node.py probe (which prints how long after the kill the launch ended), 4 times, busy loops beside
python3 -c "while True: pass" & B1=$!
python3 -c "while True: pass" & B2=$!
cd "$CHECKOUT/benchmarks/results/review_training_peer_lost_2026-12-06"
for i in 1 2 3 4; do
  PYTHONPATH=$CHECKOUT timeout 300 $PY same_node.py "$CHECKOUT" loss:2 1 | grep -E "^== " ; echo "   load $(cut -d' ' -f1-3 /proc/loadavg)"
done
kill $B1 $B2
