#!/bin/bash
# What issues 4 and 6 still need from a GPU, in device calls of under 10 minutes each
# (../shared/GPU.md): run ../shared/gpu/fetch-wheels.sh once, then, carrying ".whl":
#
#   run(command="<install line from fetch-wheels> bash benchmarks/gpu_session.sh train", carry=[".whl"])
#   run(command="<install line> bash benchmarks/gpu_session.sh data_and_plan", carry=[".whl"])
#   run(command="<install line> bash benchmarks/gpu_session.sh strategies", carry=[".whl"])
#
# Each part writes JSON and logs under $OUT (the device tool brings them back); copy the JSON to
# benchmarks/results/ and update docs/performance.md, docs/planning.md and docs/strategies.md from it.
# Every command has its own time limit, so a slow one leaves the others' results.
set -u
OUT=${OUT:-/tmp/gpu_session}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONPATH=${PYTHONPATH:-$PWD}
device=$($PY -c "import torch; print(torch.cuda.get_device_name().lower().replace(' ', '-'))" 2>/dev/null || echo cpu)
BENCH="$PY -m accelerated_seg.cli benchmark train"
MLPERF="--model unet3d_mlperf --patch 128 --batch 2"
step() {  # step <seconds> <name> <command...>: run with a limit, log to $OUT/<name>.log, say how it ended
  local limit=$1 name=$2; shift 2
  echo "== $(date +%T) $name"
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1; echo "   exit $? ($name)"; tail -n 12 "$OUT/$name.log"
}
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || true
case "${1:-}" in
  train)  # the MLPerf U-Net: samples/s per GPU (target >= 70 at bf16), MFU, overhead ratio, each lever
    step 240 mlperf_levers $BENCH $MLPERF --precision bf16 --steps 20 --blocks 5 \
        --lever none channels_last fused_adamw compile --output "$OUT/train_${device}_mlperf_levers.json"
    step 200 mlperf_precisions $BENCH $MLPERF --precision fp32 fp16 --steps 20 --blocks 5 \
        --output "$OUT/train_${device}_mlperf_precisions.json"
    ;;
  data_and_plan)  # data wait with the real loader (target <= 3 %), the planner against measured peaks
    step 300 mlperf_realdata $BENCH $MLPERF --precision bf16 --steps 20 --blocks 3 --data real --num-workers 8 \
        --output "$OUT/train_${device}_mlperf_realdata.json"
    for batch in 1 2 4; do
      step 90 "plan_b$batch" $PY -m accelerated_seg.cli plan --model unet3d_mlperf --patch 128 128 128 \
          --batch $batch --precision bf16 --measure --json "$OUT/plan_${device}_mlperf_b$batch.json"
    done
    ;;
  strategies)  # every accelerate profile in effect, exported, reloaded, resumed (issue 4)
    step 560 strategies $PY benchmarks/verify_strategies.py --resume-check --out "$OUT/strategies_${device}.json" \
        --work "$OUT/verify_work"
    rm -rf "$OUT/verify_work"  # checkpoints: too large to bring back, the JSON holds the results
    ;;
  *) echo "usage: bash benchmarks/gpu_session.sh train|data_and_plan|strategies"; exit 2 ;;
esac
ls -la "$OUT"
