# bash walk_1_commands.sh > walk_1_commands.txt 2>&1
# docs/planning.md's opening block, its "Example" and its "How far from a measured peak" commands, as written (each
# timed: "measuring a network takes about a second"), with the page's optional --json; then the JSON's keys.
source /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/env.sh
set -x
time accelerated-seg plan --model unet3d_mlperf --patch 128 128 128 --batch 2 --precision bf16 \
    --gpus 8 --gpu-memory 80 --global-batch 32 --json $T/plan.json; echo "status $?"
python -c "import json,sys; d=json.load(open(sys.argv[1])); print(sorted(d)); print(d['proposals']['ddp']); \
print({k: v for k, v in d['strategies']['ddp'].items() if k != 'bytes'}); print(d['strategies']['ddp']['bytes'])" $T/plan.json
# the page's second and third commands, as written
time accelerated-seg plan --config configs/kits19_mlperf.yaml --gpus 8 --in-channels 1 --classes 3; echo "status $?"
time accelerated-seg plan --config configs/kits19_mlperf.yaml --accelerate-config configs/accelerate/fsdp.yaml \
    --in-channels 1 --classes 3; echo "status $?"
# the second without --in-channels/--classes: KiTS19's cases.csv is not here ("give --in-channels and --classes")
accelerated-seg plan --config configs/kits19_mlperf.yaml --gpus 8; echo "status $?"
# the Example, as its $ line, and its --gpus 1 output, against the committed plan_example_output.txt
accelerated-seg plan --model unet3d_mlperf --patch 128 128 128 --batch 2 --precision bf16 --gpus 8 --gpu-memory 80 \
    --global-batch 32 > $T/example_8.txt; echo "status $?"
accelerated-seg plan --model unet3d_mlperf --patch 128 128 128 --batch 2 --precision bf16 --gpus 1 --gpu-memory 80 \
    --global-batch 32 > $T/example_1.txt; echo "status $?"
diff <(sed -n '/--gpus 1 --gpu-memory/,/^exit/p' benchmarks/results/python_api_planning_rewrite_2026-12-06/plan_example_output.txt \
    | sed '1d;$d') $T/example_1.txt && echo "--gpus 1: same as plan_example_output.txt"
diff <(sed -n '/--gpus 8 --gpu-memory/,/^exit/p' benchmarks/results/python_api_planning_rewrite_2026-12-06/plan_example_output.txt \
    | sed '1d;$d') $T/example_8.txt && echo "--gpus 8: same as plan_example_output.txt"
cat $T/example_8.txt
# "How far from a measured peak": --measure on this CPU-only machine, and the test it names
time accelerated-seg plan --model unet3d_mlperf --patch 128 128 128 --batch 2 --precision bf16 --gpus 1 --measure
echo "status $?"
python -m pytest tests/test_plan.py -k within_15_percent -q -p no:cacheprovider 2>&1 | tail -3
# the files the page names
ls -la benchmarks/results/gpu_h100_session_2026-11-23/plan_mlperf_b{1,2,4}.json
for b in 1 2 4; do python -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['measured_on_one_gpu']; \
print(sys.argv[1].rsplit('/',1)[1], d['batch_per_gpu'], round(c['measured_max_memory_allocated_bytes']/2**30, 2), \
round(c['estimated_allocated_bytes']/2**30, 2), f\"{c['relative_error']:+.1%}\")" \
benchmarks/results/gpu_h100_session_2026-11-23/plan_mlperf_b$b.json; done
