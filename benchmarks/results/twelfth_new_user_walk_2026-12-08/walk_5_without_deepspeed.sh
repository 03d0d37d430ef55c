# bash walk_5_without_deepspeed.sh > walk_5_without_deepspeed.txt 2>&1
# DeepSpeed is installed in this venv; a user without it is stood for by without_deepspeed/sitecustomize.py on
# PYTHONPATH (sys.modules["deepspeed"] = None). The page: "Five mistakes stop accelerate launch itself with its
# traceback before our code runs; plan names the last four: DeepSpeed not installed (pip install -e ".[deepspeed]")";
# the table: "needs .[deepspeed]". What launch and plan say.
source /tmp/wt_h152/benchmarks/results/twelfth_new_user_walk_2026-12-08/env.sh
export PYTHONPATH=$HERE/without_deepspeed:$PYTHONPATH
set -x
python -c "import accelerate.utils as u; print('is_deepspeed_available:', u.is_deepspeed_available())"
accelerate launch --config_file configs/accelerate/deepspeed_zero2.yaml --num_processes 1 examples/train.py \
    --no-report "${TINY[@]}" --train.output_dir=$T/runs/no_deepspeed 2>&1 | grep -v "^ *$" | tail -12
echo "status ${PIPESTATUS[0]}"
ls -A $T/runs/no_deepspeed 2>&1
accelerated-seg plan --accelerate-config configs/accelerate/deepspeed_zero2.yaml --config configs/demo.yaml 2>&1 \
    | head -8
echo "status ${PIPESTATUS[0]}"
accelerated-seg --version
