cd /tmp/wt
export PYTHONPATH=$PWD OMP_NUM_THREADS=1
TWO="env ACCELERATE_USE_CPU=true .venv/bin/python -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no --main_process_port 29655 -m accelerated_seg.cli"
TINY16=(--model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' --patch 16 --batch 2 --steps 50 --blocks 10)
mkdir -p /tmp/probe_sum
for r in 1 2 3 4 5 6 7 8 9; do  # run as r1-r3, then r4-r9
  for v in 0 1; do
    PROBE_NO_SUM=$v $TWO benchmark train "${TINY16[@]}" --output /tmp/probe_sum/nosum${v}_r$r.json 2>&1 | grep -E "^unet"
  done
done
