# bash walk_6b_one_process_refusal.sh > walk_6b_one_process_refusal.txt 2>&1
# walk 6's "activation checkpointing without blocks" under cpu.yaml, whose error line its tail cut: a one-process
# launch (accelerate's simple launcher) says the rank's error, then its own CalledProcessError traceback.
source /tmp/wt_h152/benchmarks/results/twelfth_new_user_walk_2026-12-08/env.sh
set -x
accelerate launch --config_file configs/accelerate/cpu.yaml examples/train.py --no-report "${TINY[@]}" \
    --train.output_dir=$T/runs/ackpt2 --train.activation_checkpointing=true \
    "--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 0}" 2>&1 | grep -v "^ *$" | cut -c1-400
echo "status ${PIPESTATUS[0]}"
ls -A $T/runs/ackpt2 2>&1
