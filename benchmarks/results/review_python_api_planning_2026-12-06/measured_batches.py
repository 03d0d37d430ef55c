"""Which batches the CPU run's memory check and plan's measure_model measure a step at (planning.md said of the
CPU check "It measures at the run's batch and the next (smallest_batch ...)").

cd /tmp/wt_r87 && PYTHONPATH=/tmp/wt_r87 /work/main/.venv/bin/python \
    benchmarks/results/review_python_api_planning_2026-12-06/measured_batches.py > \
    benchmarks/results/review_python_api_planning_2026-12-06/measured_batches.txt 2>&1
"""
from accelerated_seg import plan

seen = []
measure_step = plan.measure_step


def recording(model, in_channels, batch, *args, **kwargs):
    seen.append(batch)
    return measure_step(model, in_channels, batch, *args, **kwargs)


plan.measure_step = recording
plan.measure_peak("unet", (32, 32, 32), "fp32", 1, 3, None, 2)
print(f"measure_peak(..., batch=2) (the CPU run's check, cpu_step_fit.py): steps measured at batch {seen}")
seen.clear()
plan.measure_model("unet", (32, 32, 32), "fp32")
print(f"measure_model(...) (default smallest_batch=1): steps measured at batch {seen}")
seen.clear()
plan.measure_model("unet", (32, 32, 32), "fp32", smallest_batch=8)
print(f"measure_model(..., smallest_batch=8) (plan --batch 8): steps measured at batch {seen}")
