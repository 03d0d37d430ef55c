# python $HERE/make_data.py  (run by walk_1_evaluate.sh in the walk's folder): a researcher's predictions and
# reference labels as 16^3 NIfTI label maps (nibabel), in the forms docs/inference.md's Evaluate part speaks of.
import json
import os
from pathlib import Path

import nibabel as nib
import numpy as np

N = 16
grid = np.indices((N, N, N))


def save(path, array, spacing=(1.0, 1.0, 1.0), dtype=np.uint8, affine=None, units=None):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    image = nib.Nifti1Image(np.asarray(array).astype(dtype), np.diag([*spacing, 1.0]) if affine is None else affine)
    if units is not None:
        image.header.set_xyzt_units(xyz=units)
    nib.save(image, str(path))
    return image


def ball(center, radius):
    return sum((g - c) ** 2 for g, c in zip(grid, center)) <= radius ** 2


def box(lo, hi):
    m = np.zeros((N, N, N), bool)
    m[tuple(slice(a, b) for a, b in zip(lo, hi))] = True
    return m


def label_map(*masks):
    out = np.zeros((N, N, N), np.uint8)
    for value, mask in enumerate(masks, start=1):
        if mask is not None:
            out[mask] = value
    return out


# the main set: classes 1 ball, 2 lesion; a case without the lesion (in neither file), one whose lesion the
# prediction misses (one side empty), one on 0.7 x 0.7 x 5 mm voxels
cases = {
    "case_a": (label_map(ball((8, 8, 8), 4), box((2, 2, 2), (5, 5, 5))),
               label_map(ball((9, 8, 8), 4), box((2, 2, 2), (5, 5, 6))), (1.0, 1.0, 1.0)),
    "case_b": (label_map(ball((7, 8, 8), 5), box((11, 11, 11), (14, 14, 14))),
               label_map(ball((7, 8, 8), 4), None), (1.0, 1.0, 1.0)),
    "case_c": (label_map(ball((8, 8, 8), 3), None), label_map(ball((8, 8, 9), 3), None), (1.0, 1.5, 2.0)),
    "case_d": (label_map(box((4, 4, 4), (12, 12, 8)), box((1, 1, 1), (3, 3, 3))),
               label_map(box((4, 4, 5), (12, 12, 9)), box((1, 1, 1), (3, 3, 3))), (0.7, 0.7, 5.0)),
}
for case, (lab, pred, spacing) in cases.items():
    save(f"eval/labelsTs/{case}.nii.gz", lab, spacing)
    save(f"eval/predictions/{case}.nii.gz", pred, spacing)
Path("eval/dataset.json").write_text(json.dumps({"labels": {"background": 0, "ball": 1, "lesion": 2},
                                                 "channel_names": {"0": "CT"}, "numTraining": 4,
                                                 "file_ending": ".nii.gz"}))
Path("eval/dataset_ignore.json").write_text(json.dumps({"labels": {"background": 0, "ball": 1, "lesion": 2,
                                                                   "ignore": 3},
                                                        "channel_names": {"0": "CT"}, "numTraining": 4,
                                                        "file_ending": ".nii.gz"}))
Path("eval/regions/dataset.json").parent.mkdir(parents=True, exist_ok=True)
Path("eval/regions/dataset.json").write_text(json.dumps({"labels": {"background": 0, "whole": [1, 2], "core": 2},
                                                         "regions_class_order": [1, 2], "channel_names": {"0": "CT"},
                                                         "numTraining": 4, "file_ending": ".nii.gz"}))

