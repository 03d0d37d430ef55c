"""What training's checks cost on CASES two-channel tiny cases (nnU-Net raw folder, 16^3 voxels, .nii.gz, every
file declaring mm): the pre-flight check (``check_as_configured``: every file read to its end, one thread) and the
target spacing with its unit (``settings_and_unit``: the headers the spacing checks read), data.spacing unset (the
median: the training cases' headers too) and set. Run with PYTHONPATH at the code to time (the parent commit
unpacked with ``git archive <commit> accelerated_seg | tar -x -C <folder>``); prints one JSON line: the median of
REPEATS of each and their least, page cache warm.

    PYTHONPATH=<code> python benchmarks/results/channel_units_check_cost_2026-12-05/probe.py <name>
"""
import json
import os
import statistics
import sys
import tempfile
import timeit
from pathlib import Path

import nibabel as nib
import numpy as np

import accelerated_seg
from accelerated_seg.config import DataConfig
from accelerated_seg.data.checks import check_as_configured
from accelerated_seg.data.manifest import load_manifest
from accelerated_seg.data.prepare import settings_and_unit

CASES, REPEATS, SHAPE = 200, 7, (16, 16, 16)


def write_dataset(root: Path) -> Path:
    rng = np.random.default_rng(0)
    for index in range(CASES):
        for channel in range(2):
            image = nib.Nifti1Image(rng.normal(size=SHAPE).astype(np.float32) + 2, np.diag([2.0, 2.0, 2.0, 1.0]))
            image.header.set_xyzt_units("mm")
            nib.save(image, root / "imagesTr" / f"case_{index:03d}_{channel:04d}.nii.gz")
        label = nib.Nifti1Image((rng.random(SHAPE) > 0.7).astype(np.uint8), np.diag([2.0, 2.0, 2.0, 1.0]))
        label.header.set_xyzt_units("mm")
        nib.save(label, root / "labelsTr" / f"case_{index:03d}.nii.gz")
    (root / "dataset.json").write_text(json.dumps({
        "channel_names": {"0": "T1", "1": "T2"}, "labels": {"background": 0, "tumour": 1},
        "numTraining": CASES, "file_ending": ".nii.gz"}))
    return root / "dataset.json"


def median_s(work) -> dict:
    """The median of REPEATS runs, and their least: the machine is shared, the least the nearest to the work's."""
    runs = timeit.repeat(work, number=1, repeat=REPEATS)
    return {"median": round(statistics.median(runs), 4), "least": round(min(runs), 4)}


def main(name: str) -> None:
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        (root / "imagesTr").mkdir()
        (root / "labelsTr").mkdir()
        dataset = write_dataset(root)
        data = DataConfig(dataset=str(dataset), num_workers=1)
        manifest = load_manifest(data, work)
        set_spacing = DataConfig(dataset=str(dataset), num_workers=1, spacing=(2.0, 2.0, 2.0))  # no median read
        report = check_as_configured(data, manifest)[1]
        assert not report.errors, report.errors
        out = {"code": name, "package": str(Path(accelerated_seg.__file__).parent), "cases": CASES,
               "files": 3 * CASES, "repeats": REPEATS, "load_before": os.getloadavg()[0],
               "check_s": median_s(lambda: check_as_configured(data, manifest)),
               "settings_and_unit_s": median_s(lambda: settings_and_unit(data, manifest)),
               "settings_and_unit_spacing_set_s": median_s(lambda: settings_and_unit(set_spacing, manifest)),
               "unit": settings_and_unit(data, manifest)[1], "load_after": os.getloadavg()[0]}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
