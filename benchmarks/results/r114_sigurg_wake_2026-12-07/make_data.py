"""A random-weight export and 6 scans (as test_inference_distributed's ``data`` fixture) under $1.
Run: PYTHONPATH=<worktree>:<worktree>/tests python make_data.py /tmp/r114/data"""
import shutil
import sys
from pathlib import Path

import torch

from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec

PATCH = [16, 16, 16]
TINY_UNET = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
SIZES_MM = {"small": (40.0, 40.0, 32.0), "medium": (60.0, 56.0, 48.0), "big": (80.0, 72.0, 64.0)}
root = Path(sys.argv[1])
spec = model_spec("unet", 1, 3, PATCH, TINY_UNET)
torch.manual_seed(0)
tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
write_export(tensors, spec.to_dict(), {"labels": {"0": "background", "1": "ventricles", "2": "lesion"},
                                       "in_channels": 1, "num_classes": 3, "patch_size": PATCH,
                                       "spacing": [2.0, 2.0, 2.0]}, root / "model")
(root / "scans").mkdir()
for name, count in (("small", 4), ("medium", 1), ("big", 1)):
    write_synthetic_dataset(root / name, num_cases=count, num_validation=0, seed=1, size_mm=SIZES_MM[name],
                            spacing_mm=2.0)
    for i, path in enumerate(sorted((root / name / "imagesTr").glob("*.nii.gz"))):
        shutil.copy(path, root / "scans" / f"{name}_{i}.nii.gz")
