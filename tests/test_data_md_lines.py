"""docs/data.md's tables of the pre-flight checks' lines against what ``accelerated-seg check`` says: the "Units of
voxel size" rows' quoted lines and their "what to do" column, and the Warnings row of CT under the foreground crop.
The hundred-and-eighteenth session's rewrite (helper h93) kept a units row whose line the code had stopped saying two
sessions before (a case of no unit on micrometre numbers among cases in mm is told predict's reading, not "its voxels
are 1,000 times coarser than the spacing"), dropped the line of a case of no unit among cases in micrometres, left the
units table without what to do, and offered CT under ct with the crop set on only the ct it had (its review, r81)."""

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
    config.write_text(f"data:\n  dataset: {dataset}\n" + (f"  spacing: {spacing}\n" if spacing else ""))
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


def _table_row(table: str, begins: str) -> list[str]:
    """The cells of the row that begins ``begins`` in the table after ``table`` ("**Errors.**", "**Warnings.**")."""
    section = (ROOT / "docs" / "data.md").read_text(encoding="utf-8").split(table, 1)[1].split("\n\n**", 1)[0]
    rows = [[cell.strip() for cell in line.split(" | ")] for line in section.splitlines()
            if line.startswith("| " + begins)]
    assert len(rows) == 1, begins
    return rows[0]


@pytest.mark.parametrize("normalization, crop, way", [
    ("zscore", None, "for CT set data.normalization: ct"),
    ("ct", True, "set data.crop_foreground: false (its default under data.normalization: ct)"),
])
def test_ct_under_the_crop_is_told_the_way_the_warnings_table_gives(tmp_path, capsys, normalization, crop, way):
    """CT in Hounsfield units under the foreground crop: z-scored, told to set ct; under ct with the crop set on,
    told to set the crop off, which the rewrite's row left out (it offered ct, already set, alone)."""
    (tmp_path / "imagesTr").mkdir()
    (tmp_path / "labelsTr").mkdir()
    image = np.full(SHAPE, -1000.0, np.float32)
    image[4:12, 4:12, 2:10] = 40.0
    label = np.zeros(SHAPE, np.uint8)
    label[5:9, 5:9, 3:7] = 1
    training = []
    for n in range(2):
        nib.save(nib.Nifti1Image(image, np.eye(4)), tmp_path / "imagesTr" / f"c{n}.nii.gz")
        nib.save(nib.Nifti1Image(label, np.eye(4)), tmp_path / "labelsTr" / f"c{n}.nii.gz")
        training.append({"image": f"imagesTr/c{n}.nii.gz", "label": f"labelsTr/c{n}.nii.gz"})
    (tmp_path / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"},
                                                       "modality": {"0": "MR"}, "training": training}))
    config = tmp_path / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {tmp_path / 'dataset.json'}\n  normalization: {normalization}\n"
                      + (f"  crop_foreground: {str(crop).lower()}\n" if crop is not None else ""))
    assert main(["check", "--config", str(config)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert way in said
    _, line, remedy = _table_row("**Warnings.**", "CT in HU under the crop")
    said_pieces = [piece for piece in _quoted(line) if piece in said]
    assert said_pieces, f"no line the row quotes is said: {said}"
    assert ("data.crop_foreground: false" if normalization == "ct" else "data.normalization: ct") in remedy
    if normalization == "ct":
        assert "under `ct`, `data.crop_foreground: false`" in remedy, remedy


@pytest.mark.parametrize("broken, way", [("random_bytes_nii", "re-export or re-download"),
                                         ("other_format_nrrd", "convert it")])
def test_a_file_that_is_no_nifti_is_told_the_way_the_errors_table_gives(tmp_path, capsys, broken, way):
    """A file named .nii that holds no NIfTI is told to be re-exported or downloaded again; one of another name is
    told to convert it. The rewrite's row gave the second's line and way alone, for files named .nii or .nii.gz."""
    from broken_cases import write_corpus

    dataset, _ = write_corpus(tmp_path)[broken]
    assert main(["check", "--max-voxels", "1000", str(dataset)]) == 1
    said = " ".join(capsys.readouterr().err.split())
    _, line, remedy = _table_row("**Errors.**", "NIfTI, named so")
    assert [piece for piece in _quoted(line) if piece in said], said
    said_way = {"random_bytes_nii": "re-export or re-download this file", "other_format_nrrd": "convert the file"}
    assert said_way[broken] in said and remedy.startswith("re-export or re-download") and way in remedy
    if broken == "random_bytes_nii":
        assert "only NIfTI" not in said


def test_every_beginning_a_case_s_line_takes_is_named_above_the_errors_table(tmp_path, capsys):
    """A case whose channels and label disagree in units is told in a line beginning `c0 (image channels and label):`,
    which the Errors table's first words left out (they named the image, label, label vs image and channels' ones)."""
    (tmp_path / "imagesTr").mkdir()
    (tmp_path / "labelsTr").mkdir()
    training = []
    for n in range(3):
        units = [("unknown", 2.0), ("micron", 2000.0)] if n == 0 else [MM, MM]
        images = [_nifti(tmp_path / "imagesTr" / f"c{n}_{k:04d}.nii.gz", *unit) for k, unit in enumerate(units)]
        label = _nifti(tmp_path / "labelsTr" / f"c{n}.nii.gz", *units[0], label=True)
        training.append({"image": images, "label": label})
    (tmp_path / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"},
                                                       "modality": {"0": "T1", "1": "T2"}, "training": training}))
    said = _said(capsys, tmp_path / "dataset.json")
    roles = set(re.findall(r"error: c\d+ \(([a-z ]+)\):", said))
    assert roles == {"image channels and label"}, said
    page = " ".join((ROOT / "docs" / "data.md").read_text(encoding="utf-8").split())
    first_words = page.split("**Errors.**", 1)[1].split("| check |", 1)[0]
    assert all(f"`({role})`" in first_words for role in roles), first_words
