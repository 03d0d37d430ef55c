"""Surface Dice counted by boundary voxels (MONAI's default) against weighted by area (use_subvoxels,
what evaluate.binary_metrics now calls), and what the second costs.

    python benchmarks/results/probes_2cpu_2026-12-02a/surface_dice_area.py > .../surface_dice_area.json

1. One 12 mm cube against the same cube 2 mm along x, on a 1 mm grid and on 3 mm slices: the same
   shapes, so the same share of surface within 1 mm, whichever the grid.
2. Two balls (radius 30 and 29 mm, centres 2 mm apart) in a 96 x 96 x 40 grid at three spacings:
   both values, and the median of 5 timings of each.
"""

import json
import platform
import statistics
import time
import warnings

import monai
from accelerated_seg.host_cpu import cpu_summary
import numpy as np
import torch
from monai.metrics import compute_surface_dice

warnings.simplefilter("ignore", FutureWarning)


def nsd(pred, label, spacing, area):
    p, t = (torch.from_numpy(m)[None, None].float() for m in (pred, label))
    return float(compute_surface_dice(p, t, [1.0], include_background=True, spacing=[float(s) for s in spacing],
                                      use_subvoxels=area))


def cubes(thickness):
    slices = slice(6 // thickness, 18 // thickness)
    label, pred = np.zeros((2, 24, 24, 24 // thickness), bool)
    label[4:16, 6:18, slices], pred[6:18, 6:18, slices] = True, True
    return pred, label


def ball(shape, centre, radius, spacing):
    grid = np.indices(shape).astype(float)
    return sum(((grid[i] - centre[i]) * spacing[i]) ** 2 for i in range(3)) <= radius ** 2


torch.set_num_threads(2)
result = {"machine": cpu_summary() or platform.machine(),
          "command": "python benchmarks/results/probes_2cpu_2026-12-02a/surface_dice_area.py",
          "torch": torch.__version__,
          "monai": monai.__version__, "tolerance_mm": 1.0, "cube_2mm_apart": {}, "balls": []}
for thickness in (1, 3):
    pred, label = cubes(thickness)
    spacing = (1, 1, thickness)
    result["cube_2mm_apart"][f"{thickness} mm slices"] = {
        "voxel_count": round(nsd(pred, label, spacing, False), 4), "area": round(nsd(pred, label, spacing, True), 4)}
for spacing in ((1.0, 1.0, 1.0), (1.0, 1.0, 3.0), (0.7, 0.7, 5.0)):
    shape = (96, 96, 40)
    label, pred = ball(shape, (48, 48, 20), 30, spacing), ball(shape, (50, 48, 20.3), 29, spacing)
    row = {"spacing_mm": spacing}
    for name, area in (("voxel_count", False), ("area", True)):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            value = nsd(pred, label, spacing, area)
            times.append(time.perf_counter() - start)
        row[name] = round(value, 4)
        row[f"{name}_s"] = round(statistics.median(times), 3)
    row["area_cost"] = round(row["area_s"] / row["voxel_count_s"], 2)
    result["balls"].append(row)
print(json.dumps(result, indent=1))
