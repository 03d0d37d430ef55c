"""Run: PYTHONPATH=/tmp/wt_r82 python evaluate_edges.py /tmp/r82eval
docs/inference.md, Evaluate: what a few of its refusals say (a map with NaN voxels; x.nii beside x.nii.gz; a folder
after --tolerance; a prediction stored as floats; a probs map among the predictions)."""
import shutil
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
labels, preds = root / "labels", root / "preds"
labels.mkdir(parents=True)
preds.mkdir()
volume = np.zeros((10, 10, 8), np.int16)
volume[3:6, 3:6, 2:5] = 1
for case in ("a", "b"):
    nib.save(nib.Nifti1Image(volume, np.eye(4)), labels / f"{case}.nii.gz")
    nib.save(nib.Nifti1Image(volume, np.eye(4)), preds / f"{case}.nii.gz")


def evaluate(*args, note=""):
    run = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", "evaluate", *map(str, args)],
                         capture_output=True, text=True, cwd=root)
    print(f"$ evaluate {' '.join(map(str, args))}   # {note}\nexit {run.returncode}\n"
          f"{(run.stdout + run.stderr).strip()[-700:]}\n")


evaluate("preds", "labels", "--output", "ev0", note="all well")
probs = np.stack([1.0 - volume, volume], axis=-1).astype(np.float32)
nib.save(nib.Nifti1Image(probs, np.eye(4)), preds / "a_probs.nii.gz")
evaluate("preds", "labels", "--output", "ev1", note="predict's a_probs beside a.nii.gz")
evaluate("--tolerance", "1", "preds", "labels", note="a folder after --tolerance")
nan = volume.astype(np.float32)
nan[0, 0, 0] = np.nan
nib.save(nib.Nifti1Image(nan, np.eye(4)), preds / "b.nii.gz")
evaluate("preds", "labels", "--output", "ev2", note="b.nii.gz: whole numbers but one NaN")
nib.save(nib.Nifti1Image(volume, np.eye(4)), preds / "b.nii.gz")
nib.save(nib.Nifti1Image(volume, np.eye(4)), preds / "b.nii")
evaluate("preds", "labels", "--output", "ev3", note="b.nii beside b.nii.gz")
