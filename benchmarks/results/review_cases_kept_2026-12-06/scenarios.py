"""Run as (from the worktree): PYTHONPATH=. .venv/bin/python \
    benchmarks/results/review_cases_kept_2026-12-06/scenarios.py <empty folder>
Real datasets with a data.spacing set, against check_cases_kept (h92): each row's verdict from settings_and_unit,
the pre-flight training, fit and `accelerated-seg check` share."""
import sys
from pathlib import Path

from tests.test_spacing_units_edges import dataset  # the tests' MSD writer: (case id, unit, voxel sizes, shape)

from accelerated_seg.config import DataConfig
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.prepare import settings_and_unit

root = Path(sys.argv[1])


ROWS = {
    "slice_stack_2d_1vox": ([("s", "mm", (0.5, 0.5, 5.0), (256, 256, 1))], (1.0, 1.0, 5.0)),
    "slice_stack_2d_iso2": ([("s", "mm", (0.5, 0.5, 5.0), (256, 256, 1))], (2.0, 2.0, 2.0)),
    "patches_16_at_1_to_2": ([("q", "mm", (1.0,) * 3, (16, 16, 16))], (2.0,) * 3),
    "patches_16_at_1_to_4": ([("q", "mm", (1.0,) * 3, (16, 16, 16))], (4.0,) * 3),
    "patches_8_at_1_to_2": ([("q", "mm", (1.0,) * 3, (8, 8, 8))], (2.0,) * 3),
    "aniso_0.5x0.5x5_to_5": ([("a", "mm", (0.5, 0.5, 5.0), (512, 512, 30))], (5.0,) * 3),
    "thin_axis_to_5": ([("a", "mm", (0.5, 0.5, 5.0), (512, 512, 3))], (5.0,) * 3),
    "micro_ct_100x_2000": ([("u", "mm", (0.01,) * 3, (2000, 300, 8))], (1.0,) * 3),
    "unitless_prostate_um": ([("p", "unknown", (0.6, 0.6, 3.6), (320, 320, 20))], (600.0, 600.0, 3600.0)),
    "mm_prostate_um": ([("p", "mm", (0.6, 0.6, 3.6), (320, 320, 20))], (600.0, 600.0, 3600.0)),
    "metres_crops_spacing_mm": ([("h", "meter", (0.001,) * 3, (35, 50, 35))], (1.0,) * 3),
    "metres_prostate_spacing_mm": ([("p", "meter", (0.0006, 0.0006, 0.0036), (320, 320, 20))], (0.6, 0.6, 3.6)),
    "micron_hdr_prostate_spacing_m": ([("p", "micron", (600.0, 600.0, 3600.0), (320, 320, 20))], (0.6, 0.6, 3.6)),
    "micron_hdr_prostate_spacing_mm_x1000": ([("p", "micron", (600.0, 600.0, 3600.0), (320, 320, 20))],
                                             (600000.0, 600000.0, 3600000.0)),
}
HALF = {  # half tiny crops, half whole scans
    "half_crops_half_scans": ([("c", "mm", (1.0,) * 3, (6, 6, 6))] * 1, [("w", "mm", (1.0,) * 3, (256, 256, 100))],
                              (4.0,) * 3),
}


def verdict(manifest, spacing) -> str:
    try:
        settings_and_unit(DataConfig(spacing=spacing), manifest)
        return "PASS"
    except DataError as error:
        return "REFUSED: " + str(error)[:900]


for name, (cases, spacing) in ROWS.items():
    manifest = dataset(root / name, [(f"{c}{i}", *rest) for i in range(4) for c, *rest in cases])
    print(f"{name} spacing {spacing}: {verdict(manifest, spacing)}\n")
for name, (small, whole, spacing) in HALF.items():
    for n_small, n_whole in ((2, 2), (3, 1)):
        cases = [(f"c{i}", *small[0][1:]) for i in range(n_small)] + [(f"w{i}", *whole[0][1:]) for i in range(n_whole)]
        manifest = dataset(root / f"{name}_{n_small}_{n_whole}", cases)
        print(f"{name} {n_small} crops of 6^3 {n_whole} whole, spacing {spacing}: {verdict(manifest, spacing)}\n")
