"""Run as: cd <worktree> && PYTHONPATH=<worktree> /work/main/.venv/bin/python \
    benchmarks/results/review_predict_training_voxels_2026-12-06/anisotropic.py <empty folder> > anisotropic.txt
Review of helper h105 (r89): a model trained on anisotropic cases (0.7 x 0.7 x 5 mm, RAS; data.spacing 1.4 x 1.4 x 5
set, coarser on purpose; cases_median_spacing [0.7, 0.7, 5]) against scans declaring mm, from their headers alone
(inference_reading.refuse_voxels_far_finer, as predict calls it): its own voxels stored axially and sagittally
(axes permuted), thin-slice CT and MRI, a 0.04 mm slice (no scanner's), micro-CT, and the same scans in metres."""
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.errors import DataError
from accelerated_seg.inference_reading import refuse_voxels_far_finer

root = Path(sys.argv[1]).absolute()
root.mkdir(parents=True, exist_ok=True)
config = {"spacing_set": True, "spacing_unit": "mm", "cases_median_spacing": [0.7, 0.7, 5.0]}
spacing = (1.4, 1.4, 5.0)


def scan(name, zooms, permute=False, shape=(64, 64, 32)):
    affine = np.diag([*zooms, 1.0])
    if permute:  # stored sagittally: voxel axes S, R, A
        affine = np.zeros((4, 4))
        affine[2, 0], affine[0, 1], affine[1, 2], affine[3, 3] = zooms[2], zooms[0], zooms[1], 1.0
    image = nib.Nifti1Image(np.zeros(shape, np.float32), affine)
    image.header.set_xyzt_units("mm")
    nib.save(image, root / f"{name}.nii.gz")
    return root / f"{name}.nii.gz"


for name, zooms, permute in (("own voxels, axial", (0.7, 0.7, 5.0), False),
                             ("own voxels, stored sagittally", (0.7, 0.7, 5.0), True),
                             ("thin-slice CT 0.5 mm", (0.5, 0.5, 0.5), False),
                             ("MRI 0.4 x 0.4 x 1", (0.4, 0.4, 1.0), False),
                             ("1 x 1 x 0.04 (no scanner's slice)", (1.0, 1.0, 0.04), False),
                             ("micro-CT 0.05 mm", (0.05, 0.05, 0.05), False),
                             ("own voxels in metres", (0.0007, 0.0007, 0.005), False),
                             ("thin-slice CT in metres", (0.0005, 0.0005, 0.0005), False)):
    path = scan(name.replace(" ", "_").replace(",", "").replace("(", "").replace(")", "").replace("'", ""), zooms,
                permute)
    try:
        refuse_voxels_far_finer(config, path, nib.load(path), spacing)
        said = "PASSES"
    except DataError as error:
        words = str(error)
        said = "refused: " + words[words.index("voxels of"):].split(", so")[0] + " ... " + (
            words[words.index("its voxels are"):].split(" too")[0] if "its voxels are" in words else "")
    print(f"{name:36} {said}")
