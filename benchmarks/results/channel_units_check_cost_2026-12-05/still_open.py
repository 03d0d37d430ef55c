"""What training's checks still say of files whose units disagree where a header declares none, and of labels'
units (the Open entry of docs/known_issues.md): writes tiny two-channel nnU-Net raw folders (4 cases, 8^3 voxels of
2 mm, every file declaring mm but the one named) and prints, for each, ``accelerated-seg check``'s exit status and
error lines, and the unit the target spacing records.

    PYTHONPATH=<code> python benchmarks/results/channel_units_check_cost_2026-12-05/still_open.py
"""
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.cli import main
from accelerated_seg.config import DataConfig
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.prepare import prepare_manifest, settings_and_unit

# name -> {file of case_002: (its unit, its numbers times this)}; every other file declares mm unless "all unitless"
SITUATIONS = {
    "ch0 none (mm numbers), ch1 micrometres (micrometre numbers), others mm":
        {"_0000": ("unknown", 1.0), "_0001": ("micron", 1000.0)},
    "ch0 none (mm numbers), ch1 micrometres (micrometre numbers), all others none":
        {"_0000": ("unknown", 1.0), "_0001": ("micron", 1000.0), "all unitless": True},
    "label micrometres (micrometre numbers), images mm": {"": ("micron", 1000.0)},
    "label micrometres (the images' numbers), images mm": {"": ("micron", 1.0)},
}


def write(root: Path, odd: dict) -> Path:
    rng = np.random.default_rng(0)
    for folder in ("imagesTr", "labelsTr"):
        (root / folder).mkdir(parents=True)
    for index in range(4):
        case = f"case_{index:03d}"
        for suffix in ("_0000", "_0001", ""):
            label = suffix == ""
            unit, scale = ("unknown" if odd.get("all unitless") else "mm"), 1.0
            if case == "case_002" and suffix in odd:
                unit, scale = odd[suffix]
            voxels = (rng.random((8, 8, 8)) > 0.7).astype(np.uint8) if label else rng.random((8, 8, 8)) + 1
            image = nib.Nifti1Image(voxels.astype(np.uint8 if label else np.float32), np.diag([2.0 * scale] * 3 + [1]))
            image.header.set_xyzt_units(unit)
            nib.save(image, root / ("labelsTr" if label else "imagesTr") / f"{case}{suffix}.nii.gz")
    (root / "dataset.json").write_text(json.dumps({"channel_names": {"0": "T1", "1": "T2"}, "numTraining": 4,
                                                   "labels": {"background": 0, "tumour": 1},
                                                   "file_ending": ".nii.gz"}))
    return root / "dataset.json"


def errors(text: str, folder: str) -> list[str]:
    """Every error line check printed, its temporary folder left out, cut at 160 characters."""
    return [line.replace(folder, "")[:160] for line in text.splitlines() if line.startswith("error:")]


for name, odd in SITUATIONS.items():
    with tempfile.TemporaryDirectory() as work:
        dataset = write(Path(work) / "data", odd)
        said = io.StringIO()
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
            status = main(["check", str(dataset)])
        try:
            unit = settings_and_unit(DataConfig(), prepare_manifest(DataConfig(dataset=str(dataset)), work)[0])[1]
        except DataError as refused:
            unit = "refused: " + str(refused).replace(f"{work}/", "")[:160]
        print(json.dumps({"situation": name, "check_exit": status,
                          "check_errors": errors(said.getvalue(), f"{work}/data/"), "unit": unit}), file=sys.stdout)
