#!/bin/bash
# Probe: what `accelerated-seg plan --accelerate-config` says of the profile mistakes docs/strategies.md's
# "What is refused" lists (and of its "Five mistakes" paragraph: plan names the last four).
# Run from the repository root: bash benchmarks/results/review_strategies_md_2026-12-06/plan_refusals.sh
# Output: plan_refusals.txt beside this file.
set -u
PY=${PY:-/work/main/.venv/bin/python}
OUT=benchmarks/results/review_strategies_md_2026-12-06/plan_refusals.txt
W=$(mktemp -d)
: > $OUT
BASE='compute_environment: LOCAL_MACHINE
num_machines: 1
machine_rank: 0
main_training_function: main'
mk() { printf '%s\n' "$2" > $W/$1; }
mk empty.yaml ''
mk unquoted_no.yaml "$BASE
distributed_type: MULTI_GPU
num_processes: 2
mixed_precision: no"
mk top_level_accumulation.yaml "$BASE
distributed_type: MULTI_GPU
num_processes: 2
mixed_precision: bf16
gradient_accumulation_steps: 4"
mk fsdp_sync_false.yaml "$BASE
distributed_type: FSDP
num_processes: 2
mixed_precision: bf16
fsdp_config:
  fsdp_version: 1
  fsdp_sharding_strategy: FULL_SHARD
  fsdp_sync_module_states: false"
mk fsdp2_no_shard.yaml "$BASE
distributed_type: FSDP
num_processes: 2
mixed_precision: bf16
fsdp_config:
  fsdp_version: 2
  fsdp_sharding_strategy: NO_SHARD
  fsdp_cpu_ram_efficient_loading: false"
mk ds_typo.yaml "$BASE
distributed_type: DEEPSPEED
num_processes: 2
mixed_precision: bf16
deepspeed_config:
  zero_stage: 2
  offload_optimizer_devices: cpu"
mk megatron.yaml "$BASE
distributed_type: MEGATRON_LM
num_processes: 2
mixed_precision: bf16"
mk fp8.yaml "$BASE
distributed_type: MULTI_GPU
num_processes: 2
mixed_precision: fp8"
mk tp.yaml "$BASE
distributed_type: MULTI_GPU
num_processes: 2
mixed_precision: bf16
parallelism_config:
  parallelism_config_tp_size: 2"
mk multi_cpu.yaml "$BASE
distributed_type: MULTI_CPU
num_processes: 2
mixed_precision: 'no'"
echo '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": true}, "optimizer": {"type": "AdamW"}}' > $W/opt.json
mk ds_json_optimizer.yaml "$BASE
distributed_type: DEEPSPEED
num_processes: 2
deepspeed_config:
  deepspeed_config_file: $W/opt.json"
echo '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": true}}' > $W/bf16.json
mk ds_json_bf16.yaml "$BASE
distributed_type: DEEPSPEED
num_processes: 2
deepspeed_config:
  deepspeed_config_file: $W/bf16.json"
mk dynamo_both.yaml "$BASE
distributed_type: MULTI_GPU
num_processes: 2
mixed_precision: bf16
dynamo_backend: 'NO'
dynamo_config:
  dynamo_backend: INDUCTOR"
mk ds_json_missing.yaml "$BASE
distributed_type: DEEPSPEED
num_processes: 2
deepspeed_config:
  deepspeed_config_file: $W/missing.json"
mk fsdp_llama.yaml "$BASE
distributed_type: FSDP
num_processes: 2
mixed_precision: bf16
fsdp_config:
  fsdp_version: 2
  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP
  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer
  fsdp_cpu_ram_efficient_loading: false"
for f in empty unquoted_no top_level_accumulation fsdp_sync_false fsdp2_no_shard ds_typo megatron fp8 tp multi_cpu \
         ds_json_optimizer ds_json_bf16 dynamo_both ds_json_missing fsdp_llama; do
  echo "### $f.yaml" >> $OUT; sed 's/^/    /' $W/$f.yaml >> $OUT
  echo "\$ accelerated-seg plan --model unet --patch 64 64 64 --accelerate-config $f.yaml" >> $OUT
  PYTHONPATH=$PWD timeout 120 $PY -m accelerated_seg plan --model unet --patch 64 64 64 --accelerate-config $W/$f.yaml \
      2>&1 | grep -iE "error|warn|does not model|refus" | head -3 | cut -c1-600 >> $OUT
done
echo "### configs/accelerate/fsdp_full_shard.yaml for dynunet" >> $OUT
PYTHONPATH=$PWD timeout 120 $PY -m accelerated_seg plan --model dynunet --patch 64 64 64 \
    --accelerate-config configs/accelerate/fsdp_full_shard.yaml 2>&1 | grep -iE "error|warn|refus" | head -3 \
    | cut -c1-600 >> $OUT
echo "### ds_json_bf16.yaml with --precision fp16 and fp32" >> $OUT
for p in fp16 fp32; do
  PYTHONPATH=$PWD timeout 120 $PY -m accelerated_seg plan --model unet --patch 64 64 64 --precision $p \
      --accelerate-config $W/ds_json_bf16.yaml 2>&1 | grep -iE "error|warn" | head -3 | cut -c1-600 >> $OUT
done
sed -i "s#$W#<tmp>#g" $OUT
rm -rf $W
