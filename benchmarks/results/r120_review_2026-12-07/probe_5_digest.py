# cd /tmp/r120 && PYTHONPATH=/tmp/wt_r120 OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
#   /tmp/wt_r120/benchmarks/results/r120_review_2026-12-07/probe_5_digest.py > probe_5_digest.txt 2>&1
# h137's digest: prediction_settings for each device and --[no-]transforms-on-device; then a map written on a CPU
# with --no-transforms-on-device by the code before h137 (its prediction_settings put back), and --continue after
import shutil
from pathlib import Path

import torch

import accelerated_seg.inference_cases as cases_module
from accelerated_seg.inference import PredictOptions
from accelerated_seg.inference_cases import predict_cases, prediction_settings

for device in ("cpu", "cuda", "cuda:1", "mps", None):
    for on in (True, False):
        options = PredictOptions(4, 0.5, "none", "fp32", None, on)
        print(f"device {device!s:6} transforms_on_device={on!s:5}: "
              f"{prediction_settings(options, [], torch.device(device) if device else None)}")

new = cases_module.prediction_settings


def before_h137(options, keep_largest, device=None):  # 05593be7^'s
    return (f"overlap={options.overlap} tta={options.tta} precision={options.precision} "
            f"transforms_on_device={options.transforms_on_device} keep_largest={sorted(keep_largest)}")


out = Path("/tmp/r120/p5")
shutil.rmtree(out, ignore_errors=True)
scans = sorted(Path("output/demo/synthetic_data/imagesTr").glob("*.nii.gz"))[:2]
cases_module.prediction_settings = before_h137
predict_cases("output/demo/best_model", scans, out, transforms_on_device=False, progress=print)
cases_module.prediction_settings = new
print("== after h137, the same command with --continue (--no-transforms-on-device)")
predict_cases("output/demo/best_model", scans, out, transforms_on_device=False, continue_prediction=True,
              progress=print)
print("== and once more")
predict_cases("output/demo/best_model", scans, out, transforms_on_device=False, continue_prediction=True,
              progress=print)
print("== the default's --continue")
predict_cases("output/demo/best_model", scans, out, continue_prediction=True, progress=print)
