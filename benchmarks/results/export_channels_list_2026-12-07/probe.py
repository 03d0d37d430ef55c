"""An export whose config.json names its channels as a list (["T1", "FLAIR"], a hand edit; training writes a mapping
{"0": "T1", "1": "FLAIR"}) given to predict, evaluate and fit's init_from, on a 2-channel case.

    .venv/bin/python benchmarks/results/export_channels_list_2026-12-07/probe.py /tmp/probe_dir \
        > benchmarks/results/export_channels_list_2026-12-07/<before|after>.txt 2>&1
"""
import json
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec

root = Path(sys.argv[1])
root.mkdir(parents=True, exist_ok=True)
spec = model_spec("unet", 2, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
for channels in (["T1", "FLAIR"], "T1", {"0": "T1", "1": "FLAIR", "x": "PD"}, {"0": "T1", "5": "FLAIR"}):
    model = root / f"model_{len(str(channels))}"
    write_export(tensors, spec.to_dict(), {"labels": {"0": "background", "1": "one"}, "channels": {"0": "a", "1": "b"},
                                           "in_channels": 2, "num_classes": 2, "patch_size": [16, 16, 16],
                                           "spacing": None}, model)
    config = json.loads((model / "config.json").read_text())
    config["channels"] = channels
    (model / "config.json").write_text(json.dumps(config))
    scans = root / "scans"
    scans.mkdir(exist_ok=True)
    for c in range(2):
        nib.save(nib.Nifti1Image(np.random.rand(16, 16, 16).astype("float32"), np.eye(4)),
                 scans / f"case_{c:04d}.nii.gz")
    print(f"== channels {json.dumps(channels)}")
    for command in (["predict", "--model", str(model), str(scans), "--output", str(root / "out")],):
        done = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", *command], capture_output=True, text=True)
        tail = done.stderr.strip().splitlines()[-1:] if done.stderr.strip() else []
        print(f"{command[0]}: status {done.returncode}; last stderr line: {tail}")
