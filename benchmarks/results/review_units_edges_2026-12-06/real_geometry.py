"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python real_geometry.py <empty folder>
The review of helper h88 (r76): real datasets' geometry through training's spacing checks (``settings_and_unit``),
data.spacing unset (the median) and set, and the user errors of a data.spacing given in metres or micrometres. Headers
only matter to these checks, so each image is written with its true shape but few distinct voxels (zeros)."""
import json, sys
from pathlib import Path
import numpy as np, nibabel as nib

from accelerated_seg.config import DataConfig
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.prepare import settings_and_unit

root = Path(sys.argv[1]).absolute()
root.mkdir(exist_ok=True)


def dataset(name, cases):
    """``cases``: (case id, unit, voxel sizes (header numbers), shape)."""
    folder = root / name
    entries = []
    for case, unit, sizes, shape in cases:
        for kind in ("imagesTr", "labelsTr"):
            image = nib.Nifti1Image(np.zeros(shape, np.uint8), np.diag([*sizes, 1.0]))
            image.header.set_xyzt_units(unit)
            (folder / kind).mkdir(parents=True, exist_ok=True)
            nib.save(image, folder / kind / f"{case}.nii.gz")
        entries.append({"image": f"./imagesTr/{case}.nii.gz", "label": f"./labelsTr/{case}.nii.gz"})
    (folder / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"}, "modality": {"0": "CT"},
                                                     "training": entries}))
    return folder


def verdict(folder, spacing, max_voxels=None):
    cfg = DataConfig(spacing=spacing) if max_voxels is None else DataConfig(spacing=spacing, max_voxels=max_voxels)
    try:
        settings_and_unit(cfg, load_msd(folder / "dataset.json"))
        return "PASSES"
    except DataError as error:
        return "REFUSED: " + str(error).replace(str(root), "<root>")


if __name__ == "__main__":  # mixed_resolutions.py imports dataset and verdict
    rng = np.random.default_rng(0)
    ROWS = {
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
    print(f"{'row':22} | {'spacing':24} | verdict")
    for name, cases in ROWS.items():
        folder = dataset(name, cases)
        median = tuple(np.median([[s for s in c[2]] for c in cases], axis=0))
        for how, spacing in (("median", None), ("set x1", median), ("set x4", tuple(4 * s for s in median)),
                             ("set in metres", tuple(s / 1000 for s in median)),
                             ("set in micrometres", tuple(s * 1000 for s in median))):
            said = verdict(folder, spacing)
            print(f"{name:22} | {how:24} | {said[:1200]}")
