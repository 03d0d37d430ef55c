#!/bin/bash
# tiny16 one-process fixed cost: cfc93a2 (2026-11-28h session) against 439dee7, alternately
export OMP_NUM_THREADS=1
PY=/work/main/.venv/bin/python
TINY16=(--model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' --patch 16 --batch 2 --steps 50 --blocks 10)
mkdir -p /tmp/ab_tiny
for r in 1 2 3; do
  for c in old main; do
    dir=/work/wt-$c; [ $c = main ] && dir=/work/main
    (cd $dir && PYTHONPATH=$dir $PY -m accelerated_seg.cli benchmark train "${TINY16[@]}" --output /tmp/ab_tiny/${c}_r$r.json | tail -2 | head -1)
  done
done
