#!/usr/bin/env bash
# Does our loop's lead at unet 64^3 follow where glibc's malloc puts the tensors? Alternates the
# record's unet 64^3 one-process run under glibc's default malloc ("default") with one under
# GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4096 ("all_mmap"): every allocation of 4 KiB or more
# is then a fresh mmap of its own, so each large tensor of either loop starts at the same offset
# within its page and is returned to the system when freed; no loop can inherit a luckier placement
# from the heap. (The nineteenth session's tunables did the opposite, keeping everything in the heap.)
# THREADS: torch's threads per run (OMP_NUM_THREADS); the session's record uses 1, this ran with 2 and 1.
#   THREADS=1 bash benchmarks/results/train_2cpu/session_2026-11-25w/placement/run.sh   (from the repository root)
set -euo pipefail
OUT=benchmarks/results/train_2cpu/session_2026-11-25w/placement
THREADS=${THREADS:-2}
export OMP_NUM_THREADS=$THREADS
RUN="${PYTHON:-.venv/bin/python} -m accelerated_seg.cli"
UNET64="--model unet --patch 64 --batch 2 --steps 5 --blocks 10 --precision fp32"
for r in 1 2 3; do
  echo "== $(date +%T) default, $THREADS thread(s), r$r; load $(cut -d' ' -f1-3 /proc/loadavg)"
  $RUN benchmark train $UNET64 --output $OUT/default_${THREADS}threads_r$r.json | tail -2
  echo "== $(date +%T) all_mmap, $THREADS thread(s), r$r; load $(cut -d' ' -f1-3 /proc/loadavg)"
  GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4096 $RUN benchmark train $UNET64 --output $OUT/all_mmap_${THREADS}threads_r$r.json | tail -2
done
