#!/bin/bash
# Command: cd <worktree> && bash benchmarks/results/eighth_new_user_walk_2026-12-07/walk_3_startup.sh \
#            > benchmarks/results/eighth_new_user_walk_2026-12-07/walk_3_startup.txt 2>&1
# docs/testing.md "Where the tier's time goes": a launcher's import (torch, accelerate's launch command) and a
# worker's (accelerated_seg.train), today, in a fresh process each, with transformers hidden (the test processes'
# tests/startup/sitecustomize.py) and not; OMP_NUM_THREADS=1; two rounds alternating. The shared 2-core VM (other
# helpers' work beside it: the load is printed).
set -u
cd "$(dirname "$0")/../../.."
PY=.venv/bin/python
export OMP_NUM_THREADS=1
uptime
for r in 1 2; do
  /usr/bin/time -f "$r launcher: import torch, accelerate.commands.launch: %e s wall %U s user %S s sys" \
    env PYTHONPATH=$PWD $PY -c "import torch, accelerate.commands.launch"
  for hidden in 1 0; do
    /usr/bin/time -f "$r worker: import accelerated_seg.train, transformers hidden=$hidden: %e s wall %U s user %S s sys" \
      env PYTHONPATH=$PWD:$PWD/tests/startup ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS=$hidden $PY -c "import accelerated_seg.train"
  done
done
uptime
