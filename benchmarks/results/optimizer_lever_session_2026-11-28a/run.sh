#!/bin/bash
# AdamW (training's default) against the sgd lever (nnU-Net's SGD with Nesterov momentum 0.99) in both
# loops, the default U-Net at 64^3, 1 and 2 CPU processes.
cd /work/main
D=benchmarks/results/optimizer_lever_session_2026-11-28a
export PYTHONPATH=. OMP_NUM_THREADS=1
ARGS="benchmark train --model unet --patch 64 --batch 2 --steps 5 --blocks 10 --precision fp32 --lever none sgd"
.venv/bin/python -m accelerated_seg.cli $ARGS --output $D/unet64_1proc.json > $D/unet64_1proc.log 2>&1
env ACCELERATE_USE_CPU=true .venv/bin/python -m accelerate.commands.launch --multi_gpu --num_processes 2 \
  --num_machines 1 --mixed_precision no --dynamo_backend no --main_process_port 29651 -m accelerated_seg.cli \
  $ARGS --output $D/unet64_2proc.json > $D/unet64_2proc.log 2>&1
