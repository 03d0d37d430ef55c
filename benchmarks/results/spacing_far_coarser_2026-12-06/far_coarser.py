"""Run as (from the worktree): PYTHONPATH=. OMP_NUM_THREADS=1 .venv/bin/python \
    benchmarks/results/spacing_far_coarser_2026-12-06/far_coarser.py <empty folder>
A data.spacing far coarser than every case's voxels (given in micrometres, 1,000 times the cases' median) against
r76's real geometries (review_units_edges_2026-12-06/real_geometry.py: its datasets and verdict reused), with the
shape the first case is resampled to; and real coarsening on purpose, which must pass: the median, the median set,
4 times coarser, micro-CT of 0.05 mm at 0.5 and 1 mm, thin-slice CT of 0.7 mm at 3 mm, hippocampus crops at 2 mm."""
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1] / "review_units_edges_2026-12-06"))
sys.argv[1:] = [sys.argv[1]]
import real_geometry  # noqa: E402  (writes into sys.argv[1])
from real_geometry import dataset, verdict  # noqa: E402

from accelerated_seg.data.spacing import resampled_ras_shape  # noqa: E402

rng = np.random.default_rng(0)
ROWS = {  # r76's rows, as real_geometry.py writes them
    "liver_ct": [(f"l{i}", "mm", (x, x, z), (512, 512, n)) for i, (x, z, n) in enumerate(
        zip(rng.uniform(0.5, 1.0, 10), rng.choice([0.7, 1.0, 2.5, 5.0], 10), rng.integers(75, 400, 10)))],
    "prostate_mri": [(f"p{i}", "mm", (0.6, 0.6, 3.6), (320, 320, 20)) for i in range(6)],
    "hippocampus": [(f"h{i}", "mm", (1.0, 1.0, 1.0), (35, 50, 35)) for i in range(6)],
    "stack_1_voxel": [(f"s{i}", "mm", (0.8, 0.8, 999.0), (512, 512, 1)) for i in range(6)],
    "aniso_0.3x5": [(f"a{i}", "mm", (0.3, 0.3, 5.0), (512, 512, 40)) for i in range(6)],
    "patches_0.01": [(f"q{i}", "mm", (0.01,) * 3, (32, 32, 32)) for i in range(6)],
    "mouse_uct_10_50um": [(f"m{i}", "mm", (s,) * 3, (1000, 300, 300)) for i, s in enumerate(
        (0.01, 0.02, 0.05, 0.01, 0.02, 0.05))],
    "pet_wholebody": [(f"w{i}", "mm", (4.0, 4.0, 4.0), (128, 128, 400)) for i in range(6)],
    "ct_1e-3_single_axis": [(f"c{i}", "mm", (0.8, 0.8, 1e-3), (512, 512, 1)) for i in range(6)],
    "thin4_thick6": [(f"t{i}", "mm", (0.5,) * 3, (64, 64, 64)) for i in range(4)] +
                    [(f"k{i}", "mm", (5.0,) * 3, (64, 64, 64)) for i in range(6)],
    "two_cases_0.5_5": [("t0", "mm", (0.5,) * 3, (64, 64, 64)), ("k0", "mm", (5.0,) * 3, (64, 64, 64))],
    "one_case": [("o0", "mm", (0.005,) * 3, (64, 64, 64))],
}
ON_PURPOSE = {  # (row, cases, spacing): real coarsening on purpose
    "micro_ct_0.05_to_0.5": ([(f"u{i}", "mm", (0.05,) * 3, (400, 400, 300)) for i in range(4)], (0.5,) * 3),
    "micro_ct_0.05_to_1": ([(f"u{i}", "mm", (0.05,) * 3, (400, 400, 300)) for i in range(4)], (1.0,) * 3),
    "thin_ct_0.7_to_3": ([(f"t{i}", "mm", (0.7, 0.7, 0.7), (512, 512, 300)) for i in range(4)], (3.0,) * 3),
    "hippocampus_to_2": ([(f"h{i}", "mm", (1.0,) * 3, (35, 50, 35)) for i in range(4)], (2.0,) * 3),
}
root = real_geometry.root


def first_shape(folder, spacing):
    return " x ".join(map(str, resampled_ras_shape(sorted((folder / "imagesTr").iterdir())[0], spacing)))


print(f"{'row':22} | {'spacing':20} | first case becomes | verdict")
for name, cases in ROWS.items():
    folder = dataset(name, cases)
    median = tuple(np.median([c[2] for c in cases], axis=0))
    for how, spacing in (("median", None), ("set x1", median), ("set x4", tuple(4 * s for s in median)),
                         ("set in micrometres", tuple(s * 1000 for s in median))):
        shape = first_shape(folder, spacing or median)
        print(f"{name:22} | {how:20} | {shape:18} | {verdict(folder, spacing)[:700]}")
for name, (cases, spacing) in ON_PURPOSE.items():
    folder = dataset(name, cases)
    print(f"{name:22} | {'set ' + 'x'.join(f'{s:g}' for s in spacing):20} | {first_shape(folder, spacing):18} | "
          f"{verdict(folder, spacing)[:700]}")
