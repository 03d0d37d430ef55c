"""What predict does with a scan whose header declares no unit and whose numbers are centimetres, 10 times finer
than the mm its model's training cases declared (hundred-and-seventh session): no refusal judges it (the unit
check needs a declared unit, the far-finer check 100 times), so it is resampled to a tenth of its size along each
axis and segmented, without a warning. Prints the scan's shape, the shape the network sees, and the warnings.

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/results/predict_memory_refusal_swap_2026-12-05/\
unitless_ten_times_off.py /tmp/probe_dir
"""

import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.inference import prepare_case

root = Path(sys.argv[1])
root.mkdir(parents=True, exist_ok=True)
config = {"in_channels": 1, "num_classes": 2, "patch_size": [16, 16, 16], "spacing": [1.0, 1.0, 1.0],
          "spacing_unit": "mm", "channels": {"0": "CT"}, "labels": {"0": "background", "1": "a"}}
for name, per_mm, unit in (("in_mm", 1.0, "mm"), ("in_cm_no_unit", 0.1, "unknown")):
    scan = nib.Nifti1Image(np.random.default_rng(0).normal(100, 10, (200, 200, 150)).astype(np.float32),
                           np.diag([per_mm] * 3 + [1.0]))
    scan.header.set_xyzt_units(unit)
    nib.save(scan, root / f"{name}.nii.gz")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        prepared = prepare_case(config, [root / f"{name}.nii.gz"])
    print(f"{name}: header xyzt_units {int(scan.header['xyzt_units'])}, voxels {per_mm:g} x {per_mm:g} x {per_mm:g}, "
          f"shape {scan.shape} -> the network sees {tuple(prepared.image.shape[1:])}; warnings: {len(said)}")
