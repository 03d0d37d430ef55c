# python make_data.py   (run from the walk's clone; writes data_walk/abdomen: 6 CT-like 24^3 NIfTI cases whose
# labels hold the values 0, 1 (liver, a large block) and 6 (spleen, a small one), an MSD dataset.json declaring them
# ({"0": "background", "1": "liver", "6": "spleen"}: not 0..C-1, so config.json's preprocessing.label_map maps them),
# 2 of them listed as validation)
import json
import os

import nibabel as nib
import numpy as np

root = "data_walk/abdomen"
os.makedirs(f"{root}/imagesTr", exist_ok=True)
os.makedirs(f"{root}/labelsTr", exist_ok=True)
rng = np.random.default_rng(0)
entries = []
for i in range(6):
    label = np.zeros((24, 24, 24), np.uint8)
    label[3:13, 4:16, 5:15] = 1  # the liver
    label[15:20, 14:20, 12:18] = 6  # the spleen
    image = rng.normal(0, 20, label.shape).astype(np.float32) + 60.0 * (label == 1) + 120.0 * (label == 6)
    affine = np.diag([2.0, 2.0, 2.0, 1.0])
    nib.save(nib.Nifti1Image(image, affine), f"{root}/imagesTr/abdomen_{i}.nii.gz")
    nib.save(nib.Nifti1Image(label, affine), f"{root}/labelsTr/abdomen_{i}.nii.gz")
    entries.append({"image": f"./imagesTr/abdomen_{i}.nii.gz", "label": f"./labelsTr/abdomen_{i}.nii.gz"})
with open(f"{root}/dataset.json", "w") as file:
    json.dump({"name": "abdomen", "modality": {"0": "CT"}, "labels": {"0": "background", "1": "liver", "6": "spleen"},
               "numTraining": 4, "training": entries[:4], "validation": entries[4:]}, file, indent=1)
print("wrote", root, len(entries), "cases")
