"""How far above the memory refusal's figure one prediction's host memory peaks (hundred-and-seventh session).

predict refuses a scan whose resampled volume alone, in float32, exceeds the host's available memory
(inference._refuse_beyond_host_memory). Whether swap should count with it depends on how much more than that
figure a prediction holds at once, and for how long: this predicts one upsampled scan on the CPU in this process
and prints the figure the refusal counts, the rise of the process's peak resident memory (ru_maxrss) over a
warm-up case's, the seconds of each stage, and the host's MemAvailable, SwapTotal and SwapFree.

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/results/predict_memory_refusal_swap_2026-12-05/\
peak_beside_refusal.py /tmp/probe_dir
"""

import resource
import sys
import time
from pathlib import Path

import nibabel as nib
import numpy as np
import torch

from accelerated_seg.exported_model import write_export
from accelerated_seg.inference import PredictOptions, case_prediction, prepare_case, write_case
from accelerated_seg.models import build_from_spec, model_spec

root = Path(sys.argv[1])
root.mkdir(parents=True, exist_ok=True)
PATCH, SPACING = [48, 48, 48], (0.8, 0.8, 0.8)


def scan(path: Path, shape) -> Path:
    """A scan of 2 mm voxels, declared mm, a bright ball in noise."""
    grid = np.indices(shape).astype(np.float32)
    centre = (np.array(shape, dtype=np.float32) / 2).reshape(3, 1, 1, 1)
    ball = (np.sqrt(((grid - centre) ** 2).sum(0)) < min(shape) / 4).astype(np.float32)
    image = nib.Nifti1Image(ball * 100 + np.random.default_rng(0).normal(0, 5, shape).astype(np.float32),
                            np.diag([2.0, 2.0, 2.0, 1.0]))
    image.header.set_xyzt_units("mm")
    nib.save(image, path)
    return path


spec = model_spec("unet", 1, 3, PATCH, {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1})
torch.manual_seed(0)
tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
config = {"labels": {"0": "background", "1": "a", "2": "b"}, "channels": {"0": "MRI"}, "in_channels": 1,
          "num_classes": 3, "patch_size": PATCH, "spacing": list(SPACING), "spacing_unit": "mm"}
write_export(tensors, spec.to_dict(), config, root / "model")
model = build_from_spec(spec)
model.load_state_dict(tensors)
model.eval()


def predict(path: Path) -> dict:
    seconds = {}
    start = time.perf_counter()
    prepared = prepare_case(config, [path])
    seconds["prepare"] = time.perf_counter() - start
    start = time.perf_counter()
    probabilities = case_prediction(model, config, prepared, device="cpu", options=PredictOptions(overlap=0.25))
    seconds["network"] = time.perf_counter() - start
    start = time.perf_counter()
    write_case(prepared, probabilities, root / f"{path.name.split('.')[0]}_seg.nii.gz")
    seconds["restore_and_write"] = time.perf_counter() - start
    return seconds


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


predict(scan(root / "warm.nii.gz", (24, 24, 20)))
before = peak_mib()
shape = (96, 96, 80)
seconds = predict(scan(root / "big.nii.gz", shape))
rise = peak_mib() - before
resampled = [int(np.round((n - 1) * 2.0 / s + 1)) for n, s in zip(shape, SPACING)]
counted = 4 * float(np.prod(resampled)) / 2**20  # what _refuse_beyond_host_memory counts: float32, one channel
meminfo = {line.split(":")[0]: int(line.split()[1]) / 2**20 for line in open("/proc/meminfo")}
print(f"scan {shape} of 2 mm -> {SPACING[0]} mm: resampled {tuple(resampled)}, 3 classes, patch {PATCH}, "
      f"overlap 0.25, torch threads {torch.get_num_threads()}")
print(f"refusal counts {counted:.1f} MiB; peak resident memory rose {rise:.1f} MiB over the warm-up's "
      f"({rise / counted:.1f} times the refusal's figure)")
print("seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in seconds.items()))
print(f"host: MemAvailable {meminfo['MemAvailable']:.1f} GiB, SwapTotal {meminfo['SwapTotal']:.1f} GiB, "
      f"SwapFree {meminfo['SwapFree']:.1f} GiB")
