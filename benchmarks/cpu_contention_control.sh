#!/bin/bash
# Control for the 2-process CPU scaling figure of docs/performance.md.
#
# Every session measures 2-process DDP at ~70-85% weak-scaling efficiency on this 2-core machine,
# while the projection from the measured all-reduce says ~97%, and the phase times suggest why: the
# second process slows the first one's compute. This script tests that directly. It runs the same
# one-process `benchmark train` (unet 64^3, as record_train_cpu.sh) twice AT THE SAME TIME, as two
# independent jobs with no process group, so that they share the cores and nothing else. Their summed
# rate over twice the solo rate is the efficiency that contention alone allows; 2-process DDP, run in
# the same session, can only be compared against that ceiling. Order: solo, pair, DDP, solo (the two
# solo runs show drift in the host's speed).
#
#   OUT=benchmarks/results/cpu_contention/session_X PYTHON=python bash benchmarks/cpu_contention_control.sh
set -e
cd "$(dirname "$0")/.."
export PYTHONPATH=. OMP_NUM_THREADS=1
PY=${PYTHON:-python}
# No default: benchmarks/results/cpu_contention/ holds the sessions' folders, and a run there measured into its
# top, beside them (h145's walk, the hundred-and-twenty-sixth session)
if [ -z "${OUT:-}" ]; then
  echo "error: give OUT=<a folder of this run's own>, e.g. OUT=benchmarks/results/cpu_contention/session_X" >&2
  exit 2
fi
# Another run's files: written over, or, where a pair job failed before writing, summarised as this run's
source benchmarks/refuse_to_replace.sh
refuse_to_replace "$OUT" solo_before.json pair_a.json pair_a.log pair_b.json pair_b.log ddp_2proc.json \
    solo_after.json summary.json
mkdir -p "$OUT"
ARGS=(benchmark train --model unet --patch 64 --batch 2 --steps 5 --blocks 10)
ONE="$PY -m accelerated_seg.cli"
TWO="env ACCELERATE_USE_CPU=true $PY -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no --main_process_port ${PORT:-29643} -m accelerated_seg.cli"
stamp() { echo "== $(date +%T) $1; load $(cut -d' ' -f1-3 /proc/loadavg)"; }
stamp solo; $ONE "${ARGS[@]}" --output "$OUT/solo_before.json"
stamp pair
$ONE "${ARGS[@]}" --output "$OUT/pair_a.json" > "$OUT/pair_a.log" 2>&1 &
A=$!
$ONE "${ARGS[@]}" --output "$OUT/pair_b.json" > "$OUT/pair_b.log" 2>&1 &
B=$!
# Each job's own status: a plain `wait` returns 0 whatever they did, so set -e missed a failed pair
wait $A || { echo "pair_a failed: $OUT/pair_a.log" >&2; exit 1; }
wait $B || { echo "pair_b failed: $OUT/pair_b.log" >&2; exit 1; }
stamp ddp; $TWO "${ARGS[@]}" --output "$OUT/ddp_2proc.json"
stamp solo; $ONE "${ARGS[@]}" --output "$OUT/solo_after.json"
stamp done
$PY benchmarks/contention_summary.py "$OUT"
