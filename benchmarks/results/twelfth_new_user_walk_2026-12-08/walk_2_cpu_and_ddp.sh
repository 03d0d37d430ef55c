# bash walk_2_cpu_and_ddp.sh > walk_2_cpu_and_ddp.txt 2>&1
# The page's first command with cpu.yaml, and "DDP without GPUs (gloo; what the tests use)": ddp.yaml under
# ACCELERATE_USE_CPU=true --mixed_precision no, 2 processes; the strategy line each prints ("At start the run prints
# the strategy in effect and records it in run_info.json"; "DDP (MULTI_CPU) on 1 process(es), ..."), the files
# written (a checkpoint's model.safetensors + optimizer.bin and its strategy.json), the export loaded into a plain
# MONAI UNet. Then "one process <-> DDP ... loads, continues not identically: a warning": the cpu run resumed under
# ddp with --train.max_steps=4.
source /tmp/wt_h152/benchmarks/results/twelfth_new_user_walk_2026-12-08/env.sh
set -x
time accelerate launch --config_file configs/accelerate/cpu.yaml examples/train.py --no-report "${TINY[@]}" \
    --train.output_dir=$T/runs/cpu 2>&1 | grep -v "^ *$" | tail -25
echo "status ${PIPESTATUS[0]}"
find $T/runs/cpu -maxdepth 3 | sort
python -c "import json; i = json.load(open('$T/runs/cpu/run_info.json'))
print({k: i[k] for k in i if 'strateg' in k})"
cat $T/runs/cpu/checkpoints/step_2/strategy.json; echo
time ACCELERATE_USE_CPU=true accelerate launch --config_file configs/accelerate/ddp.yaml --mixed_precision no \
    examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/runs/ddp 2>&1 | grep -v "^ *$" | tail -25
echo "status ${PIPESTATUS[0]}"
find $T/runs/ddp -maxdepth 3 | sort
python -c "import json; i = json.load(open('$T/runs/ddp/run_info.json'))
print({k: i[k] for k in i if 'strateg' in k})"
cat $T/runs/ddp/checkpoints/step_2/strategy.json; echo
python $HERE/load_plain.py $T/runs/cpu/model $T/runs/ddp/model
# one process -> DDP: the cpu run resumed under 2 gloo processes
time ACCELERATE_USE_CPU=true accelerate launch --config_file configs/accelerate/ddp.yaml --mixed_precision no \
    examples/train.py --no-report "${TINY[@]}" --train.output_dir=$T/runs/cpu --train.max_steps=4 \
    --train.resume=latest 2>&1 | grep -v "^ *$" | tail -15
echo "status ${PIPESTATUS[0]}"
