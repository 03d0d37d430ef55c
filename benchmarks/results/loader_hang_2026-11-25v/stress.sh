#!/usr/bin/env bash
# The known hang's launch (docs/known_issues.md), but with 20 configurations per launch instead of 2,
# so that each launch forks 40 loader workers per rank instead of 4. A launch running past
# LIMIT_S is taken as hung: every `benchmark train` process gets a py-spy dump and a gdb native
# backtrace (all threads), then they are killed.
# Usage: [PYTHON=...] stress.sh OUT_DIR RUNS [LIMIT_S]; the code under test is the checkout this script is in.
set -u
out=$(realpath -m "$1"); runs=$2; limit=${3:-240}
python=${PYTHON:-.venv/bin/python}
python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python")  # absolute, the venv's link kept
pyspy=$(dirname "$python")/py-spy
cd "$(dirname "$0")/../../.."
mkdir -p "$out"
levers=$(for i in $(seq 1 10); do printf 'none ddp_static_graph '; done)
for i in $(seq 1 "$runs"); do
  port=$((20000 + RANDOM % 20000))
  start=$(date +%s)
  ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1 PYTHONPATH=$PWD setsid "$python" -m accelerate.commands.launch \
    --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no --main_process_port $port \
    -m accelerated_seg.cli benchmark train --model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' \
    --patch 16 --batch 2 --steps 2 --blocks 2 --data real --num-workers 1 --lever $levers --ddp-bucket-mb 1 \
    --output "$out/out_$i.json" > "$out/run_$i.log" 2>&1 &
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    sleep 2
    if [ $(( $(date +%s) - start )) -gt "$limit" ]; then
      echo "run $i HUNG"
      for p in $(pgrep -f "accelerated_seg.cli benchmark train"); do
        echo "=== pid $p (parent $(ps -o ppid= -p $p))"; tr '\0' ' ' < /proc/$p/cmdline; echo
        "$pyspy" dump --pid $p --native 2>&1 | head -60
        gdb -p $p -batch -ex "thread apply all bt" 2>&1 | grep -E "^(Thread|#)" | head -80
      done > "$out/dump_$i.txt"
      pkill -9 -f "accelerated_seg.cli benchmark train"; break
    fi
  done
  wait $pid; echo "run $i rc=$? $(( $(date +%s) - start )) s"
done
