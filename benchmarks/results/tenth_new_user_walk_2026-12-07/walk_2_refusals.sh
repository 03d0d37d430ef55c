# bash walk_2_refusals.sh > walk_2_refusals.txt 2>&1
# docs/planning.md, the paragraph under the options table: "A setting that cannot work is one error line naming the
# option beside the setting, before anything is measured; a bad number or a --json that cannot be written before
# torch and MONAI import" (timed: an import of both takes seconds here), and its examples; then what a researcher
# tries next: a patch that cannot fit a GPU, a batch too large, too little GPU memory, the search's stop at 1024.
source /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/env.sh
MLPERF=(--model unet3d_mlperf --patch 128 128 128)
set -x
# the page's examples: an unknown model, a patch below 1 voxel, one the network cannot divide, a batch below 1,
# a global batch that does not split over the GPUs; a --json that cannot be written
time accelerated-seg plan --model unet3d --patch 128 128 128; echo "status $?"
time accelerated-seg plan --model unet3d_mlperf --patch 0 128 128; echo "status $?"
time accelerated-seg plan --model unet3d_mlperf --patch 100 128 128; echo "status $?"
time accelerated-seg plan "${MLPERF[@]}" --batch 0; echo "status $?"
time accelerated-seg plan "${MLPERF[@]}" --gpus 8 --global-batch 30; echo "status $?"
time accelerated-seg plan "${MLPERF[@]}" --json /proc/plan.json; echo "status $?"
mkdir -p $T/a_folder
time accelerated-seg plan "${MLPERF[@]}" --json $T/a_folder; echo "status $?"
# "Patches must be multiples of 32 and hold more than one voxel at its 1/32 bottleneck: 64 x 64 x 32 trains, 32^3
# does not"
accelerated-seg plan --model unet3d_mlperf --patch 32 32 32; echo "status $?"
accelerated-seg plan --model unet3d_mlperf --patch 64 64 32 --gpus 1 | head -3; echo "status ${PIPESTATUS[0]}"
# nothing given; a config that is an accelerate config ("told to go to --accelerate-config")
accelerated-seg plan; echo "status $?"
accelerated-seg plan --config configs/accelerate/ddp.yaml; echo "status $?"
# a patch that cannot fit an 80 GiB GPU: every row NO, and the last line says what would make room
accelerated-seg plan --model unet3d_mlperf --patch 512 512 512 --batch 1; echo "status $?"
# a batch too large: the table at --batch 64, and what the proposals say
accelerated-seg plan "${MLPERF[@]}" --batch 64 --gpus 8 --global-batch 512; echo "status $?"
# a per-GPU batch above the global batch's share: --batch 8 on 8 GPUs for a global batch of 32 (4 each)
accelerated-seg plan "${MLPERF[@]}" --batch 8 --gpus 8 --global-batch 32 | sed -n '1p;/proposal/,$p'
echo "status ${PIPESTATUS[0]}"
# a global batch smaller than the GPUs
accelerated-seg plan "${MLPERF[@]}" --gpus 8 --global-batch 4; echo "status $?"
# GPUs of 16 GiB: some batch fits, the proposal accumulates
accelerated-seg plan "${MLPERF[@]}" --gpus 2 --gpu-memory 16 --global-batch 32 | sed -n '/proposal/,$p'
echo "status ${PIPESTATUS[0]}"
# the search's stop at 1024 per GPU ("1024 or more, where the search stops"): a tiny network
time accelerated-seg plan --model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' \
    --patch 16 16 16 | sed -n '/proposal/,$p'; echo "status ${PIPESTATUS[0]}"
# --optimizer sgd, and the table's optimizer named
accelerated-seg plan "${MLPERF[@]}" --optimizer sgd | head -3; echo "status ${PIPESTATUS[0]}"
