# bash walk_1_profiles.sh > walk_1_profiles.txt 2>&1
# "Which profile": every profile the page's table names exists; `accelerated-seg plan --accelerate-config PROFILE`
# ("Check a profile you wrote with ... before any launch") on each shipped one: its first lines (what plan read:
# strategy, processes, precision) and its row marked; the page's claims of the profiles (FSDP1's
# fsdp_sync_module_states: true and fsdp_use_orig_params: true; fsdp.yaml = fsdp2.yaml; the DeepSpeed ones name no
# json; every shipped profile but cpu.yaml sets bf16) read from the files.
source /tmp/wt_h152/benchmarks/results/twelfth_new_user_walk_2026-12-08/env.sh
for p in cpu single_gpu ddp fsdp_no_shard fsdp_shard_grad_op fsdp_full_shard fsdp2 fsdp fsdp2_blocks fsdp_hybrid \
         deepspeed_zero1 deepspeed_zero2 deepspeed_zero3 deepspeed_zero3_offload multi_node; do
  f=configs/accelerate/$p.yaml
  [ -f $f ] && echo "exists: $f" || echo "MISSING: $f"
done
ls configs/accelerate/
echo "--- fsdp.yaml vs fsdp2.yaml:"; diff configs/accelerate/fsdp.yaml configs/accelerate/fsdp2.yaml && echo identical
echo "--- mixed_precision of each:"; grep -H "^mixed_precision" configs/accelerate/*.yaml
echo "--- FSDP1 sync/orig params:"; grep -H -E "fsdp_version: 1|fsdp_sync_module_states|fsdp_use_orig_params" \
  configs/accelerate/fsdp_*.yaml
echo "--- deepspeed json named?"; grep -H -E "deepspeed_config_file" configs/accelerate/*.yaml || echo none names one
echo "--- lines over 120 characters:"; awk 'length > 120 {print FILENAME": "length}' configs/accelerate/*.yaml
for p in cpu single_gpu ddp fsdp_no_shard fsdp_shard_grad_op fsdp_full_shard fsdp2 fsdp2_blocks fsdp_hybrid \
         deepspeed_zero1 deepspeed_zero2 deepspeed_zero3 deepspeed_zero3_offload multi_node; do
  echo "=== plan --accelerate-config configs/accelerate/$p.yaml --config configs/demo.yaml"
  accelerated-seg plan --accelerate-config configs/accelerate/$p.yaml --config configs/demo.yaml 2>&1 \
    | grep -v "^ *$" | head -30
  echo "status ${PIPESTATUS[0]}"
done