a_lab, a_pred, _ = cases["case_a"]
# a prediction on another grid (moved 2 mm along x), and one stored LPS (the label's voxels flipped with its affine)
save("grid/pred/case_a.nii.gz", a_pred, affine=np.array([[1, 0, 0, 2.0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]))
save("grid/labels/case_a.nii.gz", a_lab)
lps = np.diag([-1.0, -1.0, 1.0, 1.0])
lps[:2, 3] = N - 1
save("lps/pred/case_a.nii.gz", a_pred[::-1, ::-1, :], affine=lps)
save("lps/labels/case_a.nii.gz", a_lab)
# units: none beside micrometres (1,000 times apart); none beside metres; mm beside micrometres; both micrometres
save("units_um/labels/case_a.nii.gz", a_lab, (1.0, 1.0, 1.0), units="unknown")
save("units_um/pred/case_a.nii.gz", a_pred, (1000.0, 1000.0, 1000.0), units="micron")
save("units_m/labels/b.nii.gz", a_lab, (1.0, 1.5, 2.5), units="unknown")
save("units_m/pred/b.nii.gz", a_pred, (0.001, 0.0015, 0.0025), units="meter")
save("units_two/labels/case_a.nii.gz", a_lab, (1.0, 1.0, 1.0), units="mm")
save("units_two/pred/case_a.nii.gz", a_pred, (1000.0, 1000.0, 1000.0), units="micron")
save("units_both_um/labels/case_a.nii.gz", a_lab, (1000.0, 1000.0, 1000.0), units="micron")
save("units_both_um/pred/case_a.nii.gz", a_pred, (1000.0, 1000.0, 1000.0), units="micron")
# maps refused: 2D, several volumes, channels first, NaN alone, an image, NaN/Inf voxels, a scaling header
for name, array, dtype in (("two_d", a_lab[:, :, 8], np.uint8),
                           ("volumes", np.stack([a_lab == c for c in range(3)], -1), np.uint8),
                           ("channels_first", np.stack([a_lab == c for c in range(3)], 0), np.float32),
                           ("nan", np.full((N, N, N), np.nan), np.float32),
                           ("image", a_lab + 0.37, np.float32),
                           ("naninf", np.where(grid[0] == 0, np.nan, np.where(grid[1] == 0, np.inf, a_lab)),
                            np.float32)):
    save(f"maps_{name}/labels/case_a.nii.gz", a_lab)
    save(f"maps_{name}/pred/case_a.nii.gz", array, dtype=dtype)
scaled = nib.Nifti1Image(a_lab.astype(np.uint8), np.eye(4))
scaled.header.set_slope_inter(3.92157, 0)
os.makedirs("maps_scaled/labels", exist_ok=True)
os.makedirs("maps_scaled/pred", exist_ok=True)
nib.save(scaled, "maps_scaled/labels/case_a.nii.gz")
save("maps_scaled/pred/case_a.nii.gz", a_pred)
# classes: negative value; masks 0/255 against a model's 0/1; an ignore label 3 in one reference; a 255 undeclared
neg = a_lab.astype(np.int16)
neg[0, 0, 0] = -1
save("neg/labels/case_a.nii.gz", neg, dtype=np.int16)
save("neg/pred/case_a.nii.gz", a_pred)
for case in ("m1", "m2"):
    mask = ball((8, 8, 8), 4 + (case == "m2"))
    save(f"masks/labels/{case}.nii.gz", mask * 255)
    save(f"masks/pred/{case}.nii.gz", ball((8, 8, 9), 4))
for case, (lab, pred, spacing) in cases.items():
    lab = lab.copy()
    if case == "case_a":
        lab[:, :, 14:] = 3  # unannotated slices
    save(f"ignore/labels/{case}.nii.gz", lab, spacing)
    save(f"ignore/pred/{case}.nii.gz", pred, spacing)
bad = a_pred.copy()
bad[15, 15, 15] = 3
save("ignore_pred/labels/case_a.nii.gz", cases["case_a"][0])
save("ignore_pred/pred/case_a.nii.gz", bad)
sparse = a_lab.copy()
sparse[:, :, 14:] = 255
save("sparse255/labels/case_a.nii.gz", sparse)
save("sparse255/pred/case_a.nii.gz", a_pred)
# pairs: a label without its prediction, in folders of each tool's marks and names
for tool in ("plain", "nnunet_v2", "nnunet_v1", "monai", "renamed"):
    save(f"missing_{tool}/labels/case_a.nii.gz", a_lab)
    save(f"missing_{tool}/labels/case_b.nii.gz", a_lab)
    save(f"missing_{tool}/pred/case_b.nii.gz", a_pred)
Path("missing_nnunet_v2/pred/predict_from_raw_data_args.json").write_text("{}")
Path("missing_nnunet_v1/pred/plans.pkl").write_bytes(b"")
save("missing_monai/pred/case_a/case_a_seg.nii.gz", a_pred)
save("missing_renamed/pred/case_a_0000.nii.gz", a_pred)
save("twice/labels/case_a.nii.gz", a_lab)
save("twice/pred/case_a.nii.gz", a_pred)
save("twice/pred/case_a.nii", a_pred)
save("nested/dataset/labelsTr/case_a.nii.gz", a_lab)
os.makedirs("nested/dataset/imagesTr", exist_ok=True)
# a sheared reference grid (25 degrees), its prediction on the same grid
shear = np.eye(4)
shear[0, 2] = np.tan(np.radians(25))
save("sheared/labels/case_a.nii.gz", a_lab, affine=shear)
save("sheared/pred/case_a.nii.gz", a_pred, affine=shear)
# labels folders holding both a dataset.json and a config.json, and a dataset.json as a folder beside a config.json
os.makedirs("both_decl", exist_ok=True)
Path("both_decl/dataset.json").write_text(Path("eval/dataset.json").read_text())
Path("both_decl/config.json").write_text("{}")
# a CSV dataset's file as --labels
Path("cases.csv").write_text("image,label\nimages/case_a.nii.gz,eval/labelsTs/case_a.nii.gz\n")
# a nnU-Net dataset's labelsTs with dataset.json one folder up: plain classes, then regions
for name, decl in (("Dataset041_Tiny", "eval/dataset.json"), ("Dataset042_Tiny", "eval/regions/dataset.json")):
    for case in ("case_a", "case_c"):
        save(f"{name}/labelsTs/{case}.nii.gz", cases[case][0], cases[case][2])
        save(f"{name}/predictions/{case}.nii.gz", cases[case][1], cases[case][2])
    Path(f"{name}/dataset.json").write_text(Path(decl).read_text())
# a case named in Latin-1 (the byte 0xe9), its label and prediction
os.makedirs(b"latin/labels", exist_ok=True)
os.makedirs(b"latin/pred", exist_ok=True)
nib.save(nib.Nifti1Image(a_lab, np.eye(4)), os.fsdecode(b"latin/labels/c\xe9.nii.gz"))
nib.save(nib.Nifti1Image(a_pred, np.eye(4)), os.fsdecode(b"latin/pred/c\xe9.nii.gz"))
print("made", sorted(p for p in os.listdir(".")))
