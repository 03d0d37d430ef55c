"""Run as (from the worktree): PYTHONPATH=. .venv/bin/python \
    benchmarks/results/review_cases_kept_2026-12-06/timing.py <empty folder>
The pre-flight's spacing checks (target_spacing_and_unit) on 1,000 cases with data.spacing set, and check_cases_kept's
own share of it (both calls, on the headers read already): best of 5 each."""
import sys
import time
from pathlib import Path

import nibabel as nib
import numpy as np

from tests.test_spacing_units_edges import dataset  # the tests' MSD writer

from accelerated_seg.config import DataConfig
from accelerated_seg.data.spacing import check_cases_kept, target_spacing_and_unit

root = Path(sys.argv[1])
manifest = dataset(root / "thousand", [(f"c{i:04d}", "mm", (0.8, 0.8, 2.5), (24, 24, 12)) for i in range(1000)])
cfg = DataConfig(spacing=(1.5, 1.5, 3.0))
for name, call in (("target_spacing_and_unit, spacing set", lambda: target_spacing_and_unit(cfg, manifest)),
                   ("target_spacing_and_unit, median", lambda: target_spacing_and_unit(DataConfig(), manifest))):
    times = []
    for _ in range(5):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    print(f"{name}: best {min(times):.3f} s, median {np.median(times):.3f} s over 1,000 cases")
headers = [(case, nib.load(str(case.images[0]))) for case in manifest.training + manifest.validation]
times = []
for _ in range(5):
    start = time.perf_counter()
    check_cases_kept(headers, cfg.spacing, "mm", scans_only=True)
    check_cases_kept(headers, cfg.spacing, "mm")
    times.append(time.perf_counter() - start)
print(f"check_cases_kept, both calls: best {min(times):.3f} s, median {np.median(times):.3f} s over 1,000 cases")
