"""Run: PYTHONPATH=/tmp/wt_r82 python reruns.py /tmp/r82probe   (after setup_probe.py /tmp/r82probe)
docs/inference.md, "What is written" and "Going on after a stop": a rerun without --probabilities deletes the
_probs beside a map it replaces; a case the rerun fails on has an earlier run's files deleted, said in its line;
--continue passes over the cases written with the same model and options (its line), and predicts again a case
written with other options (--tta axes); the run with a failed case ends with status 2."""
import shutil
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

root = Path(sys.argv[1])
scans, out = root / "rerun_scans", root / "rerun_out"
for folder in (scans, out):
    shutil.rmtree(folder, ignore_errors=True)
scans.mkdir()
for case in ("c01", "c02", "c03"):
    shutil.copy(root / "data/imagesTr/case_000.nii.gz", scans / f"{case}.nii.gz")


def predict(*args, note):
    run = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", "predict", "--model", "model", "rerun_scans",
                          "--output", "rerun_out", *args], capture_output=True, text=True, cwd=root)
    print(f"$ predict --model model rerun_scans --output rerun_out {' '.join(args)}   # {note}\nexit "
          f"{run.returncode}\n{(run.stdout + run.stderr).strip()[-700:]}\n{sorted(p.name for p in out.iterdir())}\n")


predict("--probabilities", note="first run, with probabilities")
predict(note="rerun without --probabilities: the _probs beside each replaced map go")
image = nib.load(scans / "c02.nii.gz")
voxels = np.asanyarray(image.dataobj).astype(np.float32)
voxels[0, 0, 0] = np.nan
nib.save(nib.Nifti1Image(voxels, image.affine, image.header), scans / "c02.nii.gz")
predict(note="c02 now holds a NaN: it fails, its earlier map removed, status 2")
shutil.copy(root / "data/imagesTr/case_000.nii.gz", scans / "c02.nii.gz")
predict("--continue", note="c01 and c03 written by this model and options; c02 to predict")
predict("--continue", "--tta", "axes", note="other options: every case predicted again")
