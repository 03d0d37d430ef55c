"""docs/data.md's "Units of voxel size" table against what ``accelerated-seg check`` says: each row's quoted line,
and a "what to do" column. The hundred-and-eighteenth session's rewrite (helper h93) kept a row whose line the code
had stopped saying two sessions before (a case of no unit on micrometre numbers among cases in mm is told predict's
reading, not "its voxels are 1,000 times coarser than the spacing"), dropped the line of a case of no unit among
cases in micrometres, and left the table without what to do (its review, r81)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.cli import main

ROOT = Path(__file__).resolve().parents[1]
SHAPE = (16, 16, 12)
MM, UM = ("mm", 2.0), ("micron", 2.0)


def _units_table() -> list[list[str]]:
    """The rows of the table under "#### Units of voxel size", each split into its cells."""
    page = (ROOT / "docs" / "data.md").read_text(encoding="utf-8")
    section = page.split("#### Units of voxel size", 1)[1]
    table = []
    for line in section.splitlines():
        if line.startswith("|"):
            table.append(line)
        elif table:  # the table's end
            break
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in table]


def _row(begins: str) -> list[str]:
    rows = [row for row in _units_table() if row[0].startswith(begins)]
    assert len(rows) == 1, f"one row of the units table begins {begins!r}: {[row[0] for row in _units_table()]}"
    return rows[0]


def _quoted(cell: str) -> list[str]:
    """The pieces of the lines a cell quotes, split where the page elides ("…"), of 12 characters or more."""
    pieces = [piece.strip(" .,;:") for span in re.findall(r"`([^`]+)`", cell) for piece in span.split("…")]
    return [piece for piece in pieces if len(piece) >= 12]


def _nifti(path: Path, unit: str, size: float, label: bool = False) -> str:
    data = np.zeros(SHAPE, np.uint8 if label else np.float32)
    if label:
        data[4:10, 4:10, 3:8] = 1
    else:
        data[...] = np.random.default_rng(0).uniform(1, 100, SHAPE)
    image = nib.Nifti1Image(data, np.diag([size, size, size, 1.0]))
    image.header.set_xyzt_units(unit)
    nib.save(image, path)
    return str(path)


def _dataset(root: Path, cases: list[tuple[str, float]]) -> Path:
    """An MSD dataset of one channel, each case's image and label in the (unit, voxel size) given."""
    (root / "imagesTr").mkdir(parents=True)
    (root / "labelsTr").mkdir()
    training = [{"image": _nifti(root / "imagesTr" / f"c{n}.nii.gz", *case),
                 "label": _nifti(root / "labelsTr" / f"c{n}.nii.gz", *case, label=True)} for n, case in enumerate(cases)]
    (root / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"}, "modality": {"0": "MR"},
                                                   "training": training, "validation": []}))
    return root / "dataset.json"


def _said(capsys, dataset: Path, spacing: list | None = None) -> str:
    config = dataset.parent / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {dataset}\n  spacing: {spacing}\n" if spacing else f"data:\n  dataset: {dataset}\n")
    assert main(["check", str(dataset), "--config", str(config)]) == 1
    captured = capsys.readouterr()
    return " ".join((captured.out + captured.err).split())


def test_the_units_table_says_what_to_do_in_every_row():
    header, _, *rows = _units_table()
    assert len(header) == 3 and header[2].startswith("what to do"), header
    assert rows and all(len(row) == 3 and row[2] for row in rows), [row[0] for row in rows if len(row) != 3]


@pytest.mark.parametrize("row, cases, spacing, told", [
    ("a spacing that reads a case in another unit", [("unknown", 2000.0)] + [MM] * 3, None,
     "rewrite …/imagesTr/c0.nii.gz from micrometres, its numbers micrometres under no unit"),
    ("a spacing that reads a case in another unit", [("unknown", 2000.0)] + [MM] * 3, [2, 2, 2],
     "rewrite …/imagesTr/c0.nii.gz from micrometres, its numbers micrometres under no unit"),
    ("a case of no unit among cases in micrometres", [("unknown", 0.002)] + [UM] * 3, None,
     "Rewrite it in micrometres"),
    ("a `data.spacing` 1,000 times finer", [MM] * 4, [0.002, 0.002, 0.002], "choose a coarser data.spacing"),
])
def test_a_case_off_by_a_unit_is_told_the_line_the_table_quotes(tmp_path, capsys, row, cases, spacing, told):
    """A case whose numbers are 1,000 times off those of cases that declare a unit, or a spacing so off: the line
    the table's row quotes is the one check says (coarser among mm: the budget's refusal in predict's words since the
    hundred-and-sixteenth session, not "its voxels are 1,000 times coarser than the spacing"; of no unit among
    micrometres: the far finer check's), with the way on."""
    said = _said(capsys, _dataset(tmp_path / "d", cases), spacing)
    for piece in _quoted(_row(row)[1]):
        assert piece in said, f"{piece!r} is not in what check says: {said}"
    assert told.replace("…", str(tmp_path / "d")) in said
