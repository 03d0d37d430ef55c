#!/bin/bash
# The hundred-and-seventeenth session (h87): killed_in_predict.py on <checkout> (PYTHONPATH: the package it runs),
# RUNS launches each, the agent on time then 1 s late, process 1 of 2 killed in a case's inference (--split windows)
# and in its map's write (--split cases), then process 1 of 2 and 2 of 3 as it comes to the last wait (the others
# waiting there); CONFIGS (";"-separated "WHERE RANK [PROCESSES]") runs those alone.
# Output beside this script, appended:
#   [CONFIGS=...] benchmarks/results/predict_killed_first_failure_2026-12-06/runs.sh <checkout> <label> [RUNS]
# Run from <checkout> (cd): accelerate's launch puts its working folder on the launched processes' PYTHONPATH, ahead
# of the package PYTHONPATH names.
HERE=$(cd "$(dirname "$0")" && pwd); CHECKOUT=$(cd "$1" && pwd); LABEL=$2; RUNS=${3:-10}
cd "$CHECKOUT" || exit 1
PY=/work/main/.venv/bin/python
{
  echo "\$ CONFIGS=\"$CONFIGS\" runs.sh $CHECKOUT $LABEL $RUNS   # $(git -C "$CHECKOUT" rev-parse --short HEAD), $(date -u +%H:%M) UTC"
  for late in 0 1; do
    IFS=";" read -r -a configs <<< "${CONFIGS:-inference 1;write 1;last_wait 1;last_wait 2 3}"
    for args in "${configs[@]}"; do
      AGENT_LATE_S=$late PYTHONPATH=$CHECKOUT timeout 900 $PY "$HERE/killed_in_predict.py" "$RUNS" $args
    done
  done
} >> "$HERE/killed_in_predict_$LABEL.txt" 2>&1
