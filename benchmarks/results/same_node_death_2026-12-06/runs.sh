#!/bin/bash
# The hundred-and-sixteenth session (h85): a launched training's process killed outright on the main process's own
# node, told at once (processes_beside.py) where the roll call waited 3.4 s for it. Runs the earlier sessions' probes
# on <checkout>, several times each, and writes their output beside this script:
#   benchmarks/results/same_node_death_2026-12-06/runs.sh <checkout> <label>   (label: before | after)
# same_node_<label>.txt: one launch of 2 (or 3) CPU processes, the review's same_node.py (process 1 or the main process
# SIGKILLed at its third step's forward, in a checkpoint's save, in the export; process 2 of 3; gloo's reset words
# raised with every process alive); two_nodes_<label>.txt: two launches of one process as two nodes
# (training_peer_lost_2026-12-06/two_nodes.py), whose deaths no process of the other node sees: the roll call as before.
HERE=$(cd "$(dirname "$0")" && pwd); RESULTS=$(dirname "$HERE"); CHECKOUT=$(cd "$1" && pwd); LABEL=$2
PY=/work/main/.venv/bin/python
cd "$RESULTS/review_training_peer_lost_2026-12-06"
{
  echo "\$ runs.sh $CHECKOUT $LABEL   # $(git -C "$CHECKOUT" rev-parse --short HEAD), $(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for args in "loss:2 1" "loss:2 1" "loss:2 1" "loss:2 0" "loss:2 0" "loss:2 0" "save:4 1" "export 0" "loss:2 2 3" \
              "reset:2 1"; do
    PYTHONPATH=$CHECKOUT timeout 300 $PY same_node.py "$CHECKOUT" $args | grep -v "full stderr"
  done
} > "$HERE/same_node_$LABEL.txt" 2>&1
cd "$RESULTS/training_peer_lost_2026-12-06"
PYTHONPATH=$CHECKOUT timeout 600 $PY two_nodes.py "$CHECKOUT" 2 > "$HERE/two_nodes_$LABEL.txt" 2>&1
