# bash walk_1_run_it.sh > walk_1_run_it.txt 2>&1
# docs/performance.md "Run it": each command of its block as written where a CPU can run it, scaled down by the
# page's own options (--steps, --blocks, --patch) where noted; the GPU-only ones as a CPU user meets them.
source /tmp/wt_h145/benchmarks/results/ninth_new_user_walk_2026-12-07/env.sh
python -c "import accelerated_seg; print(accelerated_seg.__file__)"
set -x
# 1. one process, as written (the defaults: 5 steps a block, 5 timed blocks a loop, 1 warm-up)
time accelerated-seg benchmark train --model unet --patch 64 --batch 2 --precision fp32; echo "status $?"
ls benchmarks/results/ | grep '^train_'
# 2. the GPU sweep on a CPU: fp16 is refused, the page says; then the same sweep without fp16, scaled down
accelerated-seg benchmark train --model unet segresnet --patch 96 128 --batch 1 2 --precision bf16 fp16 \
    --price-per-gpu-hour 2.5; echo "status $?"
time accelerated-seg benchmark train --model unet segresnet --patch 32 --batch 1 2 --precision bf16 \
    --price-per-gpu-hour 2.5 --steps 1 --blocks 2 --output $WALK/sweep.json; echo "status $?"
# 3. N processes with configs/accelerate/ddp.yaml (a GPU profile) on this CPU, 2 processes for 8
accelerate launch --config_file configs/accelerate/ddp.yaml --num_processes 2 \
    -m accelerated_seg.cli benchmark train --model unet --patch 32 --batch 2 --precision fp32 --steps 1 --blocks 1 \
    --output $WALK/ddp.json; echo "status $?"
# 4. FSDP on a CPU: refused before any work, the page says
accelerate launch --config_file configs/accelerate/fsdp.yaml --num_processes 1 \
    -m accelerated_seg.cli benchmark train --model unet3d_mlperf --patch 128 --batch 2 --precision bf16; echo "status $?"
# 5. CPU DDP over gloo, as written but for --steps 2 --blocks 2 (about a minute on 2 cores)
time ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1 accelerate launch --multi_gpu --num_processes 2 --num_machines 1 \
    --mixed_precision no --dynamo_backend no -m accelerated_seg.cli benchmark train --patch 64 --steps 2 --blocks 2 \
    --output $WALK/gloo.json; echo "status $?"
# 6. cpu_session.sh is not run whole (21 minutes); without SESSION it asks for one, and the table after it
bash benchmarks/cpu_session.sh; echo "status $?"
time python benchmarks/cpu_history.py > $WALK/cpu_history.txt; echo "status $?"
head -3 $WALK/cpu_history.txt; tail -2 $WALK/cpu_history.txt; wc -l < $WALK/cpu_history.txt
