#!/bin/bash
# What issues 4 and 6 still need from a GPU, in device calls of under 10 minutes each
# (../shared/GPU.md): run ../shared/gpu/fetch-wheels.sh once, and add NVML's Python binding so that
# training logs GPU utilisation (`python3 -m pip download -q --no-deps nvidia-ml-py -d .whl`; pure
# Python; the GPU image has it already); then, carrying ".whl". The fourteenth session (one H100) ran
# train, batch4, sharded and data_and_plan (benchmarks/results/gpu_h100_session_2026-11-23/); the
# twenty-eighth (one H200, 15 minutes) ran mlperf_target, data_wait, mlperf_fp16, cudnn and
# mlperf_more (benchmarks/results/gpu_h200_session_2026-11-26/); the thirtieth (one H200, 15 minutes)
# ran cuda_tests, kernels, the autotuning of levers_more, inference, and sharded's fsdp and
# deepspeed_zero2 (benchmarks/results/gpu_h200_session_2026-11-26b/); the thirty-fourth (one H100, 15
# minutes) ran kernels, inference, levers_more, mlperf_target and data_wait
# (benchmarks/results/gpu_h100_session_2026-11-26/); the forty-sixth (one H200, 15 minutes) ran
# norm_layout (as three shorter commands: all four levers in one run did not end in 240 s), sharded's
# fsdp2_blocks and deepspeed_zero3, and pipeline (benchmarks/results/gpu_h200_session_2026-11-27/); the
# sixty-fourth (one H200, 15 minutes) ran strategies over every profile but the two with activation
# checkpointing, and cuda_tests (benchmarks/results/gpu_h200_session_2026-11-30/): FSDP1's resume lost
# the optimizer state, fixed since. What is left, in this order of importance (a 15-minute lease holds
# one call of about 9 minutes; a warm machine takes a short second or third):
#
#   run(command="<install line from fetch-wheels> STRATEGY_PROFILES='fsdp_no_shard fsdp_shard_grad_op fsdp_full_shard fsdp2_blocks' DEADLINE=540 bash benchmarks/gpu_session.sh strategies", carry=[".whl"])
#   run(command="<install line> STRATEGY_PROFILES=deepspeed_zero3 DEADLINE=250 bash benchmarks/gpu_session.sh strategies", carry=[".whl"])
#   run(command="<install line> DEADLINE=250 KERNEL_LEVERS=compile+channels_last bash benchmarks/gpu_session.sh kernels", carry=[".whl"])
#   run(command="<install line> DEADLINE=400 bash benchmarks/gpu_session.sh geometry", carry=[".whl"])
#
# strategies runs every profile (FSDP1's three among them, which only a GPU runs), exports each run's
# last checkpoint with accelerated-seg export and resumes it from half way: each profile took 74-89 s
# with its resume on the H200 (a launch 37-52 s), so a 540 s call holds six or seven of the eleven.
# The lists above check FSDP1's resume after the fix, and the two profiles with activation
# checkpointing (a name in STRATEGY_PROFILES picks each run of that profile, the checkpointed one too).
# kernels names the 53 bf16 copies of the compiled channels-last step (aten::copy_, 20% of the step on
# the H100) by dtype, shape, source -> destination strides and the operators each ran inside; the
# norms that keep channels-last (train.channels_last_norm) did not make that step faster on the H200,
# so the copies are not InstanceNorm's, or GroupNorm costs what they save. cuda_tests runs the CUDA
# tests again, the transforms-on-device ones with the tolerance the H200 measured (now the default),
# and a class-weighted loss (train.loss_args, forty-seventh session) training on the GPU.
#
# Each part writes JSON and logs under $OUT (the device tool brings them back); copy the JSON to
# benchmarks/results/ and update docs/performance.md, docs/planning.md and docs/strategies.md from it.
# Every command has its own time limit, so a slow one leaves the others' results.
#
# SMOKE=1 runs every command with a tiny network and 2-step blocks, to check the script and its flags
# on a CPU before spending device time; there the commands that need CUDA (fp16, plan --measure, the
# FSDP/DeepSpeed profiles) must end with their one-line error and exit 2 (1 under accelerate launch,
# whose log shows the worker's exit code 2; the DeepSpeed steps exit 1 where DeepSpeed is not
# installed), the CUDA tests must show as skipped, and everything else must exit 0.
#
# Several parts may share one call (`gpu_session.sh train sharded`); with DEADLINE=<seconds> a step
# gets at most the time left before it and is skipped when under 30 s are left, so a call ends inside
# its limit. The device brings back at most 8 files, so the results and logs go to $OUT/work and are
# packed into $OUT/gpu_session.tgz after every step (a call cut short still returns what finished).
set -u
OUT=${OUT:-/tmp/gpu_session}
PACK=$OUT/gpu_session.tgz
START=$SECONDS
DEADLINE=${DEADLINE:-100000}
PY=${PYTHON:-python3}
# Every call writes these two, so a folder that holds them holds an earlier call's results: refused, not
# replaced (a call on the device starts with an empty $OUT; a second local SMOKE=1 run needs its own OUT)
source "$(dirname "$0")/refuse_to_replace.sh"
refuse_to_replace "$OUT" gpu_session.tgz work/nvidia-smi.txt
usage() { echo "usage: [SMOKE=1] [DEADLINE=s] bash benchmarks/gpu_session.sh cuda_tests|train|sharded|data_and_plan|batch4|mlperf_target|mlperf_fp16|mlperf_more|data_wait|cudnn|norm_layout|kernels|levers_more|inference|pipeline|strategies|geometry ... (sharded: PROFILES='fsdp ...' picks profiles)"; }
# Every part named is known before anything is written: a call without one wrote nvidia-smi.txt, then its usage,
# and the next call's OUT was refused for it (h145's walk, the hundred-and-twenty-sixth session)
PARTS=$(usage | sed -E 's/.*gpu_session\.sh ([a-z_0-9|]+) .*/\1/')
for part in "${@:-}"; do
  # a '|' inside is no part, though "train|sharded" is a piece of the list (r123)
  [[ "$part" != *"|"* && "|$PARTS|" == *"|$part|"* ]] || { usage; exit 2; }
