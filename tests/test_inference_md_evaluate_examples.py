"""docs/inference.md's Evaluate part ("## Evaluate" to the end) held to the code: its Python block run as written
against MONAI's own metrics computed here, and the refusals and summary keys it quotes that no other test read. The
hundred-and-twenty-fifth session's helper h138 walked the part as a new user
(benchmarks/results/sixth_new_user_walk_2026-12-07/) and found the page quoting, for a header that scales a label
map's values, words that `accelerated-seg evaluate` no longer says, a prediction holding the ignore label told only
to check the --labels that declares it, and summary.json's `regions` unlisted."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
import torch
from monai.metrics import compute_dice, compute_hausdorff_distance, compute_surface_dice

from accelerated_seg.cli import main

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "inference.md").read_text(encoding="utf-8")
EVALUATE = PAGE[PAGE.index("\n## Evaluate\n"):]
SAID = " ".join(EVALUATE.split())  # the part's words, its line breaks undone
N = 16


def _box(lo, hi) -> np.ndarray:
    mask = np.zeros((N, N, N), np.uint8)
    mask[tuple(slice(a, b) for a, b in zip(lo, hi))] = 1
    return mask


def _save(path: Path, array, spacing=(1.0, 1.0, 1.0)) -> None:
    """Written with plain nibabel, as a user's own maps are."""
    path.parent.mkdir(parents=True, exist_ok=True)
    array = np.asarray(array)
    array = array.astype(np.uint8) if array.dtype == np.int64 else array  # nibabel refuses int64 without a header
    nib.save(nib.Nifti1Image(array, np.diag([*spacing, 1.0])), path)


def _pairs(root: Path) -> None:
    """predictions/ and labelsTs/ of two cases, classes 1 and 2 (class 2 missed in case b), and a dataset.json."""
    label_a, pred_a = _box((4, 4, 4), (12, 12, 8)) + 2 * _box((1, 1, 1), (3, 3, 3)), _box((4, 4, 5), (12, 12, 9))
    pred_a = pred_a + 2 * _box((1, 1, 1), (3, 3, 4))
    _save(root / "labelsTs" / "a.nii.gz", label_a, (0.7, 0.7, 5.0))
    _save(root / "predictions" / "a.nii.gz", pred_a, (0.7, 0.7, 5.0))
    _save(root / "labelsTs" / "b.nii.gz", _box((3, 3, 3), (9, 10, 11)) + 2 * _box((12, 12, 12), (14, 14, 14)))
    _save(root / "predictions" / "b.nii.gz", _box((4, 3, 3), (9, 10, 12)))
    (root / "dataset.json").write_text(json.dumps({"labels": {"background": 0, "ball": 1, "lesion": 2}}))


def _python_block() -> str:
    return re.search(r"### Python\n\n```python\n(.*?)```", EVALUATE, re.S).group(1)


