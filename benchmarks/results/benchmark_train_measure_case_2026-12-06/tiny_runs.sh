# tiny_runs.sh DIR: the three tiny `benchmark train` runs of ../benchmark_train_split_2026-12-06/tiny_runs.sh, and
# two more for the branches of _measure_case those leave out: the layout levers (channels_last_norm swaps the
# InstanceNorms of every copy, channels_last), and FSDP2 really sharded over 2 gloo processes
# (benchmarks/fsdp_on_cpu.py: the third loop, sharded by hand, and against_plain_fsdp2).
# Run from a folder holding .venv, with PYTHONPATH set to the checkout whose code runs:
#   PYTHONPATH=CHECKOUT bash CHECKOUT/benchmarks/results/benchmark_train_measure_case_2026-12-06/tiny_runs.sh DIR
set -e
D=$1; PY=.venv/bin/python; export OMP_NUM_THREADS=1
CHECKOUT=$(cd "$(dirname "$0")/../../.." && pwd)
bash "$CHECKOUT/benchmarks/results/benchmark_train_split_2026-12-06/tiny_runs.sh" "$D"
TINY='{"channels": [4, 8], "strides": [2], "num_res_units": 0}'
$PY -m accelerated_seg.cli benchmark train --model unet --model-args "$TINY" --patch 16 --batch 2 --steps 1 --blocks 2 \
    --lever channels_last+channels_last_norm channels_last --output $D/levers.json > $D/levers.txt 2>&1
ACCELERATE_USE_CPU=true .venv/bin/accelerate launch --config_file "$CHECKOUT/configs/accelerate/fsdp2_blocks.yaml" \
    --num_processes 2 --mixed_precision no --fsdp_activation_checkpointing true \
    "$CHECKOUT/benchmarks/fsdp_on_cpu.py" -m accelerated_seg.cli benchmark train --model unet \
    --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 1}' --patch 16 --batch 2 --steps 1 \
    --blocks 2 --output $D/fsdp2.json > $D/fsdp2.txt 2>&1
