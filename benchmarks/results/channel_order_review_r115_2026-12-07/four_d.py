"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 timeout 300 \
    /work/main/.venv/bin/python benchmarks/results/channel_order_review_r115_2026-12-07/four_d.py <empty folder> \
    > benchmarks/results/channel_order_review_r115_2026-12-07/four_d_<main|after>.txt
Review r115: predict_file, Segmentation.predict and `predict --input` of one 4D file (both channels, the dataset's
order) in Task/imagesTs/ whose dataset.json names MRI1, MRI0 for a model's MRI0, MRI1: what the refusal says to do
(a 4D file has no "first file" to make the model's channel 0); and `predict` of the folder (the Decathlon's
imagesTs/ of 4D files) and of an nnU-Net folder beside it (Task2/imagesTs/c_0000, c_0001)."""
import contextlib
import io
import json
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.cli import main
from accelerated_seg.estimator import Segmentation
from accelerated_seg.inference import predict_file
from test_inference import export

root = Path(sys.argv[1]).absolute()
folder = root / "Task" / "imagesTs"
folder.mkdir(parents=True)
nib.save(nib.Nifti1Image(np.random.default_rng(0).uniform(10, 100, (16, 16, 16, 2)).astype(np.float32),
                         np.diag([2.5, 2.5, 2.5, 1.0])), folder / "c.nii.gz")
(folder.parent / "dataset.json").write_text(json.dumps(
    {"channel_names": {"0": "MRI1", "1": "MRI0"}, "labels": {"background": 0, "lesion": 1}, "numTraining": 0,
     "file_ending": ".nii.gz"}))
model = export(root / "model", in_channels=2)
for label, call in (("predict_file", lambda: predict_file(model, folder / "c.nii.gz", root / "a.nii.gz")),
                    ("Segmentation.predict", lambda: Segmentation.load(model).predict(str(folder / "c.nii.gz")))):
    try:
        call()
        print(f"{label}: written")
    except Exception as error:  # noqa: BLE001 - the probe says what came
        print(f"{label}: {type(error).__name__}: {str(error).replace(str(root), '<root>')}")
err = io.StringIO()
with contextlib.redirect_stderr(err):
    status = main(["predict", "--model", str(model), "--input", str(folder / "c.nii.gz"), "--output",
                   str(root / "b.nii.gz")])
print(f"predict --input: status {status}: {err.getvalue().strip().replace(str(root), '<root>')}")
err = io.StringIO()
with contextlib.redirect_stderr(err):
    status = main(["predict", "--model", str(model), str(folder), "--output", str(root / "out")])
print(f"predict <folder of 4D files>: status {status}: {err.getvalue().strip().replace(str(root), '<root>')}")
nnunet = root / "Task2" / "imagesTs"
nnunet.mkdir(parents=True)
for index in range(2):
    nib.save(nib.Nifti1Image(np.full((16, 16, 16), 50.0, np.float32), np.diag([2.5, 2.5, 2.5, 1.0])),
             nnunet / f"c_{index:04d}.nii.gz")
(nnunet.parent / "dataset.json").write_text((folder.parent / "dataset.json").read_text())
err = io.StringIO()
with contextlib.redirect_stderr(err):
    status = main(["predict", "--model", str(model), str(nnunet), "--output", str(root / "out2")])
print(f"predict <nnU-Net folder>: status {status}: {err.getvalue().strip().replace(str(root), '<root>')}")