def _monai(pred: np.ndarray, label: np.ndarray, c: int, spacing, tolerance: float) -> tuple[float, float, float]:
    """Dice, HD95 and surface Dice of class ``c`` as MONAI computes them, one-hot by hand."""
    p, y = (torch.as_tensor(m == c)[None, None].float() for m in (pred, label))
    p, y = torch.cat([1 - p, p], 1), torch.cat([1 - y, y], 1)
    return (compute_dice(p, y, include_background=False, ignore_empty=False).item(),
            compute_hausdorff_distance(p, y, percentile=95, spacing=list(spacing)).item(),
            compute_surface_dice(p, y, class_thresholds=[tolerance], spacing=list(spacing),
                                 use_subvoxels=True).item())


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning")
def test_the_python_block_runs_as_written_and_its_scores_are_monais(tmp_path, monkeypatch):
    _pairs(tmp_path)
    monkeypatch.chdir(tmp_path)
    label_nifti = nib.load("labelsTs/a.nii.gz")
    label_array = np.asarray(label_nifti.dataobj)
    pred_array = np.asarray(nib.load("predictions/a.nii.gz").dataobj)
    scope = {"pred_array": pred_array, "label_array": label_array, "label_nifti": label_nifti}
    exec(_python_block(), scope)  # the page's three lines, as written
    # the Edges table's "a box one slice up on 0.7 x 0.7 x 5 mm voxels is HD95 5 mm"
    assert scope["scores"][1]["hd95_mm"] == 5.0 == _monai(pred_array, label_array, 1, (0.7, 0.7, 5.0), 1.0)[1]
    # metrics.csv: the columns the page lists, each row's numbers MONAI's (float32 ones to their shortest decimal)
    columns = re.search(r"one row per case × class: `([^`]+)`", SAID).group(1).split(", ")
    rows = list(csv.DictReader(open(tmp_path / "predictions" / "evaluation" / "metrics.csv")))
    assert list(rows[0]) == columns and len(rows) == 4
    for row in rows:
        label = nib.load(tmp_path / "labelsTs" / f"{row['case']}.nii.gz")
        pred = np.asarray(nib.load(tmp_path / "predictions" / f"{row['case']}.nii.gz").dataobj)
        c, spacing = int(row["class"]), tuple(float(s) for s in label.header.get_zooms())
        dice, hd95, nsd = _monai(pred, np.asarray(label.dataobj), c, spacing, float(row["tolerance_mm"]))
        assert float(row["tolerance_mm"]) == {1: 1.0, 2: 2.0}[c]  # tolerance_mm=[1.0, 2.0], one per class in order
        assert float(row["dice"]) == pytest.approx(dice, abs=1e-7)
        if (row["case"], c) == ("b", 2):  # one side empty: ours inf and 0 (the table), MONAI's nan
            assert (row["hd95_mm"], row["surface_dice"]) == ("inf", "0.0") and np.isnan(hd95)
        else:
            assert float(row["hd95_mm"]) == np.float32(hd95) and float(row["surface_dice"]) == np.float32(nsd)
    assert scope["summary"]["per_class"]["2"]["hd95_mm"]["n_inf"] == 1


def _command(argv: list, capsys) -> tuple[int, str]:
    status = main(["evaluate", *map(str, argv)])
    return status, " ".join(capsys.readouterr().err.split())


def test_a_header_that_scales_a_maps_values_is_refused_in_the_words_the_page_quotes(tmp_path, capsys):
    """The page quoted read_label_map's "found 1 other value(s) (1000.00000119) ...", which the command has not said
    of a scaling header since it judges the header first (before the ninety-fifth session's change, read-time)."""
    labels = _box((4, 4, 4), (8, 8, 8)).astype(np.int32) * 1000
    scaled = nib.Nifti1Image(labels, np.eye(4))
    scaled.set_data_dtype(np.uint8)  # nibabel scales 1000 into 0..255: scl_slope 3.92157
    (tmp_path / "labels").mkdir()
    nib.save(scaled, tmp_path / "labels" / "case_a.nii.gz")
    _save(tmp_path / "pred" / "case_a.nii.gz", labels)
    status, err = _command([tmp_path / "pred", tmp_path / "labels", "--num-classes", 1001], capsys)
    quoted = re.search(r"`…/case_a\.nii\.gz: (the label's voxels read as classes other than those it stores — its "
                       r"header scales .*?) \(nibabel: …\)`", SAID)
    assert quoted, "the page quotes the command's words for a scaling header"
    assert status == 2 and f"case_a.nii.gz: {quoted.group(1)} (nibabel: nib.save(" in err


def test_a_prediction_holding_the_ignore_label_is_told_it_is_the_ignore_label(tmp_path, capsys):
    """It was told "label value(s) [3] are not among the classes scored [0, 1, 2]; check --num-classes / --labels, or
    the file" alone, the --labels given declaring 3 the ignore label; a prediction of 0 and 3 alone was offered
    --merge-foreground too, which leaves the ignore value out."""
    label = _box((4, 4, 4), (8, 8, 8)) + 2 * _box((10, 10, 10), (12, 12, 12))
    _save(tmp_path / "labels" / "a.nii.gz", label)
    (tmp_path / "dataset.json").write_text(json.dumps({"labels": {"background": 0, "ball": 1, "lesion": 2,
                                                                  "ignore": 3}}))
    quoted = re.search(r"A prediction holding that value is an error naming it: `…: (label value.*?)`", SAID).group(1)
    for name, prediction in (("some", np.where(label == 2, 3, label)), ("only", np.where(label > 0, 3, 0))):
        _save(tmp_path / name / "a.nii.gz", prediction)
        status, err = _command([tmp_path / name, tmp_path / "labels", "--labels", tmp_path / "dataset.json"], capsys)
        assert status == 2 and err.endswith(f"a.nii.gz: {quoted}"), err
        assert "--merge-foreground" not in err


