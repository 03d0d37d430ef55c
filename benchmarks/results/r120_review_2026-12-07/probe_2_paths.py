# cd /tmp/r120 && PYTHONPATH=/tmp/wt_r120 OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
#   /tmp/wt_r120/benchmarks/results/r120_review_2026-12-07/probe_2_paths.py > probe_2_paths.txt 2>&1
# The walk's 4D case_0000 (2 volumes) beside case_0001 (3D), for runs/brats2 (T1, FLAIR), by every road
import shutil
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg import Segmentation
from accelerated_seg.cli import main
from accelerated_seg.inference_cases import predict_cases

root = Path("/tmp/r120/p2")
shutil.rmtree(root, ignore_errors=True)
root.mkdir(parents=True)
for name, shape in (("case_0000.nii.gz", (16, 16, 16, 2)), ("case_0001.nii.gz", (16, 16, 16))):
    image = nib.Nifti1Image(np.ones(shape, np.float32), np.diag([2.0, 2.0, 2.0, 1.0]))
    image.header.set_xyzt_units("mm")
    nib.save(image, str(root / name))
model = "runs/brats2/best_model"
print("== predict_cases(model, [folder])")
try:
    predict_cases(model, [str(root)], str(root / "out1"))
except Exception as error:
    print(f"   {type(error).__name__}: {error}")
print("== accelerated-seg predict --model M folder")
print("   status", main(["predict", "--model", model, str(root), "--output", str(root / "out2")]))
print("== accelerated-seg predict --model M --input both files")
print("   status", main(["predict", "--model", model, "--input", str(root / "case_0000.nii.gz"),
                        str(root / "case_0001.nii.gz"), "--output", str(root / "out3.nii.gz")]))
print("== Segmentation.load(M).predict([both files])")
try:
    Segmentation.load(model).predict([str(root / "case_0000.nii.gz"), str(root / "case_0001.nii.gz")])
except Exception as error:
    print(f"   {type(error).__name__}: {error}")
print("== the 4D file alone: predict --model M file")
print("   status", main(["predict", "--model", model, str(root / "case_0000.nii.gz"), "--output", str(root / "o4")]))
