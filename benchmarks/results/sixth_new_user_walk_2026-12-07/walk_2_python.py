# python $HERE/walk_2_python.py > $HERE/walk_2_python.txt 2>&1  (in $WALK/clone/data, after walk_1_evaluate.sh)
# docs/inference.md's "### Python" block run as written (in a folder named as the page names them), its Metrics
# table and Edges table checked against MONAI's own metrics computed here by hand, and the Python refusals.
import csv
import json
import shutil
from pathlib import Path

import nibabel as nib
import numpy as np
import torch
from monai.metrics import compute_dice, compute_hausdorff_distance, compute_surface_dice

from accelerated_seg.evaluate import case_metrics, evaluate_folders, voxel_spacing

print("=== the page's block, as written ===")
root = Path("python_block")
shutil.rmtree(root, ignore_errors=True)
root.mkdir()
shutil.copytree("eval/predictions", root / "predictions", ignore=shutil.ignore_patterns("evaluation"))
shutil.copytree("eval/labelsTs", root / "labelsTs")
shutil.copy("eval/dataset.json", root / "dataset.json")
import os
os.chdir(root)
summary = evaluate_folders("predictions", "labelsTs", dataset_json="dataset.json", tolerance_mm=[1.0, 2.0])
print("summary keys:", sorted(summary))
label_nifti = nib.load("labelsTs/case_d.nii.gz")
label_array = np.asarray(label_nifti.dataobj)
pred_array = np.asarray(nib.load("predictions/case_d.nii.gz").dataobj)
scores = case_metrics(pred_array, label_array, 3, voxel_spacing(label_nifti.affine), tolerance_mm=1.0)
print("scores[1]['hd95_mm'] =", scores[1]["hd95_mm"])
print("scores =", scores)

print("=== metrics.csv against MONAI by hand ===")
rows = list(csv.DictReader(open("predictions/evaluation/metrics.csv")))
print("columns:", list(rows[0]))
tol = {1: 1.0, 2: 2.0}
for row in rows:
    lab = nib.load(f"labelsTs/{row['case']}.nii.gz")
    spacing = [float(s) for s in voxel_spacing(lab.affine)]
    la = np.asarray(lab.dataobj)
    pa = np.asarray(nib.load(f"predictions/{row['case']}.nii.gz").dataobj)
    c = int(row["class"])
    p = torch.as_tensor(pa == c)[None, None].float()
    y = torch.as_tensor(la == c)[None, None].float()
    both = torch.cat([1 - p, p], 1), torch.cat([1 - y, y], 1)
    dice = compute_dice(*both, include_background=False, ignore_empty=False).item()
    hd = compute_hausdorff_distance(*both, percentile=95, spacing=spacing).item()
    nsd = compute_surface_dice(*both, class_thresholds=[tol[c]], spacing=spacing, use_subvoxels=True).item()
    print(f"{row['case']} {c}: csv dice {row['dice']} hd95 {row['hd95_mm']} nsd {row['surface_dice']} "
          f"tol {row['tolerance_mm']} | MONAI dice {dice:.7g} hd95 {hd:.7g} nsd {nsd:.7g} "
          f"| voxels {row['label_voxels']}/{int(y.sum())} {row['pred_voxels']}/{int(p.sum())}")

print("=== summary.json ===")
s = json.load(open("predictions/evaluation/summary.json"))
print("keys:", sorted(s))
print("per_class[2]:", json.dumps(s["per_class"]["2"])[:600])
print("overall keys:", sorted(s["overall"]))
print("settings:", s["settings"])
print("conventions:", list(s["conventions"]))

print("=== Python refusals ===")
for kwargs in ({"num_classes": 4, "dataset_json": "dataset.json"}, {"tolerance_mm": {"1": 1.0, 2: 2.0}},
               {"tolerance_mm": {1: 1.0, 2.5: 2.0}}, {"tolerance_mm": {1: "x", 2: 1.0}}, {"tolerance_mm": {1: 1.0}},
               {"tolerance_mm": {np.int64(1): 1.0, np.int64(2): 2.0}, "overwrite": True}):
    try:
        out = evaluate_folders("predictions", "labelsTs", output_dir="ev_py", **kwargs)
        print(kwargs, "-> taken, tolerance_mm", out["tolerance_mm"])
    except Exception as error:  # noqa: BLE001 - the probe prints what the page says of it
        print(kwargs, "->", type(error).__name__, error)

print("=== Metrics: a 12 mm cube against the same cube 2 mm along x, 1 mm grid and 3 mm slices ===")
for spacing in ((1.0, 1.0, 1.0), (1.0, 1.0, 3.0)):
    shape = [int(40 / s) for s in spacing]
    lab, pred = np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)
    n = [int(12 / s) for s in spacing]
    lo = [int(10 / s) for s in spacing]
    lab[tuple(slice(a, a + b) for a, b in zip(lo, n))] = 1
    lo[0] += 2
    pred[tuple(slice(a, a + b) for a, b in zip(lo, n))] = 1
    ours = case_metrics(pred, lab, 2, spacing, tolerance_mm=1.0)[1]["surface_dice"]
    p, y = (torch.as_tensor(np.stack([1 - m, m])[None]).float() for m in (pred, lab))
    plain = compute_surface_dice(p, y, class_thresholds=[1.0], spacing=list(spacing)).item()
    print(spacing, "ours", ours, "MONAI's default", round(plain, 3))

print("=== Edges ===")
sp = (0.7, 0.7, 5.0)
lab = np.zeros((16, 16, 16), np.uint8)
lab[4:8, 4:8, 4:8] = 1
up = np.roll(lab, 1, axis=2)
along_x = np.roll(lab, 1, axis=0)
print("box one slice up, 0.7x0.7x5:", case_metrics(up, lab, 2, sp)[1])
print("box one voxel along x:", case_metrics(along_x, lab, 2, sp)[1])
print("5 mm apart, tolerance 5:", case_metrics(up, lab, 2, sp, tolerance_mm=5.0)[1]["surface_dice"],
      "4.99:", case_metrics(up, lab, 2, sp, tolerance_mm=4.99)[1]["surface_dice"],
      "1:", case_metrics(up, lab, 2, sp, tolerance_mm=1.0)[1]["surface_dice"])
one = np.zeros((16, 16, 16), np.uint8)
one[8, 8, 8] = 1
print("one-voxel object, itself:", case_metrics(one, one, 2, sp)[1])
print("one-voxel object one slice off:", case_metrics(np.roll(one, 1, axis=2), one, 2, sp)[1])
empty = np.zeros_like(one)
print("both empty:", case_metrics(empty, empty, 2, sp)[1])
print("prediction empty:", case_metrics(empty, one, 2, sp)[1])
print("label empty:", case_metrics(one, empty, 2, sp)[1])
edge = np.zeros((16, 16, 16), np.uint8)
edge[0:4, 4:8, 4:8] = 1
print("object cut by the edge, shifted 1 along x:", case_metrics(np.roll(edge, 1, axis=0), edge, 2, (1, 1, 1))[1])
