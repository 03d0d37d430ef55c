# bash walk_2b_options_and_stop.sh > walk_2b_options_and_stop.txt 2>&1
# The options walk_2's combined run could not show (it gave --ddp-bucket-mb to one process, refused), and "A stopped
# run": a sweep stopped by Ctrl-C after its first configuration, then the same command again.
source /tmp/wt_h145/benchmarks/results/ninth_new_user_walk_2026-12-07/env.sh
TINY=(--model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' --patch 16)
set -x
time accelerated-seg benchmark train "${TINY[@]}" --batch 2 --steps 2 --blocks 2 --lever none fused_adamw sgd \
    --peak-tflops 1.5 --price-per-gpu-hour 2.5 --epoch-samples 100 --classes 2 --output $WALK/options.json
echo "status $?"
time ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1 accelerate launch --multi_gpu --num_processes 2 --num_machines 1 \
    --mixed_precision no --dynamo_backend no --main_process_port 29745 -m accelerated_seg.cli benchmark train \
    "${TINY[@]}" --steps 2 --blocks 2 --ddp-bucket-mb 10 --lever none ddp_static_graph --output $WALK/ddp_options.json
echo "status $?"
# a stopped run: SIGINT (as Ctrl-C) to the command once its first row is printed, then the same command again
set -m
accelerated-seg benchmark train "${TINY[@]}" --batch 1 2 3 --steps 2 --blocks 2 --output $WALK/stopped.json \
    > $WALK/stopped_1.log 2>&1 &
PID=$!
{ set +x; } 2>/dev/null; for i in $(seq 1 240); do grep -q '^\[1/3\]' $WALK/stopped_1.log && break; sleep 0.5; done
set -x; kill -INT $PID; wait $PID; echo "status $?"
cat $WALK/stopped_1.log | cut -c1-300
ls $WALK | grep stopped
python -c "import json; d = json.load(open('$WALK/stopped.partial.json')); print(d['complete'], len(d['runs']), sorted(d))"
time accelerated-seg benchmark train "${TINY[@]}" --batch 1 2 3 --steps 2 --blocks 2 --output $WALK/stopped.json
echo "status $?"
ls $WALK | grep stopped
python -c "import json; d = json.load(open('$WALK/stopped.json')); print(d['complete'], len(d['runs']), d.get('resumed_from'))"
# the same command with other settings finds the partial file of a stopped run: stopped again, then changed --steps
accelerated-seg benchmark train "${TINY[@]}" --batch 1 2 3 --steps 2 --blocks 2 --output $WALK/stopped2.json \
    > $WALK/stopped_2.log 2>&1 &
PID=$!
{ set +x; } 2>/dev/null; for i in $(seq 1 240); do grep -q '^\[1/3\]' $WALK/stopped_2.log && break; sleep 0.5; done
set -x; kill -INT $PID; wait $PID; echo "status $?"
accelerated-seg benchmark train "${TINY[@]}" --batch 1 2 3 --steps 3 --blocks 2 --output $WALK/stopped2.json
echo "status $?"
