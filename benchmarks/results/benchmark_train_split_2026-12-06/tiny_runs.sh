# tiny_runs.sh DIR: the three tiny `benchmark train` runs whose JSON same_json.py compares before and after the
# split of benchmark_train.py (PYTHONPATH picks the code: a checkout of main at 637c692f, then branch h67).
# Run from the repository root: PYTHONPATH=. bash benchmarks/results/benchmark_train_split_2026-12-06/tiny_runs.sh DIR
set -e
D=$1; PY=.venv/bin/python; export OMP_NUM_THREADS=1
mkdir -p "$D"
TINY='{"channels": [4, 8], "strides": [2], "num_res_units": 0}'
# one process: fp32 and bf16, the defaults and the sgd lever, a price and a peak (the cost and MFU fields)
$PY -m accelerated_seg.cli benchmark train --model unet --model-args "$TINY" --patch 16 --batch 2 --steps 2 --blocks 2 \
    --precision fp32 bf16 --price-per-gpu-hour 3 --peak-tflops 0.5 --lever none sgd --output $D/one.json > $D/one.txt 2>&1
# two gloo processes: plain DDP, a DDP lever and bucket size, the all-reduce timing
ACCELERATE_USE_CPU=true .venv/bin/accelerate launch --multi_gpu --num_processes 2 --num_machines 1 \
    --mixed_precision no --dynamo_backend no -m accelerated_seg.cli benchmark train --model unet --model-args "$TINY" \
    --patch 16 --batch 1 --steps 1 --blocks 2 --lever none ddp_static_graph --ddp-bucket-mb 5 --output $D/two.json > $D/two.txt 2>&1
# the training data path: phantoms written, cached, sampled and augmented
$PY -m accelerated_seg.cli benchmark train --model unet --model-args "$TINY" --patch 16 --batch 2 --steps 1 --blocks 1 \
    --data real --num-workers 0 --output $D/real.json > $D/real.txt 2>&1
