# bash walk_8_edges.sh > walk_8_edges.txt 2>&1
# What a researcher tries after the page's own commands: each network of the registry at a patch the page's
# example would suggest (96^3), a --json over another command's result and over an earlier plan's, a config with
# both batch settings and with accumulation, SGD without momentum, GPUs too small for the overhead alone.
source /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/env.sh
set -x
for m in unet segresnet swinunetr unetr dynunet; do
  accelerated-seg plan --model $m --patch 96 96 96 --gpus 4 --global-batch 16 2>&1 | sed -n '1,3p;/proposal/,+1p'
  echo "status ${PIPESTATUS[0]}"
done
accelerated-seg plan --model unetr --patch 64 64 64 2>&1 | head -3; echo "status ${PIPESTATUS[0]}"
accelerated-seg plan --model swinunetr --patch 80 80 80 2>&1 | head -3; echo "status ${PIPESTATUS[0]}"
# --json over another command's result, then over an earlier plan's (its own: rewritten)
cp benchmarks/results/plan_cpu_peak_2cpu.json $T/other.json
accelerated-seg plan --model unet --patch 64 64 64 --json $T/other.json; echo "status $?"
cmp benchmarks/results/plan_cpu_peak_2cpu.json $T/other.json && echo "other.json unchanged"
accelerated-seg plan --model unet --patch 64 64 64 --json $T/plan.json | tail -1; echo "status ${PIPESTATUS[0]}"
# a config with train.batch_size and train.global_batch_size, and one with grad_accum_steps
D=$T/mydata
printf 'data: {dataset: %s, patch_size: [96, 96, 96]}\nmodel: {name: unet3d_mlperf}\ntrain: {batch_size: 2, global_batch_size: 32}\n' $D > $T/both.yaml
accelerated-seg plan --config $T/both.yaml --gpus 8 | sed -n '1p;/proposal/,+1p'; echo "status ${PIPESTATUS[0]}"
accelerated-seg plan --config $T/both.yaml --gpus 32 | sed -n '1p;/proposal/,+1p'; echo "status ${PIPESTATUS[0]}"
accelerated-seg plan --config $T/both.yaml --gpus 3; echo "status $?"
printf 'data: {dataset: %s, patch_size: [96, 96, 96]}\nmodel: {name: unet3d_mlperf}\ntrain: {global_batch_size: 32, grad_accum_steps: 4}\n' $D > $T/accum.yaml
accelerated-seg plan --config $T/accum.yaml --gpus 2 | sed -n '1p;/proposal/,+1p'; echo "status ${PIPESTATUS[0]}"
printf 'data: {dataset: %s, patch_size: [96, 96, 96]}\nmodel: {name: unet3d_mlperf}\ntrain: {batch_size: 64, global_batch_size: 32}\n' $D > $T/batch_over.yaml
accelerated-seg plan --config $T/batch_over.yaml --gpus 1; echo "status $?"
# SGD without momentum, from a config
printf 'data: {dataset: %s, patch_size: [96, 96, 96]}\nmodel: {name: unet3d_mlperf}\noptim: {optimizer: sgd, momentum: 0, nesterov: false}\n' $D > $T/sgd.yaml
accelerated-seg plan --config $T/sgd.yaml | sed -n '2,4p'; echo "status ${PIPESTATUS[0]}"
# GPUs smaller than the overhead constant
accelerated-seg plan --model unet --patch 64 64 64 --gpu-memory 0.5 | tail -2; echo "status ${PIPESTATUS[0]}"
# --gpus 1 with an FSDP profile ("the sharded rows are only meaningful with several GPUs")
accelerated-seg plan --model unet --patch 64 64 64 --accelerate-config configs/accelerate/fsdp.yaml --gpus 1 | head -1
