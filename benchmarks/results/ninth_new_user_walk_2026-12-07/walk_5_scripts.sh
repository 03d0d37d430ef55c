# bash walk_5_scripts.sh > walk_5_scripts.txt 2>&1   (after walk_1: it reads $WALK/gloo.json and walk 1's 1-process file)
# docs/performance.md's scripts under benchmarks/: the levers' two commands (scaled down), scaling_projection.py
# on the walk's own 1- and 2-process files, the harness check, a SMOKE=1 part of gpu_session.sh, the record
# scripts' refusal of a folder holding their results (the page: "never write over a result"), and --help of each
# Python script the page names.
source /tmp/wt_h145/benchmarks/results/ninth_new_user_walk_2026-12-07/env.sh
TINY=(--model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' --patch 16)
set -x
# "Levers": the page's two commands; the first on the tiny U-Net at 16^3 (compile's cold warm-up at 64^3 is 89 s
# on a core), the second as written but for --steps 2 --blocks 2
time OMP_NUM_THREADS=1 accelerated-seg benchmark train "${TINY[@]}" --batch 2 \
    --lever none channels_last fused_adamw compile --steps 2 --blocks 2 --output $WALK/levers.json; echo "status $?"
# (the second, --data real, ran on the tiny U-Net in walk_2: the host's load was 8-17 by then, so not at 64^3 here)
# "Scaling projection": the walk's 1-process run (walk 1, OMP threads as given) against its 2-process gloo run
ONE=$(ls -t benchmarks/results/train_2cpu_1proc*.json | tail -1)
python benchmarks/scaling_projection.py --one $ONE --measured $WALK/gloo.json --output $WALK/scaling.json; echo "status $?"
python -c "import json; d = json.load(open('$WALK/scaling.json')); print(sorted(d)); print(d['measured_scaling']['ours'])"
# "One run's ratio is good to about +-4%": two identical plain loops in the same harness
time python benchmarks/harness_checks.py same benchmark train "${TINY[@]}" --steps 2 --blocks 2 \
    --output $WALK/harness_same.json; echo "status $?"
# gpu_session.sh: its usage (SMOKE=1's parts were not run: the host's load was 8-17)
bash benchmarks/gpu_session.sh; echo "status $?"
# the record scripts refuse a folder holding their results (their default folders hold the committed ones)
bash benchmarks/record_train_cpu.sh; echo "status $?"
bash benchmarks/record_levers_cpu.sh; echo "status $?"
bash benchmarks/cpu_contention_control.sh; echo "status $?"
SESSION=2026-11-24p bash benchmarks/cpu_session.sh; echo "status $?"
for s in scaling_projection cpu_history harness_checks inside_blocks cpu_bf16_emulation cpu_bf16_two_voxels \
    deepspeed_without_accelerate fsdp_on_cpu verify_strategies verify_zero3_leaf_blocks fixed_step_cost; do
  python benchmarks/$s.py --help > /dev/null; echo "$s --help: status $?"
done
