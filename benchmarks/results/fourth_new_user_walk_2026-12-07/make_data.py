# python make_data.py   (run from the walk's clone; writes data_walk/Task02_TwoChannel: an nnU-Net v2 raw dataset of
# 6 two-channel (T1, FLAIR) 16^3 cases, imagesTr/<case>_0000/_0001 and labelsTr/<case>, 2 mm voxels declared in mm,
# a dataset.json whose channel_names are "T1", "FLAIR"; two more cases' scans in imagesTs/)
import json
import os

import nibabel as nib
import numpy as np

root = "data_walk/Task02_TwoChannel"
for sub in ("imagesTr", "labelsTr", "imagesTs"):
    os.makedirs(f"{root}/{sub}", exist_ok=True)
rng = np.random.default_rng(0)
affine = np.diag([2.0, 2.0, 2.0, 1.0])
for i in range(8):
    label = np.zeros((16, 16, 16), np.uint8)
    label[4 + i % 3:10 + i % 3, 5:11, 4:10] = 1
    folder = "imagesTs" if i >= 6 else "imagesTr"
    for channel in range(2):
        image = rng.normal(100, 10, (16, 16, 16)).astype(np.float32) + 60 * label * (channel + 1)
        img = nib.Nifti1Image(image, affine)
        img.header.set_xyzt_units("mm")
        nib.save(img, f"{root}/{folder}/p{i:02d}_{channel:04d}.nii.gz")
    if i < 6:
        lab = nib.Nifti1Image(label, affine)
        lab.header.set_xyzt_units("mm")
        nib.save(lab, f"{root}/labelsTr/p{i:02d}.nii.gz")
declared = {"name": "TwoChannel", "channel_names": {"0": "T1", "1": "FLAIR"},
            "labels": {"background": 0, "tumour": 1}, "numTraining": 6, "file_ending": ".nii.gz"}
with open(f"{root}/dataset.json", "w") as file:
    json.dump(declared, file, indent=1)
print("wrote", root)
