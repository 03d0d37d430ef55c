"""Run as (from the worktree): PYTHONPATH=. OMP_NUM_THREADS=1 .venv/bin/python \
    benchmarks/results/spacing_far_coarser_2026-12-06/far_coarser.py <empty folder>
A data.spacing far coarser than every case's voxels (given in micrometres, 1,000 times the cases' median) against
r76's real geometries (review_units_edges_2026-12-06/real_geometry.py: its datasets and verdict reused), with the
shape the first case is resampled to; and real coarsening on purpose, which must pass: the median, the median set,
4 times coarser, micro-CT of 0.05 mm at 0.5 and 1 mm, thin-slice CT of 0.7 mm at 3 mm, hippocampus crops at 2 mm."""
import ast
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1] / "review_units_edges_2026-12-06"))
sys.argv[1:] = [sys.argv[1]]
import real_geometry  # noqa: E402  (writes into sys.argv[1])
from real_geometry import dataset, verdict  # noqa: E402

from accelerated_seg.data.spacing import resampled_ras_shape  # noqa: E402


def r76_rows() -> dict:
    """r76's ROWS, read from real_geometry.py's own text (they sit under its ``__main__``), so that they cannot drift."""
    tree = ast.parse(Path(real_geometry.__file__).read_text())
    main = next(node for node in tree.body if isinstance(node, ast.If))
    assigned = next(node for node in main.body if isinstance(node, ast.Assign) and node.targets[0].id == "ROWS")
    return eval(compile(ast.Expression(assigned.value), "real_geometry.py", "eval"),
                {"rng": np.random.default_rng(0), "np": np})


ROWS = r76_rows()
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
