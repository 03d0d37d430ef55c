"""Run as: cd <worktree> && PYTHONPATH=<worktree> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/predict_training_voxels_2026-12-06/median_cost.py <empty folder> > median_cost.txt
What recording the cases' median voxel size (config.json's cases_median_spacing, where data.spacing is set) costs
training's start: ``prepare.settings_and_unit`` (the headers read once, the units, budget, far finer and kept checks)
on 1,000 cases of 8^3 voxels at 1.5 mm under data.spacing 2, timed 5 times each, alternating, as it runs and with
``spacing._cases_median`` replaced by a constant (the median's orientation of every case left out), the medians of
each reported; and the median itself (``spacing._cases_median``) on those 1,000 headers, loaded once, 5 times. The
machine's load average is printed: other helpers' work shared its 2 cores."""
import os
import json
import statistics
import sys
import time
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.config import DataConfig
from accelerated_seg.data import spacing
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.prepare import settings_and_unit

root = Path(sys.argv[1]).absolute()
entries = []
for kind in ("imagesTr", "labelsTr"):
    (root / kind).mkdir(parents=True, exist_ok=True)
for index in range(1000):
    for kind in ("imagesTr", "labelsTr"):
        image = nib.Nifti1Image(np.ones((8, 8, 8), np.uint8), np.diag([1.5, 1.5, 1.5, 1.0]))
        image.header.set_xyzt_units("mm")
        nib.save(image, root / kind / f"c{index:04d}.nii.gz")
    entries.append({"image": f"./imagesTr/c{index:04d}.nii.gz", "label": f"./labelsTr/c{index:04d}.nii.gz"})
(root / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"}, "modality": {"0": "CT"},
                                               "training": entries}))
manifest = load_msd(root / "dataset.json")
real = spacing._cases_median
times = {"as it runs": [], "median left out": []}
for _ in range(5):
    for how in times:
        spacing._cases_median = real if how == "as it runs" else (lambda headers: (1.5, 1.5, 1.5))
        start = time.perf_counter()
        found = settings_and_unit(DataConfig(spacing=(2.0, 2.0, 2.0)), manifest)
        times[how].append(time.perf_counter() - start)
spacing._cases_median = real
print("recorded:", found[2])
for how, runs in times.items():
    print(f"{how:16} median {statistics.median(runs):.3f} s ({', '.join(f'{run:.3f}' for run in runs)})")
headers = [(case, nib.load(str(case.images[0]))) for case in manifest.training + manifest.validation]
runs = []
for _ in range(5):
    start = time.perf_counter()
    spacing._cases_median(headers)
    runs.append(time.perf_counter() - start)
print(f"_cases_median of 1,000 headers: median {statistics.median(runs):.3f} s ({', '.join(f'{run:.3f}' for run in runs)})")
print("load average:", os.getloadavg())
