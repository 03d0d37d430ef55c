#!/bin/bash
# Command: cd /tmp/wt_h140 && benchmarks/results/ci_sigterm_kill_hang_2026-12-07/loaded.sh BUSY RUNS [CASE...]
# probe_hang.py's launches, RUNS times each CASE, beside BUSY busy loops (python3 -c "while True: pass"), on top of
# what the machine's other sessions run. The loops are ended, by their own ids, as the script ends.
busy=$1
runs=$2
shift 2
source "$(dirname "$0")/busy_loops.sh"
busy_loops "$busy"
echo "# $busy busy loop(s) ${loops[*]}; at $(git rev-parse --short HEAD)"
PYTHONPATH=$PWD /work/main/.venv/bin/python "$(dirname "$0")/probe_hang.py" "$runs" "$@"
