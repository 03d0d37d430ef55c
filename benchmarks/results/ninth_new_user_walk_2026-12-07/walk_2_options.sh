# bash walk_2_options.sh > walk_2_options.txt 2>&1
# docs/performance.md "Run it": the options table and the paragraphs after it. Each refusal the page quotes, made as
# it says it arises (timed: "before torch and MONAI import" for a number or a precision), and the options that
# change the JSON, on a tiny U-Net at 16^3 (--model-args) so that each run takes seconds.
source /tmp/wt_h145/benchmarks/results/ninth_new_user_walk_2026-12-07/env.sh
TINY=(--model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' --patch 16)
set -x
# the refusals the page quotes
time accelerated-seg benchmark train --precision fp16; echo "status $?"
time accelerated-seg benchmark train --batch 0; echo "status $?"
time accelerated-seg benchmark train --model unet9000; echo "status $?"
time accelerated-seg benchmark train --model unet --patch 15; echo "status $?"
accelerated-seg benchmark train --patch 64 64; echo "status $?"
accelerated-seg benchmark train --lever channels_last+fused_adamw fused_adamw+channels_last; echo "status $?"
accelerated-seg benchmark train --patch 32,64; echo "status $?"
accelerated-seg benchmark train --lever none+compile; echo "status $?"
accelerated-seg benchmark train --lever compile+compile_autotune; echo "status $?"
accelerated-seg benchmark train --lever channels_last_norm; echo "status $?"
accelerated-seg benchmark train --lever compile_cudagraphs "${TINY[@]}" --steps 1 --blocks 1; echo "status $?"
accelerated-seg benchmark train --lever compile --warmup-blocks 0; echo "status $?"
accelerated-seg benchmark train --num-workers 1; echo "status $?"
accelerated-seg benchmark train --augment-on gpu; echo "status $?"
# --output the page says is refused before anything is measured
mkdir -p $WALK/out_dir
accelerated-seg benchmark train "${TINY[@]}" --output $WALK/out_dir; echo "status $?"
accelerated-seg benchmark train "${TINY[@]}" --output $WALK/out_dir/; echo "status $?"
accelerated-seg benchmark train "${TINY[@]}" --output /proc/train.json; echo "status $?"
echo '{"benchmark": "plan", "x": 1}' > $WALK/other.json
accelerated-seg benchmark train "${TINY[@]}" --output $WALK/other.json; echo "status $?"
cp benchmarks/results/infer_2cpu.json $WALK/infer_result.json
accelerated-seg benchmark train "${TINY[@]}" --output $WALK/infer_result.json; echo "status $?"
# the options that change the row: --peak-tflops (MFU on a CPU), --price-per-gpu-hour and --epoch-samples (costs),
# --classes, --ddp-bucket-mb, two levers, the default --output's name twice (train_2cpu_1proc.json, then _2)
time accelerated-seg benchmark train "${TINY[@]}" --batch 2 --steps 2 --blocks 2 --lever none fused_adamw sgd \
    --peak-tflops 1.5 --price-per-gpu-hour 2.5 --epoch-samples 100 --classes 2 --ddp-bucket-mb 10; echo "status $?"
time accelerated-seg benchmark train "${TINY[@]}" --batch 2 --steps 2 --blocks 2; echo "status $?"
ls -la benchmarks/results/ | grep '^.*train_'
# --data real with a worker, then the same with --augment-on gpu on this CPU
time accelerated-seg benchmark train "${TINY[@]}" --batch 2 --steps 2 --blocks 2 --data real --num-workers 1 \
    --output $WALK/real.json; echo "status $?"
time accelerated-seg benchmark train "${TINY[@]}" --batch 2 --steps 2 --blocks 2 --data real --num-workers 1 \
    --augment-on gpu --output $WALK/real_gpu.json; echo "status $?"
# --help gives every default, the page says
accelerated-seg benchmark train --help
