"""Run: PYTHONPATH=/tmp/wt_r82 python evaluate_units.py /tmp/r82evalunits
docs/inference.md, Evaluate's "Pairs, grids and maps": a prediction declaring no unit beside a reference declaring
micrometres, their voxel sizes that unit's factor apart (the old page: told the unit is the likely cause, with the
lines that declare the one mm and rewrite the other in mm; the rewrite's page names only two units and, beside metres,
both readings)."""
import shutil
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
(root / "labels").mkdir(parents=True)
(root / "preds").mkdir()
volume = np.zeros((10, 10, 8), np.int16)
volume[3:6, 3:6, 2:5] = 1
label = nib.Nifti1Image(volume, np.diag([2000.0, 2000.0, 2000.0, 1]))
label.header.set_xyzt_units("micron")
nib.save(label, root / "labels" / "b.nii.gz")
nib.save(nib.Nifti1Image(volume, np.diag([2.0, 2.0, 2.0, 1])), root / "preds" / "b.nii.gz")  # no unit
run = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", "evaluate", "preds", "labels"], capture_output=True,
                     text=True, cwd=root)
print(f"$ evaluate preds labels   # preds/b: no unit, 2 mm numbers; labels/b: micrometres, 2000\nexit {run.returncode}\n"
      f"{(run.stdout + run.stderr).strip()}")