def test_a_prediction_of_many_unknown_values_lists_the_ignore_value_the_refusal_names(tmp_path):
    """The refusal lists the first eight unknown values: an ignore value above them (255 beside 3, ..., 14) was named
    by the ignore clause alone, not in the list (review r117 of h138's change)."""
    from accelerated_seg.data.errors import DataError
    from accelerated_seg.evaluate_classes import require_known_values
    from accelerated_seg.evaluate_setting_names import SettingNames

    prediction = np.arange(16).reshape(2, 2, 4)
    prediction[0, 0, 0] = 255
    with pytest.raises(DataError) as refused:
        require_known_values(prediction, tmp_path / "a.nii.gz", [1, 2], SettingNames(), prediction=True,
                             ignore_value=255)
    assert str(refused.value).startswith(f"{tmp_path / 'a.nii.gz'}: label value(s) [3, 4, 5, 6, 7, 8, 9, 255] are not "
                                         f"among the classes scored [0, 1, 2]")
    assert "; 255 is the ignore label" in str(refused.value)
    with pytest.raises(DataError, match=r"label value\(s\) \[3, 4, 5, 6, 7, 8, 9, 10\] are not among .* or the file$"):
        require_known_values(prediction, tmp_path / "a.nii.gz", [1, 2], SettingNames(), prediction=True)


def test_the_merge_beside_labels_of_several_classes_or_num_classes_3_is_refused_before_any_map_is_read(tmp_path,
                                                                                                       capsys):
    _pairs(tmp_path)
    assert "beside `--num-classes` other than 2, or beside a `--labels` naming several classes" in SAID
    pred, labels = tmp_path / "predictions", tmp_path / "labelsTs"
    status, err = _command([pred, labels, "--merge-foreground", "--labels", tmp_path / "dataset.json"], capsys)
    assert status == 2 and err == (f"error: {tmp_path / 'dataset.json'} names the classes [1, 2], but "
                                   f"--merge-foreground scores every foreground value as class 1: drop one of the two")
    status, err = _command([pred, labels, "--merge-foreground", "--num-classes", 3], capsys)
    assert status == 2 and err == ("error: merging the references' foreground into class 1 leaves two classes, not "
                                   "--num-classes 3: drop one of the two")
    assert not (pred / "evaluation").exists()


def test_summary_json_holds_the_keys_the_page_lists_regions_among_them(tmp_path, capsys):
    _pairs(tmp_path)
    (tmp_path / "dataset.json").write_text(json.dumps({"labels": {"background": 0, "whole": [1, 2], "core": 2},
                                                       "regions_class_order": [1, 2]}))
    assert _command([tmp_path / "predictions", tmp_path / "labelsTs", "--labels", tmp_path / "dataset.json"],
                    capsys)[0] == 0
    summary = json.loads((tmp_path / "predictions" / "evaluation" / "summary.json").read_text())
    listed = re.search(r"`summary\.json` \(strict JSON: no `Infinity` or `NaN`\): (.*?) - `metrics|"
                       r"`summary\.json` \(strict JSON: no `Infinity` or `NaN`\): (.*?)The command prints", SAID)
    keys = set(re.findall(r"`(\w+)`", listed.group(1) or listed.group(2)))
    assert set(summary) <= keys, sorted(set(summary) - keys)
    assert summary["regions"] == {"names": ["whole", "core"], "values": [[1, 2], [2]], "order": [1, 2]}
    assert '"values": [[1, 2], [2]]' in SAID
