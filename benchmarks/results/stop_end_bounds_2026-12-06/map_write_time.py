"""How long predict's writes under the line's lock take (``write_nifti``, gzip, as ``write_case`` writes a case): a
label map (uint8, a few blobs of classes as a segmentation is) and its probabilities (float32, 3 classes), for a
192x192x160 scan and a large CT's 512x512x400, on this machine (2 shared cores), each the best of 2. For the bound
on the main process's wait for such a write at a stop (ranks_stop_together.LINE_BY_S, 25 s).

Run: cd /tmp && PYTHONPATH=<worktree> .venv/bin/python <worktree>/benchmarks/results/stop_end_bounds_2026-12-06/map_write_time.py
"""
import tempfile
import time
from pathlib import Path

import numpy as np

from accelerated_seg.data.io import write_nifti

rng = np.random.default_rng(0)
folder = Path(tempfile.mkdtemp())
for shape in ((192, 192, 160), (512, 512, 400)):
    grid = np.indices(shape, sparse=True)
    distance = sum((axis - size / 2) ** 2 / (size / 4) ** 2 for axis, size in zip(grid, shape))
    labels = np.where(distance < 1, 1, 0).astype(np.uint8) + (distance < 0.3)
    probabilities = np.stack([(labels == c) * 0.9 + rng.random(shape, dtype=np.float32) * 0.1 for c in range(3)],
                             axis=-1).astype(np.float32)
    for name, array in (("label map", labels), ("probabilities", probabilities)):
        times = []
        for _ in range(2):
            started = time.monotonic()
            write_nifti(folder / f"{name.replace(' ', '_')}.nii.gz", array, np.eye(4))
            times.append(time.monotonic() - started)
        size = (folder / f"{name.replace(' ', '_')}.nii.gz").stat().st_size
        print(f"{'x'.join(map(str, shape))} {name}: {min(times):.2f} s ({array.nbytes / 1e6:.0f} MB in memory, "
              f"{size / 1e6:.1f} MB written)", flush=True)
