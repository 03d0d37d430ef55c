#!/bin/bash
# Run: cd /tmp/wt_r129 && bash benchmarks/results/review_plan_global_batch_2026-12-07/page_commands.sh > benchmarks/results/review_plan_global_batch_2026-12-07/page_commands_<when>.txt 2>&1
# docs/planning.md's new text held against plan: the opening's commands (measuring time), the refusals it sorts by
# what each waits for (timed: before the imports or after), and "With --config"'s global batch sentences, on a config of
# the user's own (a dataset.json of one CT channel, two labels, no images).
T=$(mktemp -d)
export OMP_NUM_THREADS=1 PYTHONPATH=.
P="/work/main/.venv/bin/accelerated-seg plan"
echo '{"labels": {"0": "background", "1": "tumour"}, "modality": {"0": "CT"}, "training": [{"image": "./imagesTr/a.nii.gz", "label": "./labelsTr/a.nii.gz"}]}' > $T/dataset.json
printf "data: {dataset: $T/dataset.json, patch_size: [64, 64, 64]}\nmodel: {name: unet3d_mlperf, args: {filters: [4, 8, 8, 8, 8, 8]}}\ntrain: {global_batch_size: 16}\n" > $T/exp.yaml
sed 's/global_batch_size: 16}/batch_size: 2, global_batch_size: 32}/' $T/exp.yaml > $T/exp_b2.yaml
sed 's/global_batch_size: 16}/global_batch_size: 12, grad_accum_steps: 2}/' $T/exp.yaml > $T/exp_acc.yaml
run() { echo "== plan ${*//$T/\$T}"; s=$(date +%s.%N); $P "$@" > $T/out 2>&1; st=$?
        grep -E "^(error|from|note)" $T/out | sed "s#$T#\$T#g"; echo "status $st, $(echo "$(date +%s.%N) - $s" | bc | cut -c1-5) s"; }
run --model unet3d_mlperf --patch 128 128 128 --batch 2 --precision bf16 --gpus 8 --gpu-memory 80 --global-batch 32
# the refusals, in the page's order: at once, then after the imports
run --model unet3d_mlperf --patch 0 128 128
run --model unet3d_mlperf --patch 128 128 128 --batch 0
run --model unet3d_mlperf --patch 128 128 128 --gpus 8 --global-batch 30
run --model unet3d_mlperf --patch 128 128 128 --json /proc/plan.json
run --model unet3d_mlperf --patch 100 128 128
run --model unet3d_mlperf --patch 32 32 32
# With --config
run --config $T/exp.yaml --gpus 8
run --config $T/exp.yaml --gpus 8 --global-batch 64
run --config $T/exp.yaml --gpus 3
run --config $T/exp.yaml --gpus 3 --batch 2
run --config $T/exp.yaml --gpus 3 --global-batch 12
run --config $T/exp_b2.yaml --gpus 8 --global-batch 24
run --config $T/exp_b2.yaml --gpus 3 --global-batch 8
run --config $T/exp_acc.yaml --gpus 8
run --config $T/exp_acc.yaml --gpus 8 --global-batch 24
run --config $T/exp_acc.yaml --accelerate-config configs/accelerate/ddp.yaml --global-batch 3
printf "distributed_type: XLA\n" > $T/xla.yaml
run --model unet --patch 64 64 64 --accelerate-config $T/xla.yaml
rm -rf $T
