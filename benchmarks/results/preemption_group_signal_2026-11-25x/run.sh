#!/usr/bin/env bash
# SIGTERM to `accelerate launch` of a 2-process CPU DDP run with one loader worker per rank (the demo
# config): torchrun's agent forwards it to each rank's whole process group, loader workers and fork
# server included, as SLURM does to every process of a job. Prints the launcher's exit status; the
# log and the checkpoints show whether the ranks saved at the signal or crashed.
#   bash run.sh OUT LOG [extra training overrides, e.g. --train.grad_accum_steps=16 --train.save_every=1]
set -u
OUT=$1; LOG=$2; shift 2
cd "$(dirname "$0")/../../.."
rm -rf "$OUT"
ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1 .venv/bin/accelerate launch --config_file configs/accelerate/ddp.yaml \
  --num_processes 2 --mixed_precision no examples/train.py --config configs/demo.yaml --no-report \
  --train.output_dir="$OUT" --train.max_steps=100000 --train.val_every=0 --train.progress_bar=false \
  --data.patch_size=[32,32,32] "$@" > "$LOG" 2>&1 &
launcher=$!
for _ in $(seq 1 300); do ls "$OUT"/checkpoints/step_* > /dev/null 2>&1 && break; sleep 1; done
sleep 2
kill -TERM $launcher
wait $launcher; echo "launcher exit status $?"
ls "$OUT"/checkpoints
