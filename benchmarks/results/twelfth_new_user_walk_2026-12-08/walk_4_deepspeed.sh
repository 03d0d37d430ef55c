# bash walk_4_deepspeed.sh > walk_4_deepspeed.txt 2>&1
# "DeepSpeed needs no GPU": deepspeed_zero3.yaml on 2 CPU processes without ACCELERATE_USE_CPU, fp32 (the page's
# Status: "2 processes fp32 equal one"): the strategy line ("..., ZeRO-3"), the note of what the experiment config
# decides, the capped bucket sizes "printed at start", the checkpoint's per-rank partitions, `accelerated-seg export`
# of it (gathering ZeRO's shards "in one CPU process") equal to the run's export, both into plain MONAI. One process
# bf16 ZeRO-2 as the profile stands. Then the refusals: DeepSpeed under ACCELERATE_USE_CPU=true (the table's first
# row), train.channels_last under DeepSpeed, and "Changing strategy between runs": the DDP run of walk 2 resumed under
# ZeRO-3 (refused, naming both layouts), and the way the page gives (export, then --train.init_from).
source /tmp/wt_h152/benchmarks/results/twelfth_new_user_walk_2026-12-08/env.sh
set -x
launch() { accelerate launch "$@" 2>&1 | grep -v "^ *$" | tail -${TAIL:-12}; echo "status ${PIPESTATUS[0]}"; }
TAIL=30 launch --config_file configs/accelerate/deepspeed_zero3.yaml --mixed_precision no examples/train.py \
    --no-report "${TINY[@]}" --train.output_dir=$T/runs/zero3
python -c "import json; i = json.load(open('$T/runs/zero3/run_info.json'))
print({k: i[k] for k in i if 'strateg' in k})"
find $T/runs/zero3/checkpoints -maxdepth 4 | sort
cat $T/runs/zero3/checkpoints/step_2/strategy.json; echo
accelerated-seg export $T/runs/zero3/checkpoints/step_2 --output $T/exports/zero3_step_2
echo "status $?"
python $HERE/load_plain.py $T/runs/zero3/model $T/exports/zero3_step_2
cmp $T/runs/zero3/model/model.safetensors $T/exports/zero3_step_2/model.safetensors && echo "export identical"
TAIL=15 launch --config_file configs/accelerate/deepspeed_zero2.yaml --num_processes 1 examples/train.py \
    --no-report "${TINY[@]}" --train.output_dir=$T/runs/zero2_bf16
python $HERE/load_plain.py $T/runs/zero2_bf16/model
ACCELERATE_USE_CPU=true launch --config_file configs/accelerate/deepspeed_zero2.yaml --mixed_precision no \
    examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/runs/zero2_use_cpu
ls -A $T/runs/zero2_use_cpu 2>&1
launch --config_file configs/accelerate/deepspeed_zero2.yaml --mixed_precision no --num_processes 1 \
    examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/runs/zero2_channels_last \
    --train.channels_last=true
ls -A $T/runs/zero2_channels_last 2>&1
# DDP -> ZeRO-3: refused, naming both layouts; then the page's way: export, init_from
launch --config_file configs/accelerate/deepspeed_zero3.yaml --mixed_precision no examples/train.py --no-report \
    "${TINY[@]}" --train.output_dir=$T/runs/ddp --train.max_steps=4 --train.resume=latest
accelerated-seg export $T/runs/ddp/checkpoints/step_2 --output $T/exports/ddp_step_2
echo "status $?"
TAIL=8 launch --config_file configs/accelerate/deepspeed_zero3.yaml --mixed_precision no examples/train.py \
    --no-report "${TINY[@]}" --train.output_dir=$T/runs/zero3_from_ddp --train.init_from=$T/exports/ddp_step_2
