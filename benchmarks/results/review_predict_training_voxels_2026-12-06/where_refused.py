"""Run as: cd <worktree> && PYTHONPATH=<worktree> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/review_predict_training_voxels_2026-12-06/where_refused.py <empty folder> > where_refused.txt
Review of helper h105 (r89): where predict's new refusal (a scan declaring mm 100 times finer than a data.spacing
set and than config.json's cases_median_spacing) comes, for a model exported as training writes it (2.5 mm spacing
set, cases' median 2 mm, random weights): `accelerated-seg predict` on the scan alone (status, lines, output
written?), on a folder of it and a phantom, the same under `accelerate launch --cpu --num_processes 2`, and
`Segmentation.evaluate` of a Dataset whose validation cases are a phantom and that scan (what is in output_dir after,
and whether the phantom's prediction was made and the folders rebuilt before the refusal)."""
import os
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np
import torch

from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec

root = Path(sys.argv[1]).absolute()
root.mkdir(parents=True, exist_ok=True)
write_synthetic_dataset(root / "data", num_cases=2, num_validation=0, size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
spec = model_spec("unet", 1, 3, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
torch.manual_seed(0)
tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
write_export(tensors, spec.to_dict(), {
    "labels": {"0": "background", "1": "a", "2": "b"}, "channels": {"0": "MRI"}, "in_channels": 1, "num_classes": 3,
    "patch_size": [16, 16, 16], "spacing": [2.5, 2.5, 2.5], "spacing_set": True, "spacing_unit": None,
    "cases_median_spacing": [2.0, 2.0, 2.0]}, root / "model")
scans = root / "scans"
scans.mkdir(exist_ok=True)
phantom = nib.load(root / "data" / "imagesTr" / "case_000.nii.gz")
label = root / "data" / "labelsTr" / "case_000.nii.gz"
metres = nib.Nifti1Image(np.asanyarray(phantom.dataobj), np.diag([0.001] * 3 + [1.0]) @ phantom.affine)
metres.header.set_xyzt_units("mm")
nib.save(metres, scans / "a_metres.nii.gz")
metres_label = nib.Nifti1Image(np.asanyarray(nib.load(label).dataobj), metres.affine)
metres_label.header.set_xyzt_units("mm")
nib.save(metres_label, root / "a_metres_label.nii.gz")
nib.save(phantom, scans / "b_phantom.nii.gz")
python = sys.executable
env = {**os.environ, "OMP_NUM_THREADS": "1"}


def run(title, command):
    proc = subprocess.run(command, capture_output=True, text=True, env=env)
    print(f"== {title}: status {proc.returncode}")
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    print(f"stderr: {len(lines)} line(s)")
    for line in (lines if len(lines) < 6 else lines[:6] + ["..."] + lines[-2:]):
        print("  " + line.replace(str(root), "<root>")[:400])
    for line in proc.stdout.splitlines()[-4:]:
        print("  stdout: " + line.replace(str(root), "<root>")[:200])


predict = [python, "-m", "accelerated_seg", "predict", "--model", str(root / "model"), "--device", "cpu"]
run("predict, the scan alone", predict + ["--input", str(scans / "a_metres.nii.gz"), "--output",
                                          str(root / "one" / "a.nii.gz")])
print("written:", sorted(p.name for p in (root / "one").glob("*")) if (root / "one").exists() else "no folder")
run("predict, a folder", predict + [str(scans / "a_metres.nii.gz"), str(scans / "b_phantom.nii.gz"), "--output",
                                    str(root / "folder")])
print("written:", sorted(p.name for p in (root / "folder").glob("*")) if (root / "folder").exists() else "no folder")
launch = [python, "-m", "accelerate.commands.launch", "--cpu", "--num_processes", "2", "--num_machines", "1",
          "--mixed_precision", "no", "--dynamo_backend", "no", "-m", "accelerated_seg", "predict", "--model",
          str(root / "model")]
run("launch of 2, the scan alone", launch + ["--input", str(scans / "a_metres.nii.gz"), "--output",
                                             str(root / "launch_one" / "a.nii.gz")])
print("written:", sorted(p.name for p in (root / "launch_one").glob("*")) if (root / "launch_one").exists()
      else "no folder")

from accelerated_seg.estimator import Segmentation  # noqa: E402
from accelerated_seg.estimator_dataset import Dataset  # noqa: E402

out = root.parent / (root.name + "_evaluation")
other = (str(root / "data" / "imagesTr" / "case_001.nii.gz"), str(root / "data" / "labelsTr" / "case_001.nii.gz"))
dataset = Dataset.from_files([other], block_shape=16, n_classes=3,
                             validation_pairs=[(str(scans / "b_phantom.nii.gz"), str(label)),
                                               (str(scans / "a_metres.nii.gz"), str(root / "a_metres_label.nii.gz"))])
try:
    Segmentation.load(root / "model").evaluate(dataset, output_dir=out)
    print("== evaluate: returned")
except Exception as error:  # noqa: BLE001 - the probe prints what evaluate raised
    print(f"== evaluate: {type(error).__name__}: {str(error).replace(str(root), '<root>')[:600]}")
print("evaluate's output_dir after:", sorted(str(p.relative_to(out)) for p in out.rglob("*")) if out.exists()
      else "none")
