# bash walk_6_cpu_run.sh > walk_6_cpu_run.txt 2>&1
# docs/planning.md, "Before a CPU run: the step must fit in the machine's memory": the page's own refusal (the demo
# config at data.patch_size [400, 400, 400], batch 2), what the run folder holds after it ("refuses the run before
# writing any of its files (the demo's phantoms ... stay)"), the estimator's words, benchmark train's, a SLURM-like
# cgroup is not available here (read only: host_memory.py); and plan_cpu_peak.py scaled down with its --one.
source /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/env.sh
ulimit -v 16000000  # 16 GB of address space per process: a step the check let through fails, not the OOM killer
set -x
grep MemAvailable /proc/meminfo
cd $T && mkdir -p cpu_run && cd cpu_run
time accelerated-seg train --config $WALK/clone/configs/demo.yaml --data.patch_size='[400,400,400]' \
    --train.output_dir=$T/cpu_run/runs/demo --data.synthetic.num_cases=6 --data.synthetic.num_validation=2
echo "status $?"
find $T/cpu_run -maxdepth 3 | head -20
# two training processes on this machine: "times the training processes": 320^3 at batch 2 is about half of 400^3's
# peak each (not run in one process: it would pass the bound and start training, 13 GiB a step)
time ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1 accelerate launch --config_file $WALK/clone/configs/accelerate/ddp.yaml \
    --mixed_precision no $WALK/clone/examples/train.py --config $WALK/clone/configs/demo.yaml \
    --data.patch_size='[320,320,320]' --train.output_dir=$T/cpu_run/runs/two \
    --data.synthetic.num_cases=6 --data.synthetic.num_validation=2 2>&1 | grep -v "^ *$" | tail -15
echo "status ${PIPESTATUS[0]}"
cd $WALK/clone
# the estimator's words
timeout 300 python - <<PY
from accelerated_seg import Dataset, Segmentation
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import ensure_synthetic_dataset
if __name__ == "__main__":
    phantoms = load_msd(ensure_synthetic_dataset("$T/cpu_run/data", num_cases=6, num_validation=2))
    pairs = [(str(case.images[0]), str(case.label)) for case in phantoms.training]
    data = Dataset.from_files(pairs, block_shape=400, n_classes=3).batch(2)
    try:
        Segmentation("unet", output_dir="$T/cpu_run/estimator").fit(data, steps=1)
    except Exception as error:
        print(type(error).__name__, error)
PY
ls -A $T/cpu_run/estimator 2>&1
# benchmark train: "for the largest --batch of each --model, --patch and --precision, before it measures"
time accelerated-seg benchmark train --model unet --patch 400 --batch 1 2 --precision fp32 --output $T/bt.json
echo "status $?"
# plan_cpu_peak.py: --help, then one of its cases scaled down (its --one, 64^3 fp32 and bf16; the page's run
# writes over the committed benchmarks/results/plan_cpu_peak_2cpu.json, not run here)
python benchmarks/plan_cpu_peak.py --help | head -5
time python benchmarks/plan_cpu_peak.py --one 64 fp32
time python benchmarks/plan_cpu_peak.py --one 64 bf16
# benchmarks/results/cpu_run_peak_session_2026-11-30i/: what the page quotes (2.14x at 96^3, 1.53x at 160^3)
cat benchmarks/results/cpu_run_peak_session_2026-11-30i/run.sh | head -20
python -c "import json; d=json.load(open('benchmarks/results/cpu_run_peak_session_2026-11-30i/result.json')); print(json.dumps(d)[:1500])"
python -c "import json; d=json.load(open('benchmarks/results/plan_cpu_peak_2cpu.json')); print(d['cases'])"