done
OUT=$OUT/work
mkdir -p "$OUT"
export PYTHONPATH=${PYTHONPATH:-$PWD}
device=$($PY -c "import torch; print(torch.cuda.get_device_name().lower().replace(' ', '-'))" 2>/dev/null || echo cpu)
BENCH="-m accelerated_seg.cli benchmark train"
LAUNCH="$PY -m accelerate.commands.launch --num_processes 1 --num_machines 1"
if [ "${SMOKE:-0}" = 1 ]; then
  MLPERF=(--model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' --patch 16)
  PLAN_MODEL=(--model unet --patch 16 16 16)
  SHORT=(--steps 2 --blocks 1)
  INFER_SHORT=(--size 24 24 20 --roi 16 --tta none --blocks 1)
  PREDICT=(--cases 2 --size 24 24 20 --roi 16 --channels 4 8 --blocks 1)
  RAW_ZERO=(--patch 32 --rounds 1 --steps 1)
  FIXED_SHORT=(--steps 20 --rounds 3)
  GRAPHS=()  # CUDA graphs are refused off CUDA (tested); the smoke checks the other levers of their step
  GEOMETRY_RUN=(--train.max_steps=4 --train.val_every=2 --train.save_every=2)
else
  MLPERF=(--model unet3d_mlperf --patch 128)  # each step gives its --batch (the JSON records the command)
  PLAN_MODEL=(--model unet3d_mlperf --patch 128 128 128)
  SHORT=()
  INFER_SHORT=()
  PREDICT=(--cases 4 --size 192 192 160 --spacing 0.8 0.8 2.5 --roi 96 --blocks 2)
  RAW_ZERO=(--patch 128 --rounds 6 --steps 5)
  FIXED_SHORT=(--steps 100 --rounds 11)
  GRAPHS=(compile_cudagraphs)
  GEOMETRY_RUN=()
fi
pack() { tar czf "$PACK.part" -C "$OUT" . && mv "$PACK.part" "$PACK"; }
step() {  # step <seconds> <name> <command...>: run with a limit, log to $OUT/<name>.log, say how it ended
  local limit=$1 name=$2; shift 2
  local left=$((DEADLINE - (SECONDS - START)))
  if [ "$left" -lt 30 ]; then echo "== $name: skipped, ${left}s left before the deadline"; return; fi
  [ "$left" -lt "$limit" ] && limit=$left
  echo "== $(date +%T) $name (limit ${limit}s)"
  local t0=$SECONDS
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1; echo "   exit $? ($name, $((SECONDS - t0))s)"; tail -n 12 "$OUT/$name.log"
  pack
}
# a folder end to end, the next case read and the previous written while the network runs, against one
# case at a time, each stage also timed inside both ways' blocks (thirty-third session: 1.32x on 2 CPU
# cores with the network as fast as the host; thirty-fourth: 1.30x on an H100 machine, bound 2.09x);
# then the same with the transforms on the GPU (predict --transforms-on-device, on by default since the
# forty-sixth session's H200 measured 4.6x the host's road), after its CUDA test (the GPU's road writes
# what the host's does)
predict_pipeline() {
  step 150 predict_pipeline $PY -m accelerated_seg.cli benchmark predict "${PREDICT[@]}" --device cuda \
      --no-transforms-on-device --output "$OUT/predict_${device}_pipeline.json"
  step 60 cuda_test_transforms $PY -m pytest -q -p no:cacheprovider -rs -m cuda tests/test_inference.py
  step 150 predict_pipeline_on_device $PY -m accelerated_seg.cli benchmark predict "${PREDICT[@]}" --device cuda \
      --transforms-on-device --output "$OUT/predict_${device}_pipeline_on_device.json"
}
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || true
for part in "$@"; do
case "$part" in
  cuda_tests)  # the CUDA-only tests alone (as train's first step)
    step 120 cuda_tests $PY -m pytest -q -p no:cacheprovider -rs -m cuda tests/
    ;;
  train)  # the MLPerf U-Net: samples/s per GPU (target >= 70 at bf16), MFU, overhead ratio, each lever
    # First the CUDA-only tests (skipped on CPUs): the loop's per-step read does not wait for the
    # backward, GPU augmentation matches the CPU's, the planner's estimate is within 15% of the peak.
    # Selected by marker, so that a renamed test is still run (and a CPU shows them all skipped).
    step 120 cuda_tests $PY -m pytest -q -p no:cacheprovider -rs -m cuda tests/
    step 240 mlperf_levers $PY $BENCH "${MLPERF[@]}" --batch 2 --precision bf16 --steps 20 --blocks 5 "${SHORT[@]}" \
        --lever none channels_last fused_adamw compile --output "$OUT/train_${device}_mlperf_levers.json"
    step 200 mlperf_precisions $PY $BENCH "${MLPERF[@]}" --batch 2 --precision fp32 fp16 --steps 20 --blocks 5 \
        "${SHORT[@]}" --output "$OUT/train_${device}_mlperf_precisions.json"
    # The loop's fixed host cost per step on this host, with and without the accelerate workaround.
    # (its CPU default, 31 rounds of 200 steps, did not end in 90 s on an H100)
    step 120 fixed_step_cost $PY benchmarks/fixed_step_cost.py "${FIXED_SHORT[@]}" --output "$OUT/fixed_step_cost_${device}.json"
    ;;
  batch4)  # the MLPerf U-Net at batch 4, defaults and compiled (compile was the lever that paid at batch 2)
    step 260 mlperf_batch4 $PY $BENCH "${MLPERF[@]}" --batch 4 --precision bf16 --steps 20 --blocks 5 "${SHORT[@]}" \
        --lever none compile --output "$OUT/train_${device}_mlperf_batch4.json"
    ;;
  mlperf_target)  # what could carry compile's 49.3 samples/s (batch 4) to the 70 of MLPerf's H100 results:
    # channels-last with inductor's own instance norm (eager channels-last was 27% slower: cuDNN's norm)
    step 240 mlperf_target_b4 $PY $BENCH "${MLPERF[@]}" --batch 4 --precision bf16 --steps 20 --blocks 5 "${SHORT[@]}" \
        --lever compile compile+channels_last --output "$OUT/train_${device}_mlperf_target_b4.json"
    ;;
  mlperf_fp16)  # eager fp16 ran 15% faster than bf16 at batch 2 (28.8 against 25.1 samples/s); MLPerf's
    # reference trains in fp16 too. Compiled and channels-last, at the batch where bf16 reached 49.3.
    step 150 mlperf_target_fp16_b4 $PY $BENCH "${MLPERF[@]}" --batch 4 --precision fp16 --steps 20 --blocks 5 \
        "${SHORT[@]}" --lever compile+channels_last --output "$OUT/train_${device}_mlperf_target_fp16_b4.json"
    ;;
  mlperf_more)  # CUDA graphs (reduce-overhead) against the host's launch cost; a larger batch
    step 200 mlperf_target_graphs_b4 $PY $BENCH "${MLPERF[@]}" --batch 4 --precision bf16 --steps 20 --blocks 5 \
        "${SHORT[@]}" --lever compile "${GRAPHS[@]}" --output "$OUT/train_${device}_mlperf_target_graphs_b4.json"
    step 200 mlperf_target_b8 $PY $BENCH "${MLPERF[@]}" --batch 8 --precision bf16 --steps 10 --blocks 5 "${SHORT[@]}" \
        --lever compile --output "$OUT/train_${device}_mlperf_target_b8.json"
    ;;
  data_wait)  # the data wait with the real loader (target <= 3 %), now that a run draws from one pass over
    # the loader (the H100's 10.8% was mostly the refill at each pass's start); as data_and_plan's gpu run
    step 150 mlperf_realdata_augment_gpu $PY $BENCH "${MLPERF[@]}" --batch 2 --precision bf16 --steps 20 --blocks 3 \
        "${SHORT[@]}" --data real --num-workers 8 --augment-on gpu --output "$OUT/train_${device}_mlperf_realdata_augment_gpu.json"
    ;;
  cudnn)  # cuDNN autotuning (train.cudnn_benchmark, on by default) against off; eager, cheap
    step 100 cudnn_benchmark $PY $BENCH "${MLPERF[@]}" --batch 2 --precision bf16 --steps 20 --blocks 5 "${SHORT[@]}" \
        --lever none no_cudnn_benchmark --output "$OUT/train_${device}_mlperf_cudnn_benchmark.json"
    ;;
  norm_layout)  # train.channels_last_norm: the norms keep channels-last, so the convolutions stop copying
    # (thirty-fourth session, H100: 53 copies, 20% of a compiled channels-last step), eager and compiled.
    # Two steps: all four levers in one run did not end in 240 s on the H200 (each compiled lever
    # compiles both loops from a cold cache); measured there in the forty-sixth session, it stays off
    step 100 mlperf_norm_layout_eager_b4 $PY $BENCH "${MLPERF[@]}" --batch 4 --precision bf16 --steps 20 --blocks 3 \
        "${SHORT[@]}" --lever channels_last channels_last+channels_last_norm \
        --output "$OUT/train_${device}_mlperf_norm_layout_eager_b4.json"
    step 240 mlperf_norm_layout_compiled_b4 $PY $BENCH "${MLPERF[@]}" --batch 4 --precision bf16 --steps 20 \
        --blocks 3 "${SHORT[@]}" --lever compile+channels_last compile+channels_last+channels_last_norm \
        --output "$OUT/train_${device}_mlperf_norm_layout_compiled_b4.json"
    ;;
  kernels)  # where the MLPerf U-Net's compiled step spends its device time, kernel by kernel and by the
    # operator that launched each kernel: inside_blocks.py's kernels report, in the log. The thirtieth
    # session's profile (compile+channels_last) put 22% in a strided elementwise kernel (53 calls a step)
    # whose launcher it did not record; the step without channels-last says whether the layout brings it.
    # (the thirty-fourth session profiled compile+channels_last and compile; now whether the norms that
    # keep channels-last leave the copies out, and the copies of compile+channels_last by argument)
    for lever in ${KERNEL_LEVERS:-compile+channels_last+channels_last_norm compile+channels_last}; do
      step 150 "kernels_$lever" $PY benchmarks/inside_blocks.py kernels benchmark train "${MLPERF[@]}" --batch 4 \
          --precision bf16 --lever $lever --steps 10 --blocks 1 "${SHORT[@]}" \
          --output "$OUT/train_${device}_mlperf_kernels_$lever.json"
    done
    ;;
  levers_more)  # compile under FSDP2 (static shapes, as training compiles there). Inductor's autotuning
    # (--lever compile_autotune) was tried in the thirtieth session: its compile of our loop's model alone
    # took over 300 s, and for the forward's 18 convolutions it kept cuDNN for 13 (docs/performance_history.md)
    step 200 fsdp2_compile $LAUNCH --config_file configs/accelerate/fsdp.yaml $BENCH "${MLPERF[@]}" --batch 4 \
        --precision bf16 --steps 10 --blocks 3 "${SHORT[@]}" --lever none compile --output "$OUT/train_${device}_mlperf_fsdp_compile.json"
    ;;
  sharded)  # our loop under FSDP and ZeRO against the plain (unsharded) loop: target ratio >= 0.90;
            # under FSDP2 (fsdp, fsdp2_blocks) also against a plain loop sharded by hand (against_plain_fsdp2)
    # (not fsdp_full_shard: FSDP1 cannot wrap the MLPerf U-Net, a DynUNet, and training says so)
    for profile in ${PROFILES:-fsdp fsdp2_blocks deepspeed_zero2 deepspeed_zero3}; do
      step 100 "sharded_$profile" $LAUNCH --config_file "configs/accelerate/$profile.yaml" $BENCH "${MLPERF[@]}" \
          --batch 2 --precision bf16 --steps 10 --blocks 3 "${SHORT[@]}" --output "$OUT/train_${device}_mlperf_$profile.json"
    done
    [ -n "${PROFILES:-}" ] && continue  # a chosen few profiles only
    # Whose cost a low ZeRO ratio is: raw DeepSpeed engines against a plain loop, no accelerate, no loop of ours.
    step 100 deepspeed_without_accelerate $PY benchmarks/deepspeed_without_accelerate.py "${RAW_ZERO[@]}" \
        --output "$OUT/deepspeed_without_accelerate_${device}.json"
    ;;
  data_and_plan)  # data wait with the real loader (target <= 3 %), the planner against measured peaks
    for where in cpu gpu; do  # the spatial augmentation in the loader workers, or on the device (data.augment_on)
      step 170 "mlperf_realdata_augment_$where" $PY $BENCH "${MLPERF[@]}" --batch 2 --precision bf16 \
          --steps 20 --blocks 3 "${SHORT[@]}" --data real --num-workers 8 --augment-on $where \
          --output "$OUT/train_${device}_mlperf_realdata_augment_$where.json"
    done
    for batch in 1 2 4; do
      step 60 "plan_b$batch" $PY -m accelerated_seg.cli plan "${PLAN_MODEL[@]}" \
          --batch $batch --precision bf16 --measure --json "$OUT/plan_${device}_mlperf_b$batch.json"
    done
    ;;
  inference)  # prediction's sliding window against MONAI's on the GPU, at each precision (issue 5), and
    # without TTA, where the copy of the probabilities to the host weighs most (thirtieth session: ours
    # 0.37 of the bare sliding window; now also against MONAI with the same output, and the copy alone)
    for precision in fp32 bf16 fp16; do
      step 150 "infer_$precision" $PY -m accelerated_seg.cli benchmark infer --size 192 192 160 --roi 96 \
          --tta axes --device cuda --precision $precision "${INFER_SHORT[@]}" \
          --output "$OUT/infer_${device}_$precision.json"
    done
    for precision in fp32 bf16; do
      step 100 "infer_${precision}_tta_none" $PY -m accelerated_seg.cli benchmark infer --size 192 192 160 --roi 96 \
          --tta none --device cuda --precision $precision "${INFER_SHORT[@]}" \
          --output "$OUT/infer_${device}_${precision}_tta_none.json"
    done
    # the host's work around the network on this machine's CPU (thirty-first session: 425 ms of argmax,
    # now 50; the inverse resampling 609 ms on 2 cores), to weigh against the network's part above
    step 60 predict_tail $PY benchmarks/predict_tail.py --output "$OUT/predict_tail_${device}.json"
    predict_pipeline
    ;;
  pipeline)  # the prediction pipeline alone (as inference's last step)
    predict_pipeline
    ;;
  strategies)  # every accelerate profile in effect, exported, reloaded, resumed (issue 4)
    # checkpoints are too large to bring back (the JSON holds the results), so they stay outside $OUT;
    # STRATEGY_PROFILES='fsdp_full_shard ...' picks profiles (the JSON is rewritten after each one); a
    # launch that hangs is stopped after 180 s and recorded, and the log shows each launch start and end
    step 560 strategies $PY benchmarks/verify_strategies.py --resume-check --out "$OUT/strategies_${device}.json" \
        --work "${TMPDIR:-/tmp}/verify_work" --launch-timeout 180 ${STRATEGY_PROFILES:+--profiles $STRATEGY_PROFILES}
    rm -rf "${TMPDIR:-/tmp}/verify_work"
    ;;
  geometry)  # what the sixty-eighth session's CPU findings ask of a GPU (about 5 minutes on the H200):
    # does cuDNN's bf16 weight gradient over a volume 2 voxels wide come back as garbage, as oneDNN's
    # did in up to 18% of calls (the loop skips a step with a non-finite gradient norm on the CPU only);
    # does bf16 training of the default U-Net on 32^3 patches (2 voxels at its bottom; NaN within ten
    # steps in 3 of 4 CPU runs before that skip) finish and export; and does the GPU's prediction
    # path read every header as the CPU's does (preprocess.NiftiReader; header_variants_2cpu.json:
    # every variant of the same voxels 0.962 / 0.928 there)
    step 150 bf16_two_voxels $PY benchmarks/cpu_bf16_two_voxels.py --device cuda --rounds 1 --calls 500 \
        --output "$OUT/bf16_two_voxels_${device}.json"
    geometry_work=${TMPDIR:-/tmp}/geometry_work
    rm -rf "$geometry_work"
    step 150 bf16_unet32 $LAUNCH --mixed_precision bf16 examples/train.py --config configs/demo.yaml \
        --data.patch_size=[32,32,32] --model.args='{}' --train.trackers=none "${GEOMETRY_RUN[@]}" \
        --train.output_dir="$geometry_work/bf16_unet32" --no-report
    step 150 demo $LAUNCH examples/train.py --config configs/demo.yaml --train.trackers=none "${GEOMETRY_RUN[@]}" \
        --train.output_dir="$geometry_work/demo" --no-report
    step 200 header_variants $PY benchmarks/header_variants.py --model "$geometry_work/demo/best_model" \
        --image "$geometry_work/demo/synthetic_data/imagesTr/case_022.nii.gz" \
        --label "$geometry_work/demo/synthetic_data/labelsTr/case_022.nii.gz" --work "$geometry_work/variants" \
        --output "$OUT/header_variants_${device}.json" --note "model: configs/demo.yaml trained on $device (demo.log)"
    rm -rf "$geometry_work"
    ;;
  *) usage; exit 2 ;;
esac
done
pack
ls -la "$OUT"
