"""Probe: the lines `accelerated-seg check` says for each row of docs/data.md's "Units of voxel size" table, so that
the table's "what to do" column is read off the lines the code says, not written from memory.

Run: cd <repo> && PYTHONPATH=. python benchmarks/results/review_data_md_2026-12-06/units_lines.py \
       > benchmarks/results/review_data_md_2026-12-06/units_lines.txt 2>&1
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

SHAPE = (16, 16, 12)


def nifti(path: Path, unit: str, size: float, label: bool = False, shape=SHAPE) -> str:
    data = np.zeros(shape, np.uint8 if label else np.float32)
    if label:
        data[4:10, 4:10, 3:8] = 1
    else:
        data[...] = np.random.default_rng(0).uniform(1, 100, shape)
    image = nib.Nifti1Image(data, np.diag([size, size, size, 1.0]))
    image.header.set_xyzt_units(unit)
    nib.save(image, path)
    return str(path)


def dataset(root: Path, cases: list[tuple[list[tuple[str, float]], tuple[str, float]]], shape=SHAPE) -> Path:
    """An MSD dataset: each case its channels' (unit, voxel size) and its label's."""
    (root / "imagesTr").mkdir(parents=True)
    (root / "labelsTr").mkdir()
    training = []
    for n, (channels, label) in enumerate(cases):
        images = [nifti(root / "imagesTr" / f"c{n}_{k:04d}.nii.gz", unit, size, shape=shape)
                  for k, (unit, size) in enumerate(channels)]
        training.append({"image": images if len(images) > 1 else images[0],
                         "label": nifti(root / "labelsTr" / f"c{n}.nii.gz", *label, label=True, shape=shape)})
    channels = len(cases[0][0])
    (root / "dataset.json").write_text(json.dumps({
        "labels": {"0": "background", "1": "a"}, "modality": {str(k): f"MR{k}" for k in range(channels)},
        "training": training, "validation": []}))
    return root / "dataset.json"


def check(title: str, path: Path, *extra: str) -> None:
    print(f"### {title}\n$ accelerated-seg check {path.name} {' '.join(extra)}")
    done = subprocess.run([sys.executable, "-m", "accelerated_seg", "check", str(path), *extra],
                          capture_output=True, text=True)
    print(done.stdout + done.stderr + f"(exit {done.returncode})\n")


MM = ("mm", 2.0)
with tempfile.TemporaryDirectory() as tmp:
    t = Path(tmp)
    check("1. cases in different units (3 in micrometres, 1 in mm)",
          dataset(t / "d1", [([("micron", 2000.0)], ("micron", 2000.0))] * 3 + [([MM], MM)]))
    check("2. a case's channels in two units (channel 1 micrometres on micrometre numbers)",
          dataset(t / "d2", [([MM, ("micron", 2000.0)], MM)] + [([MM, MM], MM)] * 3))
    check("2b. a case's label in micrometres beside images in mm",
          dataset(t / "d2b", [([MM], ("micron", 2000.0))] + [([MM], MM)] * 3))
    check("3. no unit beside micrometres, 1,000 times apart",
          dataset(t / "d3", [([("unknown", 2.0), ("micron", 2000.0)], ("unknown", 2.0))] + [([MM, MM], MM)] * 3))
    check("4. no unit beside two units, none mm (said as row 5)",
          dataset(t / "d4", [([("unknown", 2.0), ("micron", 2000.0)], ("meter", 0.002))] + [([MM, MM], MM)] * 3))
    check("4b. no unit beside mm and micrometres",
          dataset(t / "d4b", [([("unknown", 2.0), ("micron", 2000.0)], MM)] + [([MM, MM], MM)] * 3))
    check("4c. mm, micrometres and metres",
          dataset(t / "d4c", [([MM, ("micron", 2000.0)], ("meter", 0.002))] + [([MM, MM], MM)] * 3))
    check("5. none in mm (no unit, micrometres, metres)",
          dataset(t / "d5", [([("unknown", 2.0), ("micron", 2000.0)], ("meter", 0.002))]
                  + [([("unknown", 2.0), ("unknown", 2.0)], ("unknown", 2.0))] * 3))
    check("6. a case in metres under a header of mm among cases of 2 mm (far finer)",
          dataset(t / "d6", [([("mm", 0.002)], ("mm", 0.002))] + [([MM], MM)] * 3))
    check("7. a case of no unit on micrometre numbers among cases in mm (1,000 times coarser)",
          dataset(t / "d7", [([("unknown", 2000.0)], ("unknown", 2000.0))] + [([MM], MM)] * 3))
    (t / "c7.yaml").write_text(f"data:\n  dataset: {t / 'd7' / 'dataset.json'}\n  spacing: [2, 2, 2]\n")
    check("7b. the same against data.spacing 2 x 2 x 2", t / "d7" / "dataset.json", "--config", str(t / "c7.yaml"))
    um = ("micron", 2.0)
    check("7c. a case of no unit on mm numbers among cases in micrometres (1,000 times finer)",
          dataset(t / "d7c", [([("unknown", 0.002)], ("unknown", 0.002))] + [([um], um)] * 3))
    check("8. data.spacing given in metres for cases in mm",
          dataset(t / "d8", [([MM], MM)] * 4), "--config", str(t / "c8.yaml")) if (t / "c8.yaml").write_text(
        f"data:\n  dataset: {t / 'd8' / 'dataset.json'}\n  spacing: [0.002, 0.002, 0.002]\n") else None
    (t / "c9.yaml").write_text(f"data:\n  dataset: {t / 'd8' / 'dataset.json'}\n  spacing: [2000, 2000, 2000]\n")
    check("9. data.spacing given in micrometres for cases in mm (most cases under 4 voxels)",
          t / "d8" / "dataset.json", "--config", str(t / "c9.yaml"))
