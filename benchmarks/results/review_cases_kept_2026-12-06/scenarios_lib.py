"""The probes' dataset writer: an MSD dataset of (case id, unit, voxel sizes, shape)."""
import json

import nibabel as nib
import numpy as np

from accelerated_seg.data.manifest import load_msd


def dataset(folder, cases):
    entries = []
    for case, unit, sizes, shape in cases:
        for kind in ("imagesTr", "labelsTr"):
            image = nib.Nifti1Image(np.ones(shape, np.uint8), np.diag([*sizes, 1.0]))
            image.header.set_xyzt_units(unit)
            (folder / kind).mkdir(parents=True, exist_ok=True)
            nib.save(image, folder / kind / f"{case}.nii.gz")
        entries.append({"image": f"./imagesTr/{case}.nii.gz", "label": f"./labelsTr/{case}.nii.gz"})
    (folder / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"},
                                                     "modality": {"0": "CT"}, "training": entries}))
    return load_msd(folder / "dataset.json")
