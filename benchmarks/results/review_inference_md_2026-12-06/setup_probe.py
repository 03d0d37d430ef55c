"""Run: PYTHONPATH=/tmp/wt_r82 python setup_probe.py /tmp/r82probe
A tiny export (random-weight U-Net, patch 16^3, spacing 2.5 mm, 3 classes, as tests/test_inference.py's
``export``) and three synthetic phantoms, for the probes beside this file."""
import shutil
import sys
from pathlib import Path

import torch

from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
write_synthetic_dataset(root / "data", num_cases=3, num_validation=3, size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
spec = model_spec("unet", 1, 3, [16, 16, 16], {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1})
torch.manual_seed(0)
tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
meta = {"labels": {"0": "background", "1": "ventricles", "2": "lesion"}, "channels": {"0": "MRI0"},
        "in_channels": 1, "num_classes": 3, "patch_size": [16, 16, 16], "spacing": [2.5, 2.5, 2.5]}
write_export(tensors, spec.to_dict(), meta, root / "model")
print(sorted(p.name for p in (root / "data" / "imagesTr").iterdir()))
