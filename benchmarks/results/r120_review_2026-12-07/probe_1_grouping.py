# cd /tmp/r120 && PYTHONPATH=/tmp/wt_r120 OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
#   /tmp/wt_r120/benchmarks/results/r120_review_2026-12-07/probe_1_grouping.py > probe_1_grouping.txt 2>&1
# group_cases of layouts a right case or a wrong one takes, for a 1-, 2- and 3-channel model (T1, FLAIR, T2)
import shutil
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.errors import DataError
from accelerated_seg.inference_inputs import group_cases

root = Path("/tmp/r120/p1")
shutil.rmtree(root, ignore_errors=True)


def vol(name, shape):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    image = nib.Nifti1Image(np.ones(shape, np.float32), np.diag([2.0, 2.0, 2.0, 1.0]))
    image.header.set_xyzt_units("mm")
    nib.save(image, str(path))
    return path


def show(title, files, channels, names=None):
    print(f"== {title}")
    try:
        print("   cases:", [(c.id, [p.name for p in c.channels]) for c in group_cases(files, channels, names)])
    except DataError as error:
        print("   refused:", str(error).replace("\n", "\n     "))


two = {"0": "T1", "1": "FLAIR"}
show("1-channel model, a 4D file of 1 volume", [vol("a/x_0000.nii.gz", (8, 8, 8, 1))], 1)
show("2 channels, one 4D file of 2 named case_0000 alone", [vol("b/case_0000.nii.gz", (8, 8, 8, 2))], 2, two)
show("2 channels, one 4D file of 2 named p_T1 alone (p_FLAIR absent)", [vol("c/p_T1.nii.gz", (8, 8, 8, 2))], 2, two)
show("2 channels, nnU-Net 3D layout", [vol("d/p_0000.nii.gz", (8, 8, 8)), vol("d/p_0001.nii.gz", (8, 8, 8))], 2, two)
show("2 channels, case_0000 4D(2) beside case_0001 3D",
     [vol("e/case_0000.nii.gz", (8, 8, 8, 2)), vol("e/case_0001.nii.gz", (8, 8, 8))], 2, two)
show("2 channels, 4D cases named by a 4-digit id (pat_0001, pat_0002) each of 2 volumes",
     [vol("f/pat_0001.nii.gz", (8, 8, 8, 2)), vol("f/pat_0002.nii.gz", (8, 8, 8, 2))], 2, two)
show("2 channels, 4D cases pat_0000 ... pat_0002 each of 2 volumes (ids from 0)",
     [vol(f"g/pat_{i:04d}.nii.gz", (8, 8, 8, 2)) for i in range(3)], 2, two)
show("2 channels, 4D cases pat_0001, pat_0002 and a stray 3D pat_0003 among them",
     [vol("h/pat_0001.nii.gz", (8, 8, 8, 2)), vol("h/pat_0002.nii.gz", (8, 8, 8, 2)),
      vol("h/pat_0003.nii.gz", (8, 8, 8))], 2, two)
show("2 channels, 4D cases pat_0001, pat_0002 beside a 3D pat_0000 (a 2-volume id layout's first id, 3D by mistake)",
     [vol("i/pat_0000.nii.gz", (8, 8, 8)), vol("i/pat_0001.nii.gz", (8, 8, 8, 2)),
      vol("i/pat_0002.nii.gz", (8, 8, 8, 2))], 2, two)
show("2 channels, case_0000 4D(2) in one folder, case_0001 3D in another",
     [vol("j1/case_0000.nii.gz", (8, 8, 8, 2)), vol("j2/case_0001.nii.gz", (8, 8, 8))], 2, two)
show("2 channels, p_T1 4D(2) beside p_FLAIR 3D", [vol("k/p_T1.nii.gz", (8, 8, 8, 2)),
                                                   vol("k/p_FLAIR.nii.gz", (8, 8, 8))], 2, two)
show("2 channels, p_T1 4D(2) beside p-FLAIR 3D (other separator)", [vol("l/p_T1.nii.gz", (8, 8, 8, 2)),
                                                                     vol("l/p-FLAIR.nii.gz", (8, 8, 8))], 2, two)
show("2 channels, p_T1 4D(2) and p_FLAIR 4D(2)", [vol("m/p_T1.nii.gz", (8, 8, 8, 2)),
                                                  vol("m/p_FLAIR.nii.gz", (8, 8, 8, 2))], 2, two)
show("2 channels, case_0000 4D(2), case_0001 4D(2)", [vol("n/case_0000.nii.gz", (8, 8, 8, 2)),
                                                      vol("n/case_0001.nii.gz", (8, 8, 8, 2))], 2, two)
three = {"0": "T1", "1": "FLAIR", "2": "T2"}
show("3 channels, c_0000 4D(3) beside c_0001 3D, c_0002 absent",
     [vol("o/c_0000.nii.gz", (8, 8, 8, 3)), vol("o/c_0001.nii.gz", (8, 8, 8))], 3, three)
show("2 channels, case_0001 4D(2) beside case_0000 3D (the 4D as the second)",
     [vol("q/case_0000.nii.gz", (8, 8, 8)), vol("q/case_0001.nii.gz", (8, 8, 8, 2))], 2, two)
show("2 channels, the walk's case_0000 4D(2) beside case_0001 3D and a right case r_0000/r_0001",
     [vol("s/case_0000.nii.gz", (8, 8, 8, 2)), vol("s/case_0001.nii.gz", (8, 8, 8)),
      vol("s/r_0000.nii.gz", (8, 8, 8)), vol("s/r_0001.nii.gz", (8, 8, 8))], 2, two)
