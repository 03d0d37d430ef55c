# bash walk_5_plan.sh > walk_5_plan.txt 2>&1
# README "Models" and "Performance": the plan commands as written.
source "$(dirname "$0")/env.sh"
set -x
accelerated-seg plan --config configs/kits19_mlperf.yaml --accelerate-config configs/accelerate/fsdp.yaml --in-channels 1 --classes 3; echo "status $?"
accelerated-seg plan --model unet3d_mlperf --patch 128 128 128 --batch 2 --gpus 8 --global-batch 32; echo "status $?"
accelerated-seg plan --config configs/kits19_mlperf.yaml --gpus 8 --in-channels 1 --classes 3; echo "status $?"
