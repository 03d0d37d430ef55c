#!/bin/bash
# Command: cd /tmp/wt_r73 && bash benchmarks/results/review_process_lost_order_2026-12-06/under_load.sh RUNS > <out>
# h82's probe (ballast 0) with two busy loops beside it on the 2-core machine, the killed process 1 or 2 (a survivor
# of a lower rank whose status 1 could reach torch's agent first)
D=benchmarks/results/review_process_lost_order_2026-12-06
python3 -c "while True: pass" & B1=$!
python3 -c "while True: pass" & B2=$!
trap 'kill $B1 $B2' EXIT
RANKS=${RANKS:-1,2} WHERES=${WHERES:-loss:2,save:4} PYTHONPATH=$PWD:$PWD/tests timeout 1500 \
    /work/main/.venv/bin/python benchmarks/results/estimator_process_lost_three_2026-12-06/three_processes.py ${1:-2}
