# bash walk_3_fsdp.sh > walk_3_fsdp.txt 2>&1
# "FSDP needs GPUs": fsdp.yaml on 2 CPU processes under ACCELERATE_USE_CPU=true (refused: "... which accelerate
# enables only on GPUs, so it is NOT in effect ..."), then with --train.allow_strategy_fallback=true (runs gloo DDP
# with the warning, recorded); without ACCELERATE_USE_CPU ("several processes are refused as not joined"); an FSDP1
# profile (fsdp_full_shard.yaml) without a GPU, with the fallback allowed too ("refused, the fallback allowed or
# not"); the way out its error names, fsdp.yaml with --num_processes 1 and the fallback allowed ("one process, not
# FSDP"). Then benchmarks/fsdp_on_cpu.py (the page: it lifts the gate for the tests), the FSDP2 run really sharded
# over 2 processes: its checkpoint's files (__0_0.distcp, __1_0.distcp), `accelerated-seg export` of it, and both
# exports into a plain MONAI network.
source /tmp/wt_h152/benchmarks/results/twelfth_new_user_walk_2026-12-08/env.sh
set -x
launch() { accelerate launch "$@" 2>&1 | grep -v "^ *$" | tail -${TAIL:-12}; echo "status ${PIPESTATUS[0]}"; }
ACCELERATE_USE_CPU=true launch --config_file configs/accelerate/fsdp.yaml --mixed_precision no examples/train.py \
    --no-report "${TINY[@]}" --train.output_dir=$T/runs/fsdp_refused
ls -A $T/runs/fsdp_refused 2>&1
TAIL=20 ACCELERATE_USE_CPU=true launch --config_file configs/accelerate/fsdp.yaml --mixed_precision no \
    examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/runs/fsdp_fallback \
    --train.allow_strategy_fallback=true
python -c "import json; i = json.load(open('$T/runs/fsdp_fallback/run_info.json'))
print({k: i[k] for k in i if 'strateg' in k})"
cat $T/runs/fsdp_fallback/checkpoints/step_2/strategy.json; echo
launch --config_file configs/accelerate/fsdp.yaml --mixed_precision no examples/train.py --no-report "${TINY[@]}" \
    --train.output_dir=$T/runs/fsdp_unjoined
ls -A $T/runs/fsdp_unjoined 2>&1
ACCELERATE_USE_CPU=true launch --config_file configs/accelerate/fsdp_full_shard.yaml --mixed_precision no \
    examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/runs/fsdp1 --train.allow_strategy_fallback=true
ls -A $T/runs/fsdp1 2>&1
launch --config_file configs/accelerate/fsdp_full_shard.yaml --mixed_precision no \
    examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/runs/fsdp1_no_env \
    --train.allow_strategy_fallback=true
TAIL=8 launch --config_file configs/accelerate/fsdp.yaml --num_processes 1 --mixed_precision no examples/train.py \
    --no-report "${TINY[@]}" --train.output_dir=$T/runs/fsdp_one --train.allow_strategy_fallback=true
TAIL=8 ACCELERATE_USE_CPU=true launch --config_file configs/accelerate/fsdp.yaml --num_processes 1 \
    --mixed_precision no examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/runs/fsdp_one_cpu \
    --train.allow_strategy_fallback=true
# FSDP2 really sharded on the CPU, as the page's Status says the tests run it
TAIL=15 ACCELERATE_USE_CPU=true launch --config_file configs/accelerate/fsdp2.yaml --num_processes 2 \
    --mixed_precision no benchmarks/fsdp_on_cpu.py --no-report "${TINY[@]}" --train.output_dir=$T/runs/fsdp2_sharded
find $T/runs/fsdp2_sharded/checkpoints -maxdepth 3 | sort
cat $T/runs/fsdp2_sharded/checkpoints/step_2/strategy.json; echo
accelerated-seg export $T/runs/fsdp2_sharded/checkpoints/step_2 --output $T/exports/fsdp2_step_2
echo "status $?"
python $HERE/load_plain.py $T/runs/fsdp2_sharded/model $T/exports/fsdp2_step_2
cmp $T/runs/fsdp2_sharded/model/model.safetensors $T/exports/fsdp2_step_2/model.safetensors && echo "export identical"
