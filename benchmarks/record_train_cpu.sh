#!/bin/bash
# The CPU measurements of docs/performance.md: `benchmark train` in 1 and in 2 processes (CPU DDP over
# gloo), OMP_NUM_THREADS=1 in both so that each process has one core and the comparison is fair.
#
# Three sizes: the default U-Net at 64^3 (compute-bound, ~0.7 s steps), a small U-Net at 32^3 (~50 ms
# steps) and a tiny one at 16^3 (~10 ms steps) where a fixed per-step cost of the framework shows.
# The machine may be shared with other work, so: the two loops alternate block by block inside each
# run (medians, every block kept), the 1- and 2-process runs alternate, and everything is repeated
# REPEATS times; each line of the log starts with the load average and the processes using more than
# 20% CPU at that moment.
#
# The 2-process efficiency that scaling_projection.py computes from these files compares a 1-process
# run with a 2-process run minutes later, and this host's per-core speed drifts by up to ~30% between
# them; benchmarks/cpu_contention_control.sh brackets DDP with solo runs and two independent jobs.
#
#   OUT=benchmarks/results/train_2cpu/session_X bash benchmarks/record_train_cpu.sh   # ~20 minutes on 2 cores
#   python benchmarks/scaling_projection.py --one benchmarks/results/train_2cpu/session_X/unet64_1proc_r*.json \
#       --measured benchmarks/results/train_2cpu/session_X/unet64_2proc_r*.json \
#       --output benchmarks/results/ddp_scaling_2cpu_session_X.json
#
# An OUT that holds one of the files it writes is refused before anything is measured (the default
# folder holds the first session's).
set -e
cd "$(dirname "$0")/.."
export PYTHONPATH=. OMP_NUM_THREADS=1
PY=${PYTHON:-python}
REPEATS=${REPEATS:-3}
OUT=${OUT:-benchmarks/results/train_2cpu}  # e.g. OUT=.../session_2 REPEATS=1 for a later session
# bf16 autocast, once, on a host with bf16 instructions (AMX or AVX512-BF16). Without them oneDNN
# emulates bf16 convolutions: the eleventh session's AVX-512 host ran them at half fp32's speed, and on
# the seventeenth's AVX2 host one 1-process run had not finished after 13 minutes. Both loops emulate
# alike, so such a run says nothing about the loop. BF16=1 runs it anyway.
BF16_RUNS=()
if [ "${BF16:-0}" = 1 ] || grep -qwE 'amx_bf16|avx512_bf16' /proc/cpuinfo; then
  BF16_RUNS=(unet64_bf16_1proc.json unet64_bf16_2proc.json)
fi
RESULTS=()
for r in $(seq 1 "$REPEATS"); do
  for n in 1 2; do RESULTS+=("unet64_${n}proc_r$r.json" "small32_${n}proc_r$r.json" "tiny16_${n}proc_r$r.json"); done
done
source benchmarks/refuse_to_replace.sh
refuse_to_replace "$OUT" "${RESULTS[@]}" "${BF16_RUNS[@]}"
mkdir -p "$OUT"
ONE="$PY -m accelerated_seg.cli"
TWO="env ACCELERATE_USE_CPU=true $PY -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no --main_process_port ${PORT:-29641} -m accelerated_seg.cli"
UNET64="--model unet --patch 64 --batch 2 --steps 5 --blocks 10"
SMALL32=(--model unet --model-args '{"channels": [8, 16, 32], "strides": [2, 2], "num_res_units": 1}' --patch 32 --batch 2 --steps 20 --blocks 10)
TINY16=(--model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' --patch 16 --batch 2 --steps 50 --blocks 10)
stamp() { echo "== $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg); busy: $(ps -eo pcpu,comm --sort=-pcpu | awk 'NR>1 && $1>20 {print $2"("$1")"}' | tr '\n' ' ')"; }
for r in $(seq 1 "$REPEATS"); do
  for n in 1 2; do
    [ $n = 1 ] && RUN=$ONE || RUN=$TWO
    stamp; $RUN benchmark train $UNET64 --precision fp32 --output $OUT/unet64_${n}proc_r$r.json
    stamp; $RUN benchmark train "${SMALL32[@]}" --output $OUT/small32_${n}proc_r$r.json
    stamp; $RUN benchmark train "${TINY16[@]}" --output $OUT/tiny16_${n}proc_r$r.json
  done
done
if [ ${#BF16_RUNS[@]} -gt 0 ]; then  # bf16 at 64^3 (above: only where the CPU has bf16 instructions)
  for n in 1 2; do
    [ $n = 1 ] && RUN=$ONE || RUN=$TWO
    stamp; $RUN benchmark train $UNET64 --precision bf16 --output $OUT/unet64_bf16_${n}proc.json
  done
else
  echo "== bf16 skipped: this CPU has no bf16 instructions (amx_bf16, avx512_bf16); BF16=1 runs it anyway"
fi
stamp
