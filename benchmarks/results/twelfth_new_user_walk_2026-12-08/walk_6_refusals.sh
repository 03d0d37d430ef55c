# bash walk_6_refusals.sh > walk_6_refusals.txt 2>&1
# "What is refused at launch, and why": a profile written by hand for each row this machine can reach (copies of the
# shipped ones with one change, in $T/profiles), through `accelerated-seg plan --accelerate-config` (the page: "refuses
# the profile's own in the same words") and, where the page says training refuses it, a launch: does each message
# name the file or setting and what to do? Then the "Five mistakes [that] stop accelerate launch itself".
source /tmp/wt_h152/benchmarks/results/twelfth_new_user_walk_2026-12-08/env.sh
P=$T/profiles; mkdir -p $P
launch() { accelerate launch "$@" 2>&1 | grep -v "^ *$" | tail -${TAIL:-6}; echo "status ${PIPESTATUS[0]}"; }
plan() { echo "--- plan $1:"; sed -n "/^[a-z]/p" $1 | grep -v "^compute_environment\|^main_training\|^machine_rank" \
    | head -30; accelerated-seg plan --accelerate-config $1 --config configs/demo.yaml 2>&1 | head -${HEAD:-3} \
    | cut -c1-1500; echo "status ${PIPESTATUS[0]}"; }
A=configs/accelerate
sed 's/  fsdp_reshard_after_forward: true/&\n  fsdp_sharding_strategy: SHARD_GRAD_OP/' \
    $A/fsdp2.yaml > $P/fsdp2_shard_grad_op.yaml; plan $P/fsdp2_shard_grad_op.yaml
sed 's/  fsdp_offload_params: false/  fsdp_offload_param: true/' $A/fsdp2.yaml > $P/fsdp2_typo.yaml
plan $P/fsdp2_typo.yaml
sed 's/  offload_optimizer_device: none/  offload_optimizer_devices: cpu/' $A/deepspeed_zero2.yaml > $P/zero2_typo.yaml
plan $P/zero2_typo.yaml
printf 'parallelism_config:\n  parallelism_config_tp_size: 2\n' | cat $A/ddp.yaml - > $P/ddp_tp2.yaml
plan $P/ddp_tp2.yaml
sed "s/^distributed_type: MULTI_GPU/distributed_type: MEGATRON_LM/" $A/ddp.yaml > $P/megatron.yaml
plan $P/megatron.yaml
sed "s/^mixed_precision: bf16/mixed_precision: fp8/" $A/ddp.yaml > $P/fp8.yaml; plan $P/fp8.yaml
printf 'dynamo_backend: INDUCTOR\ndynamo_config:\n  dynamo_backend: INDUCTOR\n  dynamo_mode: max-autotune\n' \
    | cat $A/ddp.yaml - > $P/dynamo_twice.yaml; plan $P/dynamo_twice.yaml
printf '{"zero_optimization": {"stage": 2}, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}}\n' > $P/ds_opt.json
sed '/^deepspeed_config:/,/^main_training/{/^  /d}' $A/deepspeed_zero2.yaml | sed '/^mixed_precision/d' \
    | sed "s|^deepspeed_config:|deepspeed_config:\n  deepspeed_config_file: $P/ds_opt.json|" > $P/zero2_json_opt.yaml
plan $P/zero2_json_opt.yaml
sed "s|ds_opt.json|ds_missing.json|" $P/zero2_json_opt.yaml > $P/zero2_json_missing.yaml
plan $P/zero2_json_missing.yaml
printf 'mixed_precision: bf16\n' | cat $A/cpu.yaml - > $P/cpu_twice.yaml; plan $P/cpu_twice.yaml
# the five that stop accelerate launch itself: DeepSpeed not installed (walk 5), an unknown top-level key, an unquoted
# no, an empty profile, sync_module_states false beside a cpu_ram_efficient_loading left out
printf 'gradient_accumulation_steps: 4\n' | cat $A/ddp.yaml - > $P/ddp_accum.yaml
sed "s/^mixed_precision: 'no'/mixed_precision: no/" $A/cpu.yaml > $P/cpu_unquoted_no.yaml
: > $P/empty.yaml
sed 's/  fsdp_sync_module_states: true/  fsdp_sync_module_states: false/; /fsdp_cpu_ram_efficient_loading/d' \
    $A/fsdp_full_shard.yaml > $P/fsdp1_no_sync.yaml
for f in ddp_accum cpu_unquoted_no empty fsdp1_no_sync; do
  plan $P/$f.yaml
  echo "--- accelerate launch --config_file $P/$f.yaml:"
  ACCELERATE_USE_CPU=true launch --config_file $P/$f.yaml examples/train.py --no-report "${TINY[@]}" \
      --train.output_dir=$T/runs/refused_$f
done
# refusals that need the ranks: the FSDP2 sharding strategy as training says it; MULTI_CPU of 2 processes (warned)
echo "--- launch fsdp2_shard_grad_op.yaml:"
ACCELERATE_USE_CPU=true launch --config_file $P/fsdp2_shard_grad_op.yaml --mixed_precision no examples/train.py \
    --no-report "${TINY[@]}" --train.output_dir=$T/runs/refused_fsdp2_sgo
sed 's/^distributed_type: .NO./distributed_type: MULTI_CPU/; s/^num_processes: 1/num_processes: 2/' $A/cpu.yaml \
    > $P/multi_cpu.yaml; plan $P/multi_cpu.yaml
echo "--- launch multi_cpu.yaml:"
TAIL=12 launch --config_file $P/multi_cpu.yaml examples/train.py --no-report "${TINY[@]}" \
    --train.output_dir=$T/runs/multi_cpu
# the experiment's own: sync_batchnorm on 2 CPU processes; activation checkpointing without blocks
echo "--- sync_batchnorm:"
ACCELERATE_USE_CPU=true launch --config_file $A/ddp.yaml --mixed_precision no examples/train.py --no-report \
    "${TINY[@]}" --train.output_dir=$T/runs/syncbn --train.sync_batchnorm=true \
    "--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1, norm: batch}"
echo "--- activation_checkpointing without blocks:"
launch --config_file $A/cpu.yaml examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/runs/ackpt \
    --train.activation_checkpointing=true "--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 0}"
# a layer class the network lacks (FSDP in effect: the tests' gate lifted)
sed 's/  fsdp_reshard_after_forward: true/&\n  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer/' \
    $A/fsdp2_blocks.yaml > $P/fsdp2_llama.yaml; plan $P/fsdp2_llama.yaml
echo "--- launch fsdp2_llama.yaml (fsdp_on_cpu.py):"
ACCELERATE_USE_CPU=true launch --config_file $P/fsdp2_llama.yaml --mixed_precision no benchmarks/fsdp_on_cpu.py \
    --no-report "${TINY[@]}" --train.output_dir=$T/runs/llama
