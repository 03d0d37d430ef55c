# bash walk_8_after.sh > walk_8_after.txt 2>&1
# The refusals of walks 3, 4 and 6 again with this branch's fixes (the package from the worktree /tmp/wt_h152, not the
# walk's clone of main): each now names the profile the launch read; channels-last names an FSDP1 profile.
source /tmp/wt_h152/benchmarks/results/twelfth_new_user_walk_2026-12-08/env.sh
export PYTHONPATH=/tmp/wt_h152
cd /tmp/wt_h152
said() { accelerate launch "$@" 2>&1 | grep -m1 "^error: "; echo "status ${PIPESTATUS[0]}"; }
set -x
ACCELERATE_USE_CPU=true said --config_file configs/accelerate/fsdp.yaml --mixed_precision no examples/train.py \
    --no-report "${TINY[@]}" --train.output_dir=$T/after/fsdp
ACCELERATE_USE_CPU=true said --config_file configs/accelerate/fsdp_full_shard.yaml --mixed_precision no \
    examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/after/fsdp1 --train.allow_strategy_fallback=true
said --config_file configs/accelerate/fsdp.yaml --mixed_precision no examples/train.py --no-report "${TINY[@]}" \
    --train.output_dir=$T/after/unjoined
ACCELERATE_USE_CPU=true said --config_file $T/profiles/fsdp2_shard_grad_op.yaml --mixed_precision no \
    examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/after/fsdp2_sgo
said --config_file configs/accelerate/deepspeed_zero2.yaml --mixed_precision no --num_processes 1 examples/train.py \
    --no-report "${TINY[@]}" --train.output_dir=$T/after/channels_last --train.channels_last=true
ls -A $T/after 2>&1
