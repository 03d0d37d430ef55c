# bash walk_4_profiles.sh > walk_4_profiles.txt 2>&1
# docs/planning.md, "With --accelerate-config: check a profile before you launch it": every shipped profile (the row
# marked, its line), --gpus/--precision replacing the profile's (line and JSON), the CPU profile's mark, the rows not
# marked (HYBRID_SHARD, other offloading, FSDP1 for unet3d_mlperf), and each refusal of the page's table, from
# profiles written as a user would write them. A small U-Net at 64^3 so that each run is the imports' cost.
source /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/env.sh
SMALL=(--model unet --patch 64 64 64)
P=$T/profiles
mkdir -p $P
set -x
for f in configs/accelerate/*.yaml; do
  accelerated-seg plan "${SMALL[@]}" --accelerate-config $f | grep -E "^accelerate profile|<- the accelerate|refuses|^strategy" \
      ; echo "status ${PIPESTATUS[0]}"
done
# the FSDP1 refusal line for unet3d_mlperf ("the line names the FSDP2 profile")
accelerated-seg plan --model unet3d_mlperf --patch 64 64 64 --accelerate-config configs/accelerate/fsdp_full_shard.yaml \
    --json $T/fsdp1.json | grep -E "^accelerate profile|<- the|refuses"
python -c "import json,sys; print(json.load(open(sys.argv[1]))['accelerate_profile'])" $T/fsdp1.json
# --gpus and --precision win, as the line says; the JSON's replaced_by_command_line
accelerated-seg plan "${SMALL[@]}" --accelerate-config configs/accelerate/ddp.yaml --gpus 4 --precision fp16 \
    --json $T/replaced.json | head -2
python -c "import json,sys; print(json.load(open(sys.argv[1]))['accelerate_profile'])" $T/replaced.json
# the page's table of refusals, each from a profile written by hand
w() { printf '%s' "$2" > $P/$1; accelerated-seg plan "${SMALL[@]}" --accelerate-config $P/$1; echo "status $?"; }
w fp8.yaml $'distributed_type: MULTI_GPU\nmixed_precision: fp8\n'
w xla.yaml $'distributed_type: XLA\n'
w none.yaml $'num_processes: 2\n'
w experiment.yaml $'data: {patch_size: [64, 64, 64]}\nmodel: {name: unet}\n'
w typo.yaml $'distributed_type: MULTI_GPU\nnum_process: 2\n'
w fsdp_typo.yaml $'distributed_type: FSDP\nfsdp_config: {fsdp_versoin: 2}\n'
w tp.yaml $'distributed_type: MULTI_GPU\nparallelism_config: {parallelism_config_tp_size: 2}\n'
w sync.yaml $'distributed_type: FSDP\nfsdp_config: {fsdp_version: 1, fsdp_sync_module_states: false}\n'
w dynamo.yaml $'distributed_type: MULTI_GPU\ndynamo_backend: INDUCTOR\ndynamo_config: {dynamo_backend: INDUCTOR, dynamo_mode: max-autotune}\n'
echo '{"bf16": {"enabled": true}}' > $P/no_zero.json
w ds_nozero.yaml "distributed_type: DEEPSPEED
deepspeed_config: {deepspeed_config_file: $P/no_zero.json}
"
echo '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": true}}' > $P/ds.json
w ds_stage_beside.yaml "distributed_type: DEEPSPEED
deepspeed_config: {deepspeed_config_file: $P/ds.json, zero_stage: 2}
"
w ds_mixed_beside.yaml "distributed_type: DEEPSPEED
mixed_precision: bf16
deepspeed_config: {deepspeed_config_file: $P/ds.json}
"
w ds_fp16_yes.yaml "distributed_type: DEEPSPEED
fp16: 'yes'
deepspeed_config: {deepspeed_config_file: $P/ds.json}
"
echo '{"zero_optimization": {"stage": 2}, "bf16": true}' > $P/ds_bf16_true.json
w ds_bf16_true.yaml "distributed_type: DEEPSPEED
deepspeed_config: {deepspeed_config_file: $P/ds_bf16_true.json}
"
w ds_missing.yaml "distributed_type: DEEPSPEED
deepspeed_config: {deepspeed_config_file: $P/nowhere.json}
"
w ds_stage5.yaml $'distributed_type: DEEPSPEED\ndeepspeed_config: {zero_stage: 5}\n'
# a --precision that the json's blocks contradict
accelerated-seg plan "${SMALL[@]}" --accelerate-config $P/ds_stage_beside.yaml --precision fp16; echo "status $?"
printf 'distributed_type: DEEPSPEED\ndeepspeed_config: {deepspeed_config_file: %s}\n' $P/ds.json > $P/ds_ok.yaml
accelerated-seg plan "${SMALL[@]}" --accelerate-config $P/ds_ok.yaml --precision fp16; echo "status $?"
accelerated-seg plan "${SMALL[@]}" --accelerate-config $P/ds_ok.yaml | head -2; echo "status ${PIPESTATUS[0]}"
# a missing profile; mixed_precision: no unquoted
accelerated-seg plan "${SMALL[@]}" --accelerate-config $P/missing.yaml; echo "status $?"
w no_unquoted.yaml $'distributed_type: MULTI_GPU\nmixed_precision: no\n'
