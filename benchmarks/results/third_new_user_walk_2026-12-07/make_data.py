# python make_data.py   (run from the walk's clone; writes data_walk/spleen: 6 CT-like 16^3 NIfTI cases with a
# "spleen" blob and datalist.json as load_decathlon_datalist reads it, "fold" keys on the training entries)
import json
import os

import nibabel as nib
import numpy as np

root = "data_walk/spleen"
os.makedirs(f"{root}/imagesTr", exist_ok=True)
os.makedirs(f"{root}/labelsTr", exist_ok=True)
rng = np.random.default_rng(0)
entries = []
for i in range(6):
    image = np.full((16, 16, 16), -1000.0, np.float32)  # air around a body
    image[2:14, 2:14, 2:14] = rng.normal(40, 20, (12, 12, 12))
    label = np.zeros((16, 16, 16), np.uint8)
    label[5:10, 5:10, 5:10] = 1
    image[label == 1] += 80
    affine = np.diag([1.5, 1.5, 2.0, 1.0])
    nib.save(nib.Nifti1Image(image, affine), f"{root}/imagesTr/spleen_{i}.nii.gz")
    nib.save(nib.Nifti1Image(label, affine), f"{root}/labelsTr/spleen_{i}.nii.gz")
    entries.append({"image": f"imagesTr/spleen_{i}.nii.gz", "label": f"labelsTr/spleen_{i}.nii.gz", "fold": i % 3})
with open(f"{root}/datalist.json", "w") as file:
    json.dump({"training": entries}, file, indent=1)
print("wrote", root, len(entries), "cases")
