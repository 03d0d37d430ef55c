#!/bin/bash
# The CPU measurements of the levers and of the real data path in docs/performance.md, each lever on
# both loops in one run against "none" (benchmark train --lever), OMP_NUM_THREADS=1 per process:
#
#   - compile: torch.compile (inductor) in place; the warm-up blocks hold the compilation (warmup_s);
#   - ddp_static_graph, ddp_bucket_view: DDP options, 2 processes (gloo);
#   - --data real: phantom volumes through the training loader (preprocessing cache, foreground
#     sampling, "light" augmentation, 1 worker per process) instead of patches already in memory:
#     how much of the step each loop spends waiting for data.
#
#   OUT=benchmarks/results/train_2cpu/levers_X bash benchmarks/record_levers_cpu.sh   # ~15 minutes on 2 cores
#
# An OUT that holds one of the files it writes is refused before anything is measured (the default
# folder holds the committed ones).
set -e
cd "$(dirname "$0")/.."
export PYTHONPATH=. OMP_NUM_THREADS=1
PY=${PYTHON:-python}
OUT=${OUT:-benchmarks/results/train_2cpu}
source benchmarks/refuse_to_replace.sh
refuse_to_replace "$OUT" compile_unet64_1proc.json realdata_unet64_1proc.json realdata_unet64_2proc.json \
    ddp_levers_unet64_2proc.json
mkdir -p "$OUT"
ONE="$PY -m accelerated_seg.cli"
TWO="env ACCELERATE_USE_CPU=true $PY -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no --main_process_port ${PORT:-29642} -m accelerated_seg.cli"
UNET64="--model unet --patch 64 --batch 2 --precision fp32"
stamp() { echo "== $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg); busy: $(ps -eo pcpu,comm --sort=-pcpu | awk 'NR>1 && $1>20 {print $2"("$1")"}' | tr '\n' ' ')"; }
stamp; $ONE benchmark train $UNET64 --steps 5 --blocks 6 --lever none compile --output "$OUT/compile_unet64_1proc.json"
stamp; $ONE benchmark train $UNET64 --steps 10 --blocks 5 --data real --num-workers 1 --output "$OUT/realdata_unet64_1proc.json"
stamp; $TWO benchmark train $UNET64 --steps 10 --blocks 5 --data real --num-workers 1 --output "$OUT/realdata_unet64_2proc.json"
stamp; $TWO benchmark train $UNET64 --steps 5 --blocks 6 --lever none ddp_static_graph ddp_bucket_view --output "$OUT/ddp_levers_unet64_2proc.json"
stamp
