"""Run as: PYTHONPATH=<code> python rounding_probe.py <empty folder> > rounding_<main|after>.txt
Two channels an export tool's rounding apart (0.01 mm): the advice training's check gives, for a dataset.json naming
them T1, FLAIR."""
import json
import sys
from pathlib import Path
import nibabel as nib
import numpy as np
from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.manifest import load_cases
root = Path(sys.argv[1])
rng = np.random.default_rng(0)
A = np.diag([2.5, 2.5, 2.5, 1.0])
B = A.copy()
B[0, 3] = 0.01
paths = []
for i, aff in enumerate((A, B)):
    nib.save(nib.Nifti1Image(rng.uniform(1, 9, (16, 16, 16)).astype(np.float32), aff), root / f"c_{i:04d}.nii.gz")
    paths.append(str(root / f"c_{i:04d}.nii.gz"))
lab = np.zeros((16, 16, 16), np.uint8)
lab[4:12, 4:12, 4:12] = 1
nib.save(nib.Nifti1Image(lab, A), root / "c.nii.gz")
(root / "dataset.json").write_text(json.dumps({
    "name": "n", "modality": {"0": "T1", "1": "FLAIR"}, "labels": {"0": "background", "1": "lesion"},
    "training": [{"image": paths, "label": str(root / "c.nii.gz")}]}))
errors = check_manifest(load_cases(root / "dataset.json", validation_fraction=0.0)).errors
print("\n".join(errors).replace(str(root), "<root>"))
