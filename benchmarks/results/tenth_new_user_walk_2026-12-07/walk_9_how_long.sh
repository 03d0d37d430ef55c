# bash walk_9_how_long.sh > walk_9_how_long.txt 2>&1
# "How long": planning.md says nothing of time; a researcher planning a run measures it with `benchmark train`
# (docs/performance.md, "Run it"), which the page now names. Scaled down: the demo U-Net (configs/demo.yaml's
# model.args) at its 48^3 patch, batch 2, fp32, 2 steps x 2 blocks, an epoch of 96 samples (24 cases x 4 patches).
source /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/env.sh
set -x
uptime
time accelerated-seg benchmark train --model unet \
    --model-args '{"channels": [16, 32, 64, 128], "strides": [2, 2, 2], "num_res_units": 1}' --patch 48 --batch 2 \
    --precision fp32 --steps 2 --blocks 2 --epoch-samples 96 --output $T/how_long.json; echo "status $?"
python -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print({k: r['ours'][k] for k in ('samples_per_s', 'epoch_s')})" $T/how_long.json
