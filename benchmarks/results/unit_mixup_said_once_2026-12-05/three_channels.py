"""Run as: PYTHONPATH=<package> .venv/bin/python three_channels.py <empty folder>
A case of 3 channels and a label, channel 0 alone in micrometres: the case check's errors (h56)."""
import sys, numpy as np, nibabel as nib
from pathlib import Path
from accelerated_seg.data.cases import Case
from accelerated_seg.data.checks import check_cases
root = Path(sys.argv[1]); root.mkdir(parents=True, exist_ok=True)
def save(name, array, unit, per_mm):
    image = nib.Nifti1Image(array, np.diag([2.0 * per_mm] * 3 + [1.0])); image.header.set_xyzt_units(unit)
    nib.save(image, root / name); return root / name
rng = np.random.default_rng(0)
label = np.zeros((8, 8, 8), np.uint8); label[2:5, 2:5, 2:5] = 1
case = Case(id="c", images=(save("c_0000.nii.gz", rng.random((8, 8, 8)).astype(np.float32), "micron", 1000.0),
                            save("c_0001.nii.gz", rng.random((8, 8, 8)).astype(np.float32), "mm", 1.0),
                            save("c_0002.nii.gz", rng.random((8, 8, 8)).astype(np.float32), "mm", 1.0)),
            label=save("c.nii.gz", label, "mm", 1.0))
errors = check_cases([case], 2, num_channels=3).errors
print(f"3 channels, channel 0 alone in micrometres: {len(errors)} error(s)")
for e in errors: print("  " + e.replace(str(root), "<data>")[:260])
