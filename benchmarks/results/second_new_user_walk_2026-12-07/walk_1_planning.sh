# bash walk_1_planning.sh > walk_1_planning.txt 2>&1
# docs/planning.md: its commands as written (the first with --json plan.json), its Python block, refusals it names.
source /tmp/wt_h133/benchmarks/results/second_new_user_walk_2026-12-07/env.sh
set -x
accelerated-seg plan --model unet3d_mlperf --patch 128 128 128 --batch 2 --precision bf16 \
    --gpus 8 --gpu-memory 80 --global-batch 32 --json plan.json; echo "status $?"
python -c "import json; d = json.load(open('plan.json')); print(sorted(d))"
accelerated-seg plan --config configs/kits19_mlperf.yaml --accelerate-config configs/accelerate/fsdp.yaml \
    --in-channels 1 --classes 3; echo "status $?"
accelerated-seg plan --config configs/demo.yaml --accelerate-config configs/accelerate/cpu.yaml; echo "status $?"
accelerated-seg plan --config configs/accelerate/cpu.yaml; echo "status $?"
accelerated-seg plan --model unet3d_mlperf --patch 32 32 32; echo "status $?"
accelerated-seg plan --model unet3d_mlperf --patch 128 128 128 --gpus 3 --global-batch 32; echo "status $?"
accelerated-seg plan --model unet --patch 64 64 64 --batch 0; echo "status $?"
accelerated-seg plan --model unet --patch 64 64 64 --json /nonexistent_dir/plan.json; echo "status $?"
accelerated-seg plan --model unet --patch 64 64 64 --measure; echo "status $?"
python - <<'PY'
from accelerated_seg import plan

facts = plan.measure_model("unet3d_mlperf", (128, 128, 128), "bf16")  # about a second
table = plan.estimate(facts, batch=2, gpus=8)  # {strategy: Estimate}
best = plan.propose(facts, gpus=8, gpu_memory_gib=80, global_batch=32)
print(type(table).__name__, sorted(table)[:3], type(best).__name__)
PY
echo "status $?"
