# python make_data.py  (run by walk_2_data.sh in the walk's folder): tiny 16^3 NIfTI datasets in the page's forms.
import json
from pathlib import Path

import nibabel as nib
import numpy as np

rng = np.random.default_rng(0)


def save(path, array, dtype):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(array.astype(dtype), np.diag([1.5, 1.5, 1.5, 1.0])), str(path))


def label(values=(1,)):
    lab = np.zeros((16, 16, 16))
    for i, v in enumerate(values):
        lab[3 + 3 * i:7 + 3 * i, 4:12, 4:12] = v
    return lab


# data.md's Decathlon example, case_000 .. case_003 (one channel), its dataset.json as the page writes it + cases
msd = Path("Task01_Tiny")
for i in range(4):
    save(msd / f"imagesTr/case_00{i}.nii.gz", rng.normal(size=(16, 16, 16)), np.float32)
    save(msd / f"labelsTr/case_00{i}.nii.gz", label(), np.uint8)
(msd / "dataset.json").write_text(json.dumps(
    {"labels": {"0": "background", "1": "tumour"}, "modality": {"0": "MRI"},
     "training": [{"image": f"./imagesTr/case_00{i}.nii.gz", "label": f"./labelsTr/case_00{i}.nii.gz"}
                  for i in range(4)], "validation": []}))
# data.md's nnU-Net v2 example: two channels T1, T2; labels {"background": 0, "tumor": 1}; numTraining 2
nn = Path("Dataset001_Tiny")
for case in ("case_a", "case_b"):
    for channel in (0, 1):
        save(nn / f"imagesTr/{case}_000{channel}.nii.gz", rng.normal(size=(16, 16, 16)), np.float32)
    save(nn / f"labelsTr/{case}.nii.gz", label(), np.uint8)
(nn / "dataset.json").write_text(json.dumps({"channel_names": {"0": "T1", "1": "T2"},
                                             "labels": {"background": 0, "tumor": 1}, "numTraining": 2,
                                             "file_ending": ".nii.gz"}))
# data.md's CSV example, as written (t1/, t2/, seg/; c is a test case without a label)
csv = Path("study")
for case in "abc":
    save(csv / f"t1/{case}.nii.gz", rng.normal(size=(16, 16, 16)), np.float32)
    save(csv / f"t2/{case}.nii.gz", rng.normal(size=(16, 16, 16)), np.float32)
    if case != "c":
        save(csv / f"seg/{case}.nii.gz", label(), np.uint8)
(csv / "cases.csv").write_text("image_0,image_1,label,split,age\nt1/a.nii.gz,t2/a.nii.gz,seg/a.nii.gz,train,41\n"
                               "t1/b.nii.gz,t2/b.nii.gz,seg/b.nii.gz,validation,37\nt1/c.nii.gz,t2/c.nii.gz,,test,60\n")
# the pairs example's files (a_t1 ... c_seg) under a root of the user's: data_study
pairs = Path("data_study")
for case in "abc":
    for ch in ("t1", "t2"):
        save(pairs / f"{case}_{ch}.nii.gz", rng.normal(size=(16, 16, 16)), np.float32)
    save(pairs / f"{case}_seg.nii.gz", label(), np.uint8)
# the builder's sub-01 ... sub-04 T1w and mask, 32^3: the default U-Net's smallest block (16^3 is refused, saying so)
for i in range(1, 5):
    save(f"sub-0{i}/T1w.nii.gz", rng.normal(size=(32, 32, 32)), np.float32)
    save(f"sub-0{i}/mask.nii.gz", np.pad(label((1, 3)), 8), np.uint8)  # two values: binarize() makes them one
# a BraTS-like Decathlon dataset of 1 edema, 2 non-enhancing, 3 enhancing for the regions example
brats = Path("Task01_BrainTumour")
for i in range(3):
    save(brats / f"imagesTr/case_00{i}.nii.gz", rng.normal(size=(16, 16, 16)), np.float32)
    save(brats / f"labelsTr/case_00{i}.nii.gz", label((1, 2, 3)), np.uint8)
(brats / "dataset.json").write_text(json.dumps(
    {"labels": {"0": "background", "1": "edema", "2": "non-enhancing", "3": "enhancing tumour"},
     "modality": {"0": "FLAIR"}, "training": [{"image": f"./imagesTr/case_00{i}.nii.gz",
                                                "label": f"./labelsTr/case_00{i}.nii.gz"} for i in range(3)]}))
print("made", msd, nn, csv, pairs, brats)
