"""Metrics with known geometry (evaluate.py) and the ``evaluate`` command over folders of NIfTI files."""

import csv
import errno
import json
import os
import shutil
import math
import re
import signal
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
import torch

from accelerated_seg.cli import main
from accelerated_seg.data.errors import DataError
from accelerated_seg.evaluate import (
    case_metrics,
    evaluate_folders,
    float32_as_decimal,
    match_cases,
    shear_degrees,
    statistics,
    tolerances,
    voxel_spacing,
)
from broken_cases import with_header_affine  # tests/ is on sys.path, as for conftest
from terminated_mid_work import run_terminated

# Anisotropic, axis-permuted and flipped grid: voxel sizes 1.0 / 1.5 / 2.5 mm along the array axes.
SPACING = (1.0, 1.5, 2.5)
AFFINE = np.array([[0, 0, 2.5, -30], [-1.0, 0, 0, 20], [0, 1.5, 0, -12], [0, 0, 0, 1]])
SHAPE = (60, 50, 40)
RADIUS_MM = 14.0


def sphere(centre_mm, radius_mm=RADIUS_MM, shape=SHAPE, spacing=SPACING) -> np.ndarray:
    """Voxels whose centre lies within the sphere; coordinates in mm along the array axes."""
    grid = np.stack(np.meshgrid(*[np.arange(n) * s for n, s in zip(shape, spacing)], indexing="ij"), -1)
    return (np.linalg.norm(grid - np.asarray(centre_mm), axis=-1) <= radius_mm).astype(np.uint8)


def save(path, array, affine=AFFINE):
    """Write with plain nibabel, so the fixtures do not depend on the code under test."""
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(np.asarray(array), affine), path)
    return path


def _replace_in_every_evaluate_module(monkeypatch, name: str, replacement) -> None:
    """``name`` (a reader) replaced wherever evaluate's modules call it: the split of the ninety-sixth session put
    class discovery's read_label_map in evaluate_classes, out of reach of a test replacing evaluate's alone."""
    import importlib

    for module in ("evaluate", "evaluate_cases", "evaluate_classes", "evaluate_grids", "evaluate_output",
                   "label_map_reading"):
        module = importlib.import_module(f"accelerated_seg.{module}")
        if hasattr(module, name):
            monkeypatch.setattr(module, name, replacement)


def test_voxel_spacing_comes_from_the_affine_whatever_the_axis_order():
    assert voxel_spacing(AFFINE) == pytest.approx(SPACING)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_spheres_offset_by_known_mm_give_the_expected_hd95_and_dice(axis):
    offset_mm = 8.0
    centre = np.array([30.0, 37.0, 50.0])
    shifted = centre.copy()
    shifted[axis] += offset_mm
    pred, label = sphere(shifted), sphere(centre)

    scores = case_metrics(pred, label, 2, SPACING, tolerance_mm=1.0)[1]

    # Surface points of one sphere lie |offset * cos(theta)| from the other's surface, cos(theta)
    # uniform on [-1, 1]: the 95th percentile is 0.95 * offset, up to one voxel of discretisation.
    assert scores["hd95_mm"] == pytest.approx(0.95 * offset_mm, abs=max(SPACING))
    # Dice by hand from the voxel counts, and close to the analytic overlap of two balls.
    both = int(np.logical_and(pred, label).sum())
    assert scores["dice"] == pytest.approx(2 * both / (pred.sum() + label.sum()), abs=1e-12)
    lens = math.pi * (4 * RADIUS_MM + offset_mm) * (2 * RADIUS_MM - offset_mm) ** 2 / 12  # intersection volume
    analytic = lens / (4 / 3 * math.pi * RADIUS_MM**3)
    assert scores["dice"] == pytest.approx(analytic, abs=0.03)
    assert 0.0 < scores["surface_dice"] < 1.0
    assert (scores["label_voxels"], scores["pred_voxels"]) == (int(label.sum()), int(pred.sum()))


def test_distances_use_the_spacing_not_voxel_counts():
    centre = np.array([30.0, 37.0, 50.0])
    pred, label = sphere(centre + [0, 0, 10.0]), sphere(centre)  # 4 slices of 2.5 mm apart
    in_mm = case_metrics(pred, label, 2, SPACING)[1]["hd95_mm"]
    in_voxels = case_metrics(pred, label, 2, (1.0, 1.0, 1.0))[1]["hd95_mm"]
    assert in_mm == pytest.approx(9.5, abs=2.5) and in_voxels == pytest.approx(3.8, abs=1.0)


def test_identical_masks_score_perfectly_and_tolerance_widens_surface_dice():
    label = sphere([30.0, 37.0, 50.0])
    assert case_metrics(label, label, 2, SPACING)[1] | {"label_voxels": 0, "pred_voxels": 0} == {
        "dice": 1.0, "hd95_mm": 0.0, "surface_dice": 1.0, "label_voxels": 0, "pred_voxels": 0}
    pred = sphere([33.0, 37.0, 50.0])
    tight, loose = (case_metrics(pred, label, 2, SPACING, tolerance_mm=t)[1]["surface_dice"] for t in (1.0, 10.0))
    assert 0.0 <= tight < loose == 1.0


def test_surface_dice_weights_the_surface_by_area_so_the_slice_thickness_does_not_move_it():
    """One 12 mm cube against the same cube 2 mm along x, drawn on a 1 mm grid and on 3 mm slices: the
    same shapes, the same share of surface within 1 mm. Counting boundary voxels (MONAI's default),
    the thick slices' fewer side-face voxels read 0.830 against 0.714 (eighty-third session's audit)."""
    scores = []
    for thickness in (1, 3):
        slices = slice(6 // thickness, 18 // thickness)
        label, pred = np.zeros((2, 24, 24, 24 // thickness), np.uint8)
        label[4:16, 6:18, slices], pred[6:18, 6:18, slices] = 1, 1
        scores.append(case_metrics(pred, label, 2, (1.0, 1.0, float(thickness)), tolerance_mm=1.0)[1]["surface_dice"])
    assert scores[0] == pytest.approx(scores[1], abs=0.01) and 0.6 < scores[0] < 0.8


@pytest.mark.parametrize("pred_empty,label_empty,expected", [
    (True, True, {"dice": 1.0, "hd95_mm": 0.0, "surface_dice": 1.0}),
    (True, False, {"dice": 0.0, "hd95_mm": math.inf, "surface_dice": 0.0}),
    (False, True, {"dice": 0.0, "hd95_mm": math.inf, "surface_dice": 0.0}),
])
def test_empty_mask_conventions(pred_empty, label_empty, expected):
    mask = np.zeros((12, 12, 12), np.uint8)
    mask[3:7, 3:7, 3:7] = 1
    pred = np.zeros_like(mask) if pred_empty else mask
    label = np.zeros_like(mask) if label_empty else mask
    scores = case_metrics(pred, label, 2, (1.0, 1.0, 1.0))[1]
    assert {k: scores[k] for k in expected} == expected


def test_dice_matches_monai_compute_dice_including_empty_classes_with_or_without_distances():
    from monai.metrics import compute_dice
    from monai.networks.utils import one_hot

    rng = np.random.default_rng(0)
    for trial in range(4):
        label = rng.integers(0, 3, size=(10, 9, 8))
        pred = np.where(rng.random(label.shape) < 0.3, rng.integers(0, 3, size=label.shape), label)
        if trial == 3:  # class 2 absent from both: 1 in both conventions
            label[label == 2], pred[pred == 2] = 0, 0
        monai_dice = compute_dice(one_hot(torch.from_numpy(pred)[None, None], 4),
                                  one_hot(torch.from_numpy(label)[None, None], 4),
                                  include_background=False, ignore_empty=False)[0]
        full = case_metrics(pred, label, 4, (1.0, 1.0, 1.0))
        dice_only = case_metrics(pred, label, 4, (1.0, 1.0, 1.0), distances=False)  # validation's default
        np.testing.assert_allclose([full[c]["dice"] for c in (1, 2, 3)], monai_dice.numpy(), atol=1e-6)
        assert all(dice_only[c]["dice"] == full[c]["dice"] and "hd95_mm" not in dice_only[c] for c in (1, 2, 3))


def test_case_metrics_accepts_training_shaped_tensors():
    label = torch.zeros(1, 1, 8, 8, 8, dtype=torch.long)
    label[..., 2:5, 2:5, 2:5] = 1
    assert case_metrics(label, label, 2, (1.0, 1.0, 1.0))[1]["dice"] == 1.0


def test_statistics_keep_infinite_and_nan_values_out_of_the_mean_and_count_them():
    stats = statistics([2.0, 4.0, math.inf, math.nan])
    assert (stats["mean"], stats["std"], stats["n"], stats["n_inf"], stats["n_nan"]) == (3.0, 1.0, 2, 1, 1)
    assert statistics([math.inf])["mean"] is None


def test_statistics_are_the_exact_mean_and_spread_of_the_values_as_written():
    """numpy's running sums read three cases of HD95 0.7 mm as a mean of 0.6999999999999998 and a std of 1.1e-16,
    a spread that is not there; the mean and std are now those of the decimals metrics.csv writes, rounded once."""
    assert (statistics([0.7] * 3)["mean"], statistics([0.7] * 3)["std"]) == (0.7, 0.0)
    assert [statistics([0.1, 0.2, math.nan])[s] for s in ("mean", "std", "median")] == [0.15, 0.05, 0.15]
    assert statistics([2 / 3, 1.0, 0.0, math.inf])["mean"] == pytest.approx(5 / 9, rel=1e-15)


def test_tolerances_one_for_all_one_per_class_or_a_mapping():
    assert tolerances(2.0, [1, 2]) == {1: 2.0, 2: 2.0}
    assert tolerances([1.0, 3.0], [1, 2]) == {1: 1.0, 2: 3.0}
    assert tolerances({1: 0.5, 2: 1.5}, [1, 2]) == {1: 0.5, 2: 1.5}
    with pytest.raises(ValueError, match="one per class"):
        tolerances([1.0, 2.0, 3.0], [1, 2])
    with pytest.raises(ValueError, match=">= 0"):
        tolerances(-1.0, [1])


# --------------------------------------------------------------------------------------------------
# Edges, against hand counts and independent computations (ninety-third session's audit)
# --------------------------------------------------------------------------------------------------

THICK = (0.7, 0.7, 5.0)  # thick slices: one voxel along z is 5 mm, along x 0.7 mm


def box(shape, where) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    mask[where] = 1
    return mask


def hd95_by_hand(pred, label, spacing) -> float:
    """The larger directed 95th percentile of surface-voxel distances, by scipy alone: a surface voxel is a
    mask voxel with a 6-neighbour outside it, the volume's border counting as outside."""
    from scipy.ndimage import binary_erosion, distance_transform_edt

    def surface(mask):
        mask = mask.astype(bool)
        return mask & ~binary_erosion(mask, border_value=0)

    def directed(a, b):
        return np.percentile(distance_transform_edt(~surface(b), sampling=spacing)[surface(a)], 95)

    return float(max(directed(pred, label), directed(label, pred)))


def test_a_one_voxel_shift_across_thick_slices_counts_the_slice_thickness_in_mm():
    """A flat 8 x 8 x 3 box and the same box one voxel up: the 64 bottom-face voxels (41% of the surface) are
    5 mm from the other surface, so HD95 is 5 mm, not 1 voxel; one voxel along x is 0.7 mm."""
    label = box((12, 12, 8), np.s_[2:10, 2:10, 2:5])
    up = case_metrics(box((12, 12, 8), np.s_[2:10, 2:10, 3:6]), label, 2, THICK, tolerance_mm=1.0)[1]
    assert up["hd95_mm"] == 5.0 and up["dice"] == pytest.approx(2 / 3)
    along_x = box((12, 12, 8), np.s_[3:11, 2:10, 2:5])
    assert case_metrics(along_x, label, 2, THICK)[1]["hd95_mm"] == 0.7  # not float32's 0.699999988079071
    # The tolerance is in mm and inclusive: the faces 5 mm apart are within 5 mm, not within 4.99 mm or 1 mm
    # (1 mm read as one voxel would take them in too)
    nsd = {t: case_metrics(along_x if t < 1 else box((12, 12, 8), np.s_[2:10, 2:10, 3:6]), label, 2, THICK,
                           tolerance_mm=t)[1]["surface_dice"] for t in (0.69, 0.7, 1.0, 4.99, 5.0)}
    assert nsd[0.7] == 1.0 and nsd[5.0] == 1.0 and nsd[0.69] < 1.0 and nsd[1.0] < nsd[4.99] < 1.0


def test_evaluate_reads_the_slice_thickness_from_the_affine_whatever_the_axis_holding_it(tmp_path):
    """The same shifted box saved with its 5 mm axis first and flipped: 5 mm in metrics.csv, as on the array."""
    label = box((8, 12, 12), np.s_[2:5, 2:10, 2:10])
    pred = box((8, 12, 12), np.s_[3:6, 2:10, 2:10])
    affine = np.array([[0, 0.7, 0, 0], [0, 0, -0.7, 0], [5.0, 0, 0, 0], [0, 0, 0, 1]])
    save(tmp_path / "labels" / "a.nii.gz", label, affine)
    save(tmp_path / "pred" / "a.nii.gz", pred, affine)
    evaluate_folders(tmp_path / "pred", tmp_path / "labels", num_classes=2, tolerance_mm=5.0)
    (row,) = csv.DictReader((tmp_path / "pred" / "evaluation" / "metrics.csv").open())
    assert (float(row["hd95_mm"]), float(row["surface_dice"]), float(row["dice"])) == (5.0, 1.0, pytest.approx(2 / 3))


def test_distances_are_reported_as_the_shortest_decimal_of_monais_float32_without_losing_any_of_it(tmp_path):
    """MONAI measures in float32: a 0.7 mm HD95 came out as 0.699999988079071 in metrics.csv and summary.json. Each
    distance is written as the shortest decimal that reads back as MONAI's float32, so 0.7, and 0.6666667 for a
    surface Dice of 2/3 measured in float32, never more digits than float32 holds nor fewer than tell it apart."""
    from monai.metrics import compute_hausdorff_distance, compute_surface_dice

    label = box((12, 12, 8), np.s_[2:10, 2:10, 2:5])
    along_x = box((12, 12, 8), np.s_[3:11, 2:10, 2:5])
    affine = np.diag([0.7, 0.7, 5.0, 1.0])  # a NIfTI header holds float32: the spacing read is 0.699999988079071
    save(tmp_path / "labels" / "a.nii.gz", label, affine)
    save(tmp_path / "pred" / "a.nii.gz", along_x, affine)
    summary = evaluate_folders(tmp_path / "pred", tmp_path / "labels", num_classes=2, tolerance_mm=0.5)
    text = (tmp_path / "pred" / "evaluation" / "metrics.csv").read_text()
    (row,) = csv.DictReader(text.splitlines())
    assert row["hd95_mm"] == "0.7" and summary["per_class"]["1"]["hd95_mm"]["mean"] == 0.7
    assert "0.699999988" not in text + (tmp_path / "pred" / "evaluation" / "summary.json").read_text()
    # nothing of MONAI's float32 is lost: each number reads back as exactly the float32 MONAI gave
    p, t = (torch.from_numpy(m)[None, None] for m in (along_x, label))
    spacing = list(voxel_spacing(affine.astype(np.float32)))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*always_return_as_numpy.*", category=FutureWarning)
        hd95 = compute_hausdorff_distance(p, t, include_background=True, percentile=95, spacing=spacing)
        nsd = compute_surface_dice(p.float(), t.float(), [0.5], include_background=True, spacing=spacing,
                                   use_subvoxels=True)
    assert np.float32(row["hd95_mm"]) == hd95.item() and np.float32(row["surface_dice"]) == nsd.item()
    assert 0 < float(row["surface_dice"]) < 1 and row["surface_dice"] == np.format_float_positional(
        np.float32(nsd.item()), unique=True)
    assert len(row["surface_dice"]) < len(repr(nsd.item()))  # float32's shortest form, not its float64 expansion


def test_scoring_in_a_loop_changes_no_warning_filter_and_leaves_monais_future_warning_unsaid():
    """binary_metrics quiets MONAI's FutureWarning of its own deprecated argument. In a catch_warnings at each case,
    whose entry and exit reset what Python keeps of the lines that said a warning, a warning of the caller's said once
    before the scoring was said again after it, at every call of a loop of Segmentation.evaluate (until r118's
    review, own_warnings.quieted). MONAI's words still unsaid, under "always" too."""
    from accelerated_seg.evaluate import binary_metrics

    pred, label = np.zeros((8, 8, 8), bool), np.zeros((8, 8, 8), bool)
    pred[2:6, 2:6, 2:6], label[3:7, 2:6, 2:6] = True, True
    with warnings.catch_warnings():  # MONAI's metrics imported first: their import changes the filters, once
        warnings.simplefilter("ignore")
        binary_metrics(pred, label, (1.0, 1.0, 1.0), 1.0, distances=True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        for _ in range(3):
            warnings.warn("a warning of the caller's, once at its line", UserWarning)
            assert 0 < binary_metrics(pred, label, (1.0, 1.0, 1.0), 1.0, distances=True)["hd95_mm"]
    assert [str(warning.message) for warning in seen] == ["a warning of the caller's, once at its line"]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        filters = list(warnings.filters)
        binary_metrics(pred, label, (1.0, 1.0, 1.0), 1.0, distances=True)
        assert warnings.filters == filters
    assert not [w for w in seen if "always_return_as_numpy" in str(w.message)], [str(w.message) for w in seen]


def test_float32_as_decimal_keeps_every_float32_bit():
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.random(2000) * 10.0 ** rng.integers(-6, 6, 2000), [0.0, 0.7, 5.0, 1 / 3]])
    for value in values.astype(np.float32):
        written = float32_as_decimal(float(value))
        assert np.float32(written) == value and len(repr(written)) <= len(repr(float(value)))
    assert float32_as_decimal(math.inf) == math.inf and math.isnan(float32_as_decimal(math.nan))
    assert [float32_as_decimal(float(np.float32(v))) for v in (0.7, 2 / 3, 12.1)] == [0.7, 0.6666667, 12.1]


def test_a_one_voxel_object():
    one = box((5, 5, 5), np.s_[2, 2, 2])
    assert case_metrics(one, one, 2, THICK)[1] == {"dice": 1.0, "hd95_mm": 0.0, "surface_dice": 1.0,
                                                   "label_voxels": 1, "pred_voxels": 1}
    above = box((5, 5, 5), np.s_[2, 2, 3])
    tight, wide = (case_metrics(above, one, 2, THICK, tolerance_mm=t)[1] for t in (1.0, 5.0))
    assert (tight["dice"], tight["hd95_mm"], wide["hd95_mm"], wide["surface_dice"]) == (0.0, 5.0, 5.0, 1.0)
    # Surface Dice counts the surface by area at the voxels' corners (DeepMind's surface-distance): the face the
    # two voxels share is within any tolerance, and by symmetry it holds half of each voxel's surface.
    assert tight["surface_dice"] == pytest.approx(0.5)


def test_an_object_touching_the_border_has_its_surface_there_as_if_the_volume_went_on_empty():
    """Cut by the volume's edge, a mask's surface runs along it (as MONAI and DeepMind pad with background): the
    scores are those of the same masks inside a larger empty volume."""
    label = box((8, 8, 6), np.s_[0:4, 0:5, 0:3])
    pred = box((8, 8, 6), np.s_[0:5, 0:5, 0:2])
    at_border = case_metrics(pred, label, 2, THICK, tolerance_mm=1.0)[1]
    inside = case_metrics(np.pad(pred, 3), np.pad(label, 3), 2, THICK, tolerance_mm=1.0)[1]
    assert at_border == inside and at_border["hd95_mm"] == 5.0
    assert at_border["hd95_mm"] == pytest.approx(hd95_by_hand(pred, label, THICK), rel=1e-6)


@pytest.mark.filterwarnings("ignore:.*always_return_as_numpy:FutureWarning")  # MONAI's own call, as binary_metrics
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_distances_match_scipy_by_hand_and_monai_on_the_whole_volume(seed):
    """Irregular blobs on thick slices, some touching the border: HD95 as scipy computes it by hand, and both
    distances as MONAI computes them on the uncropped volume (case_metrics crops to the masks first)."""
    from monai.metrics import compute_hausdorff_distance, compute_surface_dice
    from scipy.ndimage import gaussian_filter

    rng = np.random.default_rng(seed)
    field = gaussian_filter(rng.normal(size=(24, 20, 8)), (2.0, 2.0, 0.5))
    label = (field > 0.05).astype(np.uint8)
    pred = (gaussian_filter(field + 0.1 * rng.normal(size=field.shape), 0.7) > 0.0).astype(np.uint8)
    ours = case_metrics(pred, label, 2, THICK, tolerance_mm=2.0)[1]
    p, t = (torch.from_numpy(m)[None, None] for m in (pred, label))
    monai_hd95 = float(compute_hausdorff_distance(p, t, include_background=True, percentile=95, spacing=list(THICK)))
    monai_nsd = float(compute_surface_dice(p.float(), t.float(), [2.0], include_background=True,
                                           spacing=list(THICK), use_subvoxels=True))
    assert ours["hd95_mm"] == pytest.approx(hd95_by_hand(pred, label, THICK), rel=1e-6)
    assert ours["hd95_mm"] == pytest.approx(monai_hd95, rel=1e-6) and ours["surface_dice"] == pytest.approx(monai_nsd)
    assert 0.0 < ours["surface_dice"] < 1.0 and 0.0 < ours["hd95_mm"]


@pytest.mark.filterwarnings("ignore:the (ground truth|prediction) of class 0 is all 0:UserWarning")
@pytest.mark.filterwarnings("ignore:.*always_return_as_numpy:FutureWarning")
def test_where_the_empty_conventions_depart_from_monais_own_numbers():
    """MONAI's metric classes give NaN where a surface is missing; ours are the documented table's (docs/inference.md):
    both empty 1 / 0 / 1, one empty 0 / inf / 0. This pins what MONAI gives, so a change there is seen."""
    from monai.metrics import compute_dice, compute_hausdorff_distance, compute_surface_dice

    mask = torch.from_numpy(box((8, 8, 4), np.s_[2:5, 2:5, 1:3]))[None, None]
    empty = torch.zeros_like(mask)
    for pred, label in ((empty, empty), (empty, mask), (mask, empty)):
        hd95 = float(compute_hausdorff_distance(pred, label, include_background=True, percentile=95,
                                                spacing=list(THICK)))
        nsd = float(compute_surface_dice(pred.float(), label.float(), [1.0], include_background=True,
                                         spacing=list(THICK), use_subvoxels=True))
        dice = float(compute_dice(pred, label, include_background=True, ignore_empty=False))
        ours = case_metrics(pred, label, 2, THICK)[1]
        assert math.isnan(hd95) and ours["dice"] == dice
        if pred.any() or label.any():
            assert (ours["hd95_mm"], ours["surface_dice"]) == (math.inf, 0.0) and nsd == 0.0
        else:
            assert (ours["hd95_mm"], ours["surface_dice"]) == (0.0, 1.0) and math.isnan(nsd)


# --------------------------------------------------------------------------------------------------
# Folders
# --------------------------------------------------------------------------------------------------


@pytest.fixture
def folders(tmp_path):
    """Three cases, classes 1 and 2: a perfect one, an offset one, one with class 2 missed entirely."""
    centre = np.array([30.0, 37.0, 50.0])
    label = sphere(centre) + 2 * sphere(centre + [0, 0, 30.0], radius_mm=8.0)
    offset = sphere(centre + [4.0, 0, 0]) + 2 * sphere(centre + [0, 0, 30.0], radius_mm=8.0)
    missed = sphere(centre)
    for case, pred in (("a", label), ("b", offset), ("c", missed)):
        save(tmp_path / "labels" / f"{case}.nii.gz", label)
        save(tmp_path / "pred" / f"{case}.nii.gz", pred.astype(np.uint8))
    save(tmp_path / "pred" / "a_probs.nii.gz", np.zeros((*SHAPE, 3), np.float32))  # not a label map: ignored
    dataset = tmp_path / "dataset.json"
    dataset.write_text(json.dumps({"labels": {"0": "background", "1": "ventricles", "2": "lesion"}}))
    return tmp_path / "pred", tmp_path / "labels", dataset


def test_evaluate_folders_writes_one_row_per_case_and_class_and_a_robust_summary(folders):
    pred_dir, label_dir, dataset = folders
    summary = evaluate_folders(pred_dir, label_dir, dataset_json=dataset, tolerance_mm=[1.0, 2.0])

    rows = list(csv.DictReader((pred_dir / "evaluation" / "metrics.csv").open()))
    assert [(r["case"], r["class"], r["name"]) for r in rows] == [
        ("a", "1", "ventricles"), ("a", "2", "lesion"), ("b", "1", "ventricles"), ("b", "2", "lesion"),
        ("c", "1", "ventricles"), ("c", "2", "lesion")]
    missed = rows[5]
    assert (float(missed["dice"]), missed["hd95_mm"], float(missed["surface_dice"])) == (0.0, "inf", 0.0)
    assert float(rows[3]["tolerance_mm"]) == 2.0

    written = json.loads((pred_dir / "evaluation" / "summary.json").read_text())  # strict JSON: no Infinity
    assert written == summary and summary["num_cases"] == 3
    lesion = summary["per_class"]["2"]
    assert lesion["name"] == "lesion" and lesion["dice"]["mean"] == pytest.approx(2 / 3)
    assert lesion["hd95_mm"]["n_inf"] == 1 and lesion["hd95_mm"]["n"] == 2 and lesion["hd95_mm"]["mean"] == 0.0
    ventricles = [float(r["dice"]) for r in rows if r["class"] == "1"]
    # the rows' own numbers: recomputed from the file, the means are summary.json's (not 6 digits of them)
    assert summary["per_class"]["1"]["dice"]["mean"] == pytest.approx(np.mean(ventricles), rel=1e-15)
    assert summary["overall"]["dice"]["mean"] == pytest.approx(np.mean([float(r["dice"]) for r in rows]), rel=1e-15)
    assert summary["predictions_without_label"] == [str(pred_dir / "a_probs.nii.gz")]


def test_a_class_absent_from_both_files_is_counted_so_nnunets_mean_can_be_read_too(tmp_path):
    label = sphere(np.array([30.0, 37.0, 50.0]))  # class 2 in neither file of case "a"
    both = 2 * sphere(np.array([30.0, 37.0, 20.0]), radius_mm=8.0)
    save(tmp_path / "labels" / "a.nii.gz", label)
    save(tmp_path / "pred" / "a.nii.gz", label.astype(np.uint8))
    save(tmp_path / "labels" / "b.nii.gz", label + both)
    save(tmp_path / "pred" / "b.nii.gz", label.astype(np.uint8))  # class 2 missed
    summary = evaluate_folders(tmp_path / "pred", tmp_path / "labels", num_classes=3)
    lesion = summary["per_class"]["2"]
    assert lesion["dice"]["mean"] == 0.5 and lesion["n_both_empty"] == 1  # ours: (1 + 0) / 2
    assert lesion["dice_mean_without_both_empty"] == 0.0  # nnU-Net v2's: the absent case left out
    assert summary["overall"]["n_both_empty"] == 1
    # nnU-Net's foreground mean: the mean of the per-class means (1 for the ventricles, 0 for the lesion).
    assert summary["overall"]["dice_mean_without_both_empty"] == 0.5


def test_a_models_config_json_names_the_values_predict_writes(tmp_path):
    from accelerated_seg.data.preprocess import PreprocessSettings
    from accelerated_seg.evaluate import class_names_from_json

    # BraTS: classes 0..3 stand for the label values 0, 1, 2 and 4; predict writes 4 for class 3.
    config = {"model": {"name": "unet"}, "num_classes": 4,
              "labels": {"0": "background", "1": "necrosis", "2": "edema", "3": "enhancing"},
              "preprocessing": PreprocessSettings(label_map=((0, 0), (1, 1), (2, 2), (4, 3))).to_dict()}
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert class_names_from_json(tmp_path / "config.json") == {0: "background", 1: "necrosis", 2: "edema",
                                                               4: "enhancing"}


def test_a_binarized_models_config_json_scores_every_reference_value_as_its_foreground(folders, tmp_path, capsys):
    """A model trained with data.binarize writes 1 for anything not background; its config.json as
    --labels scores the references so too (their value 2 was an error, with no way to say so)."""
    from accelerated_seg.data.preprocess import PreprocessSettings

    pred_dir, label_dir, _ = folders
    for case in ("a", "b", "c"):  # the two classes' predictions as one foreground
        merged = (nib.load(pred_dir / f"{case}.nii.gz").get_fdata() > 0).astype(np.uint8)
        save(pred_dir / f"{case}.nii.gz", merged)
    model = tmp_path / "model"
    model.mkdir()
    config = {"model": {"name": "unet"}, "num_classes": 2, "labels": {"0": "background", "1": "foreground"},
              "preprocessing": PreprocessSettings(binarize=True).to_dict()}
    (model / "config.json").write_text(json.dumps(config))
    summary = evaluate_folders(pred_dir, label_dir, dataset_json=model / "config.json")
    assert summary["classes"] == {"1": "foreground"} and summary["merged_foreground"] is True
    rows = list(csv.DictReader((pred_dir / "evaluation" / "metrics.csv").open()))
    assert [(r["case"], float(r["dice"])) for r in rows][0] == ("a", 1.0)  # a perfect prediction of both
    assert "data.binarize" in summary["conventions"]["merged_foreground"]
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(model / "config.json"),
                 "--output", str(tmp_path / "cli")]) == 0
    said = capsys.readouterr().out
    assert (f"class 1 is the foreground: every value above 0 in the references merged into one, as "
            f"{model / 'config.json'}, a model trained with data.binarize, saw them; its predictions (0 and 1) taken "
            f"as written\n") in said  # in the words of summary.json's note: "every non-zero value" before
    # Such a model writes 0 and 1 alone: a 2 in its predictions is another model's, refused (implied, the merge
    # takes the references alone; --merge-foreground given takes the predictions too)
    merged = (nib.load(pred_dir / "a.nii.gz").get_fdata() > 0).astype(np.uint8)
    save(pred_dir / "a.nii.gz", np.where(merged > 0, 2, 0).astype(np.uint8))
    with pytest.raises(ValueError, match=r"a.nii.gz: label value\(s\) \[2\] are not among the classes scored"):
        evaluate_folders(pred_dir, label_dir, dataset_json=model / "config.json", output_dir=tmp_path / "two")
    save(pred_dir / "a.nii.gz", merged)
    del config["preprocessing"]["binarize"]  # trained on the classes: a reference's 2 is still an error
    (model / "config.json").write_text(json.dumps(config))
    with pytest.raises(DataError, match=r"labels/a\.nii\.gz: label value\(s\) \[2\] are not among the classes"):
        evaluate_folders(pred_dir, label_dir, dataset_json=model / "config.json", output_dir=tmp_path / "again")


def test_classes_are_inferred_from_the_files_when_not_given(folders):
    pred_dir, label_dir, _ = folders
    summary = evaluate_folders(pred_dir, label_dir, output_dir=pred_dir.parent / "out")
    assert summary["classes"] == {"1": "class_1", "2": "class_2"}
    assert (pred_dir.parent / "out" / "metrics.csv").is_file()


def test_a_prediction_on_another_grid_is_an_error_naming_both_files(folders):
    pred_dir, label_dir, _ = folders
    moved = AFFINE.copy()
    moved[0, 3] += 1.0
    save(pred_dir / "b.nii.gz", nib.load(pred_dir / "b.nii.gz").get_fdata().astype(np.uint8), moved)
    with pytest.raises(DataError, match=r"b\.nii\.gz and .*labels/b\.nii\.gz are not on one voxel grid: the origins "
                                        r"differ by 1 mm, prediction at .* mm and label at .* mm \(their affines "
                                        r"differ by up to 1 in an entry"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    # Another orientation of other voxels is named as such, not as a distance (sixty-eighth session); another
    # orientation of the same voxels is scored (test below); a header without orientation is named too
    label = nib.load(label_dir / "b.nii.gz")
    to_lps = nib.orientations.ornt_transform(nib.io_orientation(label.affine), nib.orientations.axcodes2ornt("LPS"))
    nib.save(label.as_reoriented(to_lps).slicer[1:], pred_dir / "b.nii.gz")
    axcodes = "".join(nib.aff2axcodes(label.affine))
    with pytest.raises(DataError, match=f"are not on one voxel grid \\(prediction is LPS, label is {axcodes}\\); "):
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    flipped = nib.orientations.ornt_transform(nib.io_orientation(label.affine), nib.orientations.axcodes2ornt("ASR"))
    moved = label.as_reoriented(flipped)
    shifted = moved.affine.copy()
    shifted[:3, 3] += 5.0  # the same orientation's voxels 5 mm away: no reordering lays them on the label's
    nib.save(nib.Nifti1Image(np.asanyarray(moved.dataobj), shifted), pred_dir / "b.nii.gz")
    with pytest.raises(DataError, match=f"are not on one voxel grid: prediction is ASR, label is {axcodes} \\(their"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    bare = nib.Nifti1Image(np.asanyarray(label.dataobj), None)
    bare.header.set_qform(None, code=0)
    bare.header.set_sform(None, code=0)
    nib.save(bare, pred_dir / "b.nii.gz")
    with pytest.raises(DataError, match=r"the prediction carries no orientation \(qform_code and sform_code 0\)"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    save(pred_dir / "b.nii.gz", np.zeros((60, 50, 39), np.uint8))
    with pytest.raises(DataError, match=r"pred/b\.nii\.gz \(shape \(60, 50, 39\)\) and .*labels/b\.nii\.gz"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)


def _declare(path, unit: str, per_mm: float) -> None:
    """Rewrite the file at ``path`` on AFFINE's grid with ``per_mm`` numbers a mm, its header declaring ``unit``."""
    image = nib.load(path)
    image = nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([per_mm] * 3 + [1.0]) @ AFFINE)
    image.header.set_xyzt_units(unit)
    nib.save(image, path)


def test_a_reference_in_another_unit_than_its_prediction_is_refused_as_such_not_as_another_grid(folders):
    """A reference label declaring micrometres beside its prediction in mm was refused "not on one voxel grid ...
    resample the prediction onto the label's grid", or, with the prediction's numbers, scored unjudged; one
    declaring no unit beside a prediction in micrometres, 1000 times apart, was told the grid line too
    (hundred-and-seventh session): each is refused naming both files, the units and the nibabel lines, which,
    run as written, make it scored."""
    pred_dir, label_dir, _ = folders
    label_path, pred_path = label_dir / "b.nii.gz", pred_dir / "b.nii.gz"

    _declare(pred_path, "mm", 1.0)
    # the same numbers under two units: a unit alone is wrong, the declaring line first (h64)
    for per_mm, line in ((1000.0, "Rewrite it in mm"), (1.0, r"Where they are mm \(voxels of [^)]*\), declare \S+ mm")):
        _declare(label_path, "micron", per_mm)
        with pytest.raises(DataError) as refused:
            evaluate_folders(pred_dir, label_dir, num_classes=3)
        said = str(refused.value)
        assert said.startswith(f"{label_path}: its header declares its voxel sizes in micrometres (xyzt_units), "
                               f"that of {pred_path}, its prediction, in mm. "), said
        assert "voxel grid" not in said
        exec(re.search(rf"{line} \(nibabel: (img = .*?, path\)|img = .*?nib\.save\(img, path\))\)",
                       said).group(1), {"nib": nib, "np": np, "path": str(label_path)})
        assert evaluate_folders(pred_dir, label_dir, num_classes=3)["num_cases"] == 3
    _declare(label_path, "unknown", 1.0)
    _declare(pred_path, "micron", 1000.0)
    with pytest.raises(DataError, match=rf"^{re.escape(str(label_path))}: its header declares no unit for its "
                                        rf"voxel sizes \(xyzt_units\), while that of {re.escape(str(pred_path))} "
                                        r"\(its prediction\) declares micrometres, .* the unit is the likely cause"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    # either way round, the two lines offered (declare the file of no unit mm, rewrite the other in mm), run as
    # written on the files they name, make it scored: they were not run until a review of the session
    for unitless, declared in ((label_path, pred_path), (pred_path, label_path)):
        _declare(unitless, "unknown", 1.0)
        _declare(declared, "micron", 1000.0)
        with pytest.raises(DataError) as refused:
            evaluate_folders(pred_dir, label_dir, num_classes=3)
        said = str(refused.value)
        # the advice for voxels that differ indeed resamples the prediction, never the reference: "resample it onto
        # that grid" resampled the reference where it was the file of no unit (a review of the session)
        assert said.endswith("or resample the prediction onto the label's grid with nearest-neighbour "
                             "interpolation") and "voxel grid" not in said, said
        lines = re.search(rf"Declare {re.escape(str(unitless))} in mm, as its numbers are \(nibabel: (img = .*?, "
                          rf"path\))\), and rewrite {re.escape(str(declared))} in mm \(nibabel: (img = .*?, path\))\)",
                          said)
        exec(lines.group(1), {"nib": nib, "np": np, "path": str(unitless)})
        exec(lines.group(2), {"nib": nib, "np": np, "path": str(declared)})
        assert evaluate_folders(pred_dir, label_dir, num_classes=3)["num_cases"] == 3


def test_a_reference_of_no_unit_beside_a_prediction_in_metres_is_offered_both_readings_of_its_numbers(folders):
    """A reference of no unit beside a prediction declaring metres, 1,000 times apart, was told "Declare ... in mm,
    as its numbers are" and to rewrite the prediction from metres, where its numbers may be micrometres and the
    prediction's mm under a header of metres (a converter writing metres): the pre-flight check and predict offer
    both readings where nothing else tells, and so does evaluate since the hundred-and-twelfth session's leftovers
    (h64). Either way, the line offered for the numbers the files hold, run as written, makes it scored."""
    pred_dir, label_dir, _ = folders
    label_path, pred_path = label_dir / "b.nii.gz", pred_dir / "b.nii.gz"

    # the reference's numbers mm, the prediction's metres: the way for mm numbers comes first (its voxels nearer 1 mm)
    _declare(label_path, "unknown", 1.0)
    _declare(pred_path, "meter", 0.001)
    with pytest.raises(DataError) as refused:
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    said = str(refused.value)
    assert "as its numbers are" not in said and "nothing else in the case tells" not in said, said
    assert (f"Which unit the numbers of {label_path} are in, the two files alone cannot tell: check the "
            f"voxel size") in said
    mm_way = re.search(rf"Where its numbers are mm \(voxels of 1 x 1\.5 x 2\.5 mm\), declare "
                       rf"{re.escape(str(label_path))} in mm \(nibabel: (img = .*?, path\))\), and rewrite "
                       rf"{re.escape(str(pred_path))} in mm "
                       rf"\(nibabel: (img = .*?, path\))\); or, where its numbers are micrometres", said)
    assert mm_way, said
    exec(mm_way.group(1), {"nib": nib, "np": np, "path": str(label_path)})
    exec(mm_way.group(2), {"nib": nib, "np": np, "path": str(pred_path)})
    assert evaluate_folders(pred_dir, label_dir, num_classes=3)["num_cases"] == 3
    # the reference's numbers micrometres, the prediction's mm under a header of metres: the other way comes first
    _declare(label_path, "unknown", 1000.0)
    _declare(pred_path, "meter", 1.0)
    with pytest.raises(DataError) as refused:
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    said = str(refused.value)
    other_way = re.search(rf"Where its numbers are micrometres, and those of {re.escape(str(pred_path))} mm under a "
                          rf"header of metres \(voxels of 1 x 1\.5 x 2\.5 mm\), rewrite "
                          rf"{re.escape(str(label_path))} from micrometres \(nibabel: (img = .*?, path\))\), and "
                          rf"declare {re.escape(str(pred_path))}"
                          rf" mm, its numbers mm already \(nibabel: (img = .*?, path\))\); or, where its numbers are "
                          rf"mm", said)
    assert other_way, said
    exec(other_way.group(1), {"nib": nib, "np": np, "path": str(label_path)})
    exec(other_way.group(2), {"nib": nib, "np": np, "path": str(pred_path)})
    assert evaluate_folders(pred_dir, label_dir, num_classes=3)["num_cases"] == 3


@pytest.mark.parametrize("axcodes", ["LPS", "ASR", "SLA"])
def test_a_prediction_of_the_labels_voxels_in_another_orientation_is_scored_as_stored_on_its_grid(folders, axcodes):
    """Another tool's output written LPS against a RAS label (or its axes permuted) holds the label's voxels,
    each on the same place in the patient: it is laid onto the label's grid and scored as if stored there.
    Until the ninety-fifth session it was refused as "not the same places in the patient", with resampling
    as the remedy."""
    pred_dir, label_dir, _ = folders
    evaluate_folders(pred_dir, label_dir, num_classes=3, output_dir=pred_dir.parent / "as_stored")
    offset = nib.load(pred_dir / "b.nii.gz")  # the case whose scores depend on where each voxel lies
    nib.save(offset.as_reoriented(nib.orientations.ornt_transform(
        nib.io_orientation(offset.affine), nib.orientations.axcodes2ornt(axcodes))), pred_dir / "b.nii.gz")
    assert "".join(nib.aff2axcodes(nib.load(pred_dir / "b.nii.gz").affine)) == axcodes
    evaluate_folders(pred_dir, label_dir, num_classes=3, output_dir=pred_dir.parent / "reoriented")
    as_stored, reoriented = (list(csv.DictReader((pred_dir.parent / name / "metrics.csv").open()))
                             for name in ("as_stored", "reoriented"))
    assert reoriented == as_stored and float(as_stored[2]["dice"]) < 1  # case b, class 1: not a trivial 1


def test_a_label_or_prediction_with_an_unusable_header_is_an_error_naming_it(folders):
    """A NaN in both affines compared as no difference, then failed unnamed ('data must be finite')."""
    pred_dir, label_dir, _ = folders
    with_header_affine(label_dir / "b.nii.gz", [np.nan, 0.0, 0.0, 0.0])
    with_header_affine(pred_dir / "b.nii.gz", [np.nan, 0.0, 0.0, 0.0])
    with pytest.raises(DataError, match=r"labels/b\.nii\.gz: the affine \(voxel-to-world matrix\) holds NaN"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    with_header_affine(label_dir / "b.nii.gz", AFFINE[0].tolist())
    with_header_affine(pred_dir / "b.nii.gz", [0.0, 0.0, 0.0, 0.0])
    with pytest.raises(DataError, match=r"pred/b\.nii\.gz: the affine .* is singular: a voxel size of 0"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    save(pred_dir / "b.nii.gz", nib.load(label_dir / "b.nii.gz").get_fdata().astype(np.complex64))
    with pytest.raises(DataError, match=r"pred/b\.nii\.gz: its voxels are complex64 values, not real numbers"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    (pred_dir / "b.nii.gz").write_text("not an image")  # nibabel's bare "File ... is not a gzip file" before
    with pytest.raises(DataError, match=r"pred/b\.nii\.gz: cannot be read as NIfTI .*; re-export"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)


def test_missing_predictions_and_unknown_label_values_are_errors(folders):
    pred_dir, label_dir, dataset = folders
    save(pred_dir / "b.nii.gz", np.full(SHAPE, 3, np.uint8))
    with pytest.raises(DataError, match=r"b\.nii\.gz: label value\(s\) \[3\] are not among the classes"):
        evaluate_folders(pred_dir, label_dir, dataset_json=dataset)
    with pytest.raises(ValueError, match="num_classes 4 disagrees"):
        evaluate_folders(pred_dir, label_dir, dataset_json=dataset, num_classes=4)
    (pred_dir / "c.nii.gz").unlink()
    with pytest.raises(DataError, match=r"1 label\(s\) .* have no prediction .*c\.nii\.gz"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)


def test_a_reference_with_one_unknown_value_is_told_how_to_declare_it_unannotated(folders):
    pred_dir, label_dir, dataset = folders
    label = nib.load(label_dir / "b.nii.gz").get_fdata().astype(np.uint8)
    label[:5] = 255  # a common mark of unannotated voxels
    save(label_dir / "b.nii.gz", label)
    with pytest.raises(DataError, match=r"b\.nii\.gz: label value\(s\) \[255\] are not among the classes scored "
                                        r"\[0, 1, 2\]; .*; if 255 marks unannotated voxels, give dataset_json a "
                                        r"dataset\.json that names it the \"ignore\" label"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)


@pytest.mark.parametrize("role, slope, inter", [("label", 1, 1), ("prediction", 1, 1), ("label", 2, 5)])
def test_a_file_whose_header_scales_its_values_is_refused_before_scoring(folders, role, slope, inter):
    """Stored 0, 1, 2 under scl_inter 1 read as 1, 2, 3, all classes scored under --num-classes 4: until the
    ninety-fifth session evaluate scored the shifted classes without a word (Dice of background as class 1).
    A reference carrying its image's scaling (2, 5: read as 5, 7, 9) is told so too, as since the
    ninety-fourth, now before any case is scored."""
    pred_dir, label_dir, _ = folders
    path = (label_dir if role == "label" else pred_dir) / "b.nii.gz"
    image = nib.load(path)
    scaled = nib.Nifti1Image(np.asanyarray(image.dataobj).astype(np.int16), image.affine)
    scaled.header.set_slope_inter(slope, inter)
    nib.save(scaled, path)
    output = pred_dir / "evaluation"
    with pytest.raises(DataError, match=rf"b\.nii\.gz: the {role}'s voxels read as classes other than those it "
                                        rf"stores — its header scales the stored values \(scl_slope {slope}, "
                                        rf"scl_inter {inter}\), .* write its stored values without scaling"):
        evaluate_folders(pred_dir, label_dir, num_classes=4)
    assert not output.exists()


def test_references_saved_as_0_and_255_are_told_and_scored_as_one_class_with_merge_foreground(tmp_path, capsys):
    """Masks saved as 0 and 255 against predictions of 0 and 1 were scored as two classes, 1 and 255, each
    Dice 0 in every case, without a word (seventy-eighth session's probe); --num-classes 2 advised only the
    ignore label."""
    centre = np.array([30.0, 37.0, 50.0])
    for case, shift in (("a", 0.0), ("b", 3.0)):
        save(tmp_path / "labels" / f"{case}.nii.gz", 255 * sphere(centre))
        save(tmp_path / "pred" / f"{case}.nii.gz", sphere(centre + [shift, 0, 0]))
    pred_dir, label_dir = tmp_path / "pred", tmp_path / "labels"
    with pytest.raises(DataError, match=r"the predictions hold the values \[1\] and the references \[255\] \(besides "
                                        r"background\): no class in common, so every Dice would be 0; if the "
                                        r"references are masks saved as 0 and 255, merge_foreground=True makes "
                                        r"class 1 the foreground"):
        evaluate_folders(pred_dir, label_dir)
    with pytest.raises(DataError, match=r"a\.nii\.gz: label value\(s\) \[255\] are not among the classes scored "
                                        r"\[0, 1\]; .*; if the reference is a mask saved as 0 and 255, "
                                        r"merge_foreground=True makes class 1 the foreground: every value above 0 "
                                        r"in the references and in the predictions merged into one$"):
        evaluate_folders(pred_dir, label_dir, num_classes=2)
    # another tool's binary masks saved as 0 and 255 against references of 0 and 1: told the same way since the
    # ninety-fifth session ("check num_classes / dataset_json, or the file" alone)
    with pytest.raises(DataError, match=r"a\.nii\.gz: label value\(s\) \[255\] are not among the classes scored "
                                        r"\[0, 1\]; .*; if the prediction is a mask saved as 0 and 255, "
                                        r"merge_foreground=True makes class 1 the foreground: every value above 0 "
                                        r"in the references and in the predictions merged into one$"):
        evaluate_folders(label_dir, pred_dir, num_classes=2, output_dir=tmp_path / "swapped")
    # they said "scores every non-zero value as class 1" until the ninety-ninth session: the ignore value is not
    with pytest.raises(DataError, match=r"if the prediction is a mask saved as 0 and 255, merge_foreground=True "
                                        r"makes class 1 the foreground: every value above 0 in the references and "
                                        r"in the predictions merged into one, but the ignore value 3$"):
        evaluate_folders(label_dir, pred_dir, num_classes=2, ignore_value=3, output_dir=tmp_path / "swapped")
    summary = evaluate_folders(pred_dir, label_dir, merge_foreground=True)
    assert summary["classes"] == {"1": "class_1"} and summary["merged_foreground"] is True
    assert summary["per_class"]["1"]["dice"]["max"] == 1.0 and 0.8 < summary["per_class"]["1"]["dice"]["min"] < 1
    assert main(["evaluate", str(pred_dir), str(label_dir), "--merge-foreground", "--output",
                 str(tmp_path / "cli")]) == 0
    said = capsys.readouterr().out
    assert ("class 1 is the foreground: every value above 0 in the references and in the predictions merged into "
            "one (--merge-foreground)\n") in said
    with pytest.raises(ValueError, match="leaves two classes, not num_classes 3"):
        evaluate_folders(pred_dir, label_dir, merge_foreground=True, num_classes=3)
    # a model that predicts another class than the references hold is scored as asked
    save(tmp_path / "other" / "a.nii.gz", 2 * sphere(centre))
    asked = evaluate_folders(pred_dir, tmp_path / "other", num_classes=3, output_dir=tmp_path / "asked")
    assert asked["per_class"]["1"]["dice"]["mean"] == 0.0 == asked["per_class"]["2"]["dice"]["mean"]
    # references of several structures against a binary model's 1: the refusal names the merge too (a review)
    save(tmp_path / "aseg" / "a.nii.gz", 2 * sphere(centre) + 39 * sphere(centre + [0, 0, 30.0], radius_mm=8.0))
    with pytest.raises(DataError, match=r"references \[2, 39\] .*; if the model segments the references' structures "
                                        r"as one foreground, merge_foreground=True makes class 1 "
                                        r"the foreground: every value above 0 in the references and in the "
                                        r"predictions merged into one;"):
        evaluate_folders(pred_dir, tmp_path / "aseg", output_dir=tmp_path / "aseg_out")
    # a declared ignore label's voxels stay out of the merge (they were merged into the foreground: a review)
    reference = sphere(centre).astype(np.uint8)
    reference[:10] = 3
    save(tmp_path / "sparse" / "a.nii.gz", reference)
    dataset = tmp_path / "dataset.json"
    dataset.write_text(json.dumps({"labels": {"background": 0, "foreground": 1, "ignore": 3}}))
    perfect = np.where(reference == 1, 1, 0).astype(np.uint8)
    save(tmp_path / "perfect" / "a.nii.gz", perfect)
    scored = evaluate_folders(tmp_path / "perfect", tmp_path / "sparse", dataset_json=dataset, merge_foreground=True,
                              output_dir=tmp_path / "sparse_out")
    assert scored["per_class"]["1"]["dice"]["mean"] == 1.0
    assert main(["evaluate", str(tmp_path / "perfect"), str(tmp_path / "sparse"), "--labels", str(dataset),
                 "--merge-foreground", "--output", str(tmp_path / "sparse_cli")]) == 0
    assert ("class 1 is the foreground: every value above 0 in the references and in the predictions merged into "
            "one, but the ignore value 3 (--merge-foreground)\n") in capsys.readouterr().out  # as the note says
    dataset.write_text(json.dumps({"labels": {"0": "background", "1": "a", "2": "b"}}))
    with pytest.raises(ValueError, match=r"names the classes \[1, 2\], but merge_foreground=True scores every "
                                         r"foreground"):
        evaluate_folders(pred_dir, label_dir, dataset_json=dataset, merge_foreground=True)
    from accelerated_seg.regions import Regions

    with pytest.raises(ValueError, match=r"regions declares regions, each scored over its own values: merging "
                                         r"every foreground value into one class leaves none of them; drop "
                                         r"merge_foreground=True"):
        evaluate_folders(pred_dir, label_dir, merge_foreground=True,
                         regions=Regions(("whole", "core"), ((1, 2), (2,)), (1, 2)))


def test_merge_foreground_merges_the_predictions_foreground_as_it_merges_the_references(tmp_path, capsys):
    """--merge-foreground merged the references' foreground alone: a prediction of 0, 1 and 2 against a mask
    had its 2 scored as a class of its own (Dice 0, in no reference) and class 1 counted only the voxels
    predicted 1, where both sides' foreground is to be one class (a report)."""
    centre = np.array([30.0, 37.0, 50.0])
    reference = sphere(centre)
    prediction = reference.copy()
    prediction[:30] *= 2  # half of the sphere predicted as class 2: foreground all the same
    save(tmp_path / "labels" / "a.nii.gz", 255 * reference)
    save(tmp_path / "pred" / "a.nii.gz", prediction)
    pred_dir, label_dir = tmp_path / "pred", tmp_path / "labels"
    summary = evaluate_folders(pred_dir, label_dir, merge_foreground=True)
    assert summary["classes"] == {"1": "class_1"} and summary["per_class"]["1"]["dice"]["mean"] == 1.0
    assert main(["evaluate", str(pred_dir), str(label_dir), "--merge-foreground", "--output",
                 str(tmp_path / "cli")]) == 0
    said = capsys.readouterr().out
    assert "class 2" not in said and "every value above 0 in the references and in the predictions merged" in said
    scored = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert scored["classes"] == {"1": "class_1"} and scored["per_class"]["1"]["dice"]["mean"] == 1.0
    # class 2 was refused as a value outside the classes scored [0, 1] where they were given
    assert evaluate_folders(pred_dir, label_dir, merge_foreground=True, num_classes=2,
                            output_dir=tmp_path / "two")["per_class"]["1"]["dice"]["mean"] == 1.0
    # a declared ignore label stays out of the predictions' merge too: a prediction holding it is refused
    dataset = tmp_path / "dataset.json"
    dataset.write_text(json.dumps({"labels": {"background": 0, "foreground": 1, "ignore": 3}}))
    save(label_dir / "a.nii.gz", reference)
    save(pred_dir / "a.nii.gz", np.where(reference == 1, 3, 0).astype(np.uint8))
    with pytest.raises(DataError, match=r"a\.nii\.gz: label value\(s\) \[3\] are not among the classes scored \[0, 1\]"):
        evaluate_folders(pred_dir, label_dir, dataset_json=dataset, merge_foreground=True, output_dir=tmp_path / "ign")


def test_evaluates_help_says_the_merge_and_the_earlier_evaluation_replaced_as_the_summary_and_the_docs_do(capsys):
    """--merge-foreground's help said "every non-zero value ... as class 1" (a value below 0 and an ignore label's
    are not merged), and --output's the same folders alone, where a moved folder of the same files is the same
    evaluation too (ninety-ninth session)."""
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert ("score every value above 0 in the references and in the predictions as one class 1, the foreground (an "
            "ignore label's value stays out)") in said and "non-zero" not in said
    assert "an earlier evaluation there of the same folders (or the same files, moved since) and settings" in said


def test_summarys_merged_foreground_note_says_which_values_class_1_merges_on_which_side_over_which_voxels(tmp_path):
    """The note said 'every non-zero value ... scored as class 1 (... masks saved as 0 and 255)': not which
    side's values were merged where the predictions were not, nor that an ignore value's voxels stay out
    (a review of summary.json)."""
    from accelerated_seg.data.preprocess import PreprocessSettings

    centre = np.array([30.0, 37.0, 50.0])
    reference = 255 * sphere(centre)
    reference[:10] = np.where(reference[:10] > 0, 3, 0)  # some voxels unannotated, where the ignore value is 3
    save(tmp_path / "labels" / "a.nii.gz", reference)
    save(tmp_path / "pred" / "a.nii.gz", 2 * sphere(centre))  # a multi-class model's 2, as foreground
    save(tmp_path / "binary" / "a.nii.gz", sphere(centre))  # a binarized model's 1
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "model": {"name": "unet"}, "num_classes": 2, "labels": {"0": "background", "1": "foreground"},
        "preprocessing": PreprocessSettings(binarize=True).to_dict()}))
    values = "(classes 1, 2, ..., a mask's 255) merged into one"
    scored = "scored against 0, the background, over"
    notes = {
        "asked": (dict(merge_foreground=True, ignore_value=3, pred="pred"),
                  f"class 1 is the foreground: every value above 0 in the references and in the predictions "
                  f"{values}, but the ignore value 3; {scored} the voxels not labelled 3 (see ignore)"),
        "asked, no ignore value": (dict(merge_foreground=True, pred="binary"),
                                   f"class 1 is the foreground: every value above 0 in the references and in the "
                                   f"predictions {values}; {scored} every voxel of each case"),
        "a binarized model's": (dict(dataset_json=model / "config.json", pred="binary"),
                                f"class 1 is the foreground: every value above 0 in the references {values}, as a "
                                f"model trained with data.binarize saw them; the predictions (such a model's 0 and "
                                f"1) taken as written; {scored} every voxel of each case")}
    for index, (how, (settings, note)) in enumerate(notes.items()):
        if how == "a binarized model's":  # its references hold no ignore value: such a model is trained without
            save(tmp_path / "labels" / "a.nii.gz", 255 * sphere(centre))
        summary = evaluate_folders(tmp_path / settings.pop("pred"), tmp_path / "labels", **settings,
                                   output_dir=tmp_path / f"evaluation_{index}")
        assert summary["conventions"]["merged_foreground"] == note, how
        written = json.loads((tmp_path / f"evaluation_{index}" / "summary.json").read_text())
        assert written["conventions"]["merged_foreground"] == note, how
    # docs/inference.md quotes the first, as written
    from pathlib import Path

    page = " ".join((Path(__file__).resolve().parents[1] / "docs" / "inference.md").read_text().split())
    assert f"`{notes['asked'][1]}`" in page


def test_a_multi_class_models_predictions_against_masks_of_one_value_are_refused_naming_merge_foreground(tmp_path,
                                                                                                        capsys):
    """Predictions of 1 and 2 against masks saved as 0 and 255 were refused (no class in common) without a word of
    --merge-foreground, which scores them as one foreground since it merges the predictions too: the refusal named
    it only where the predictions held 1 alone (ninetieth session)."""
    reference = np.zeros((8, 8, 8), np.uint8)
    reference[2:6, 2:6, 2:6] = 1
    prediction = reference.copy()
    prediction[:4] *= 2  # half of the cube predicted as class 2
    save(tmp_path / "labels" / "a.nii.gz", 255 * reference)
    save(tmp_path / "pred" / "a.nii.gz", prediction)
    pred_dir, label_dir = str(tmp_path / "pred"), str(tmp_path / "labels")
    assert main(["evaluate", pred_dir, label_dir]) == 2
    assert capsys.readouterr().err == (
        "error: the predictions hold the values [1, 2] and the references [255] (besides background): no class in "
        "common, so every Dice would be 0; if the references are masks saved as 0 and 255, --merge-foreground "
        "makes class 1 the foreground: every value above 0 in the references and in the predictions merged into "
        "one; to score each value as a class all the same, give --labels a dataset.json naming them (or "
        "--num-classes above the largest)\n")
    assert main(["evaluate", pred_dir, label_dir, "--merge-foreground", "--output", str(tmp_path / "merged")]) == 0
    merged = json.loads((tmp_path / "merged" / "summary.json").read_text())
    assert merged["classes"] == {"1": "class_1"} and merged["per_class"]["1"]["dice"]["mean"] == 1.0
    # classes on both sides ([1, 2] against [3, 4]) are more likely numbered apart than one foreground: not named
    save(tmp_path / "labels" / "a.nii.gz", np.where(prediction > 0, prediction + 2, 0).astype(np.uint8))
    assert main(["evaluate", pred_dir, label_dir]) == 2
    said = capsys.readouterr().err
    assert "references [3, 4] (besides background): no class in common" in said and "merge" not in said


def test_negative_label_values_are_no_classes_when_the_classes_come_from_the_files(folders):
    """Without --num-classes or --labels, -1 and -2 were scored as classes 'class_-1' and 'class_-2'
    (seventy-second session's probe)."""
    pred_dir, label_dir, _ = folders
    label = nib.load(label_dir / "b.nii.gz").get_fdata().astype(np.int16)
    label[:3] = -1
    save(label_dir / "b.nii.gz", label)
    with pytest.raises(DataError, match=r"labels/b\.nii\.gz: label value\(s\) \[-1\] below 0 are no class"):
        evaluate_folders(pred_dir, label_dir)


def test_one_folder_as_predictions_and_labels_is_an_error(folders):
    """Each label was scored against itself: Dice 1 for every class, whatever the model did."""
    _, label_dir, _ = folders
    with pytest.raises(DataError, match="is both the prediction and the label folder"):
        evaluate_folders(label_dir / ".." / "labels", label_dir, num_classes=3)


def test_a_case_held_as_nii_and_nii_gz_is_an_error_naming_both(folders):
    """The later name (x.nii.gz) was scored without a word, though either could be a stale file."""
    pred_dir, label_dir, _ = folders
    save(pred_dir / "b.nii", np.zeros(SHAPE, np.uint8))
    with pytest.raises(DataError, match=r"pred holds b\.nii and b\.nii\.gz: two predictions of one case"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    (pred_dir / "b.nii").rename(pred_dir / "unlabelled.nii")
    save(pred_dir / "unlabelled.nii.gz", np.zeros(SHAPE, np.uint8))  # no label to score it against: harmless
    assert evaluate_folders(pred_dir, label_dir, num_classes=3)["num_cases"] == 3
    save(label_dir / "a.nii", np.zeros(SHAPE, np.uint8))
    with pytest.raises(DataError, match=r"labels holds a\.nii and a\.nii\.gz: two labels of one case"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)

def test_labels_named_with_an_upper_case_suffix_are_scored(folders):
    """``a.NII.GZ`` is a NIfTI file to nibabel; it was left out of the labels, so case a went unscored."""
    pred_dir, label_dir, _ = folders
    (label_dir / "a.nii.gz").rename(label_dir / "a.NII.GZ")
    summary = evaluate_folders(pred_dir, label_dir, num_classes=3)
    assert summary["num_cases"] == 3 and summary["per_class"]["1"]["dice"]["n"] == 3


def test_what_a_classs_hd95_mean_is_made_of_and_a_class_in_no_file_are_said(tmp_path, capsys):
    """A class missed in the one case that has it, and absent from the other two, read "HD95 0.0000 ±
    0.0000 mm": the absent cases' 0 mm alone, the miss left out. And a class in no file at all (a
    --num-classes one too high) scored Dice 1 everywhere, lifting the mean, without a word (seventieth
    session)."""
    centre = np.array([30.0, 37.0, 50.0])
    ventricles, lesion = sphere(centre), 2 * sphere(centre + [0, 0, 30.0], radius_mm=8.0)
    for case, label in (("a", ventricles + lesion), ("b", ventricles), ("c", ventricles)):
        save(tmp_path / "labels" / f"{case}.nii.gz", label)
        save(tmp_path / "pred" / f"{case}.nii.gz", ventricles)  # the lesion missed in "a"
    assert main(["evaluate", str(tmp_path / "pred"), str(tmp_path / "labels"), "--num-classes", "4"]) == 0
    out = capsys.readouterr().out
    assert "class 2 class_2: Dice 0.6667 ± 0.4714, HD95 0.0000 ± 0.0000 mm (of 3 case(s): 1 with one side empty: " \
           "inf, not averaged; 2 in neither file: 0 mm)" in out
    assert "class 1 class_1: Dice 1.0000 ± 0.0000, HD95 0.0000 ± 0.0000 mm, surface" in out  # every case measured
    assert "warning: class 3 class_3 is in no reference and no prediction, so it scores Dice 1 in every case" in out
    assert "class 2 class_2 is in no" not in out


def test_a_float32_header_of_perpendicular_axes_reads_as_sheared_by_under_5e_6_degrees(tmp_path):
    """SHEAR_NOTED_DEGREES' comment holds this figure (it said ~1e-5 before the ninety-fifth session): an
    sform's float32 entries of rotated axes at spacings 0.3-5 mm read as sheared by up to 3.8e-6 degrees over
    2000 random rotations (a median of 1.1e-6), far below the 0.5 noted; a qform, a quaternion, by ~1e-14."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(0)
    read = []
    for seed in range(200):
        affine = np.eye(4)
        affine[:3, :3] = Rotation.random(random_state=seed).as_matrix() * rng.uniform(0.3, 5, 3)
        nib.save(nib.Nifti1Image(np.zeros((2, 2, 2), np.uint8), affine), tmp_path / "grid.nii")
        read.append(shear_degrees(nib.load(tmp_path / "grid.nii").affine))
    assert 1e-7 < max(read) < 5e-6


def test_a_sheared_reference_grid_is_named_and_a_rotated_one_is_not(tmp_path, capsys):
    """Distances take the voxel axes as perpendicular: on a sheared grid (a CT gantry tilt) they are
    approximate, said in the summary and by the command; a rotation or flip is exact."""
    rotation = np.eye(4)
    rotation[:2, :2] = [[np.cos(0.3), -np.sin(0.3)], [np.sin(0.3), np.cos(0.3)]]
    shear = np.eye(4)
    shear[1, 2] = np.tan(np.radians(20))  # y moves with z: the slices tilted by 20 degrees
    assert shear_degrees(rotation @ AFFINE) == pytest.approx(0, abs=1e-6)
    assert shear_degrees(shear @ AFFINE) == pytest.approx(20, abs=1e-6)
    label = sphere(np.array([30.0, 37.0, 50.0]))
    for case, affine in (("rotated", rotation @ AFFINE), ("tilted", shear @ AFFINE)):
        save(tmp_path / "labels" / f"{case}.nii.gz", label, affine)
        save(tmp_path / "pred" / f"{case}.nii.gz", label, affine)
    assert main(["evaluate", str(tmp_path / "pred"), str(tmp_path / "labels"), "--num-classes", "2"]) == 0
    assert "warning: 1 reference(s) lie on a sheared grid (axes up to 20 degrees from perpendicular" in \
        capsys.readouterr().out
    summary = json.loads((tmp_path / "pred" / "evaluation" / "summary.json").read_text())
    assert summary["sheared_grids"] == {"tilted": 20.0}  # not the header's float32 20.000000287925854


def test_an_earlier_evaluation_is_replaced_by_the_same_one_alone_unless_overwrite(folders, tmp_path, capsys):
    """An evaluation into PRED/evaluation replaced an earlier one there without a word, whatever it had scored:
    one against another annotator's labels was lost (ninety-seventh session's user journey). The same folders and
    settings again (the predictions made anew) replace it, said; others are refused before any case is scored."""
    pred_dir, label_dir, dataset = folders
    command = ["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset)]
    summary, metrics = pred_dir / "evaluation" / "summary.json", pred_dir / "evaluation" / "metrics.csv"
    assert main(command) == 0
    assert "replacing" not in capsys.readouterr().out
    first = summary.read_text(), metrics.read_text()
    assert json.loads(first[0])["settings"]["label_folder"] == str(label_dir.resolve())
    # The same evaluation again, from another working directory and relative folders: replaced, and said
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        assert main(["evaluate", "pred", "labels", "--labels", "dataset.json"]) == 0
    assert ("wrote metrics.csv and summary.json to pred/evaluation, replacing the earlier evaluation there (the same "
            "folders and settings)") in capsys.readouterr().out
    first = summary.read_text(), metrics.read_text()
    # Other labels, another tolerance, other classes: refused, naming what differs, the earlier files untouched
    shutil.copytree(label_dir, tmp_path / "second_reader")
    save(tmp_path / "second_reader" / "c.nii.gz", sphere(np.array([30.0, 37.0, 50.0])))  # read otherwise
    for other, differs in ((["evaluate", str(pred_dir), str(tmp_path / "second_reader"), "--labels", str(dataset)],
                            f'label_folder "{label_dir.resolve()}", now "{(tmp_path / "second_reader").resolve()}" '
                            f'(other files)'),
                           (command + ["--tolerance", "2"], "tolerance_mm 1.0, now 2.0"),
                           (["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3"],
                            "num_classes null, now 3")):
        assert main(other) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: --output {pred_dir / 'evaluation'} holds an earlier evaluation of other "
                              f"inputs or settings (") and differs in err, err
        assert "give --output another folder to keep it, or --overwrite to replace it" in err
        assert (summary.read_text(), metrics.read_text()) == first
    # --output elsewhere keeps it; --overwrite replaces it
    assert main(command + ["--tolerance", "2", "--output", str(tmp_path / "ev2")]) == 0
    assert (summary.read_text(), metrics.read_text()) == first
    assert main(command + ["--tolerance", "2", "--overwrite"]) == 0
    assert "replacing the earlier evaluation there (--overwrite)" in capsys.readouterr().out
    assert json.loads(summary.read_text())["tolerance_mm"] == {"1": 2.0, "2": 2.0}
    # --tolerance's one value is tolerance_mm's: the same evaluation from Python
    assert evaluate_folders(pred_dir, label_dir, dataset_json=dataset, tolerance_mm=2)["settings"]["tolerance_mm"] == 2
    # One written before its settings were recorded: which inputs it scored is unknown, so it is kept too
    earlier = json.loads(summary.read_text())
    del earlier["settings"]
    summary.write_text(json.dumps(earlier))
    with pytest.raises(DataError, match="its folders and settings are not recorded in a summary.json"):
        evaluate_folders(pred_dir, label_dir, dataset_json=dataset, tolerance_mm=2.0)
    assert "settings" not in json.loads(summary.read_text())
    assert evaluate_folders(pred_dir, label_dir, dataset_json=dataset, tolerance_mm=2.0, overwrite=True)["settings"]


def test_the_same_evaluation_from_folders_moved_since_is_replaced_and_other_files_there_are_refused(folders, tmp_path,
                                                                                                    capsys):
    """A project moved or renamed with its evaluation inside (PRED/evaluation) was refused as another evaluation
    ("prediction_folder ..., now ..."), where its files and settings were those scored: recorded by the folders'
    paths alone (until the ninety-ninth session). Told by what the files hold now (summary.json's inputs_sha256)."""
    pred_dir, label_dir, dataset = folders
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset)]) == 0
    capsys.readouterr()
    first = json.loads((pred_dir / "evaluation" / "summary.json").read_text())
    assert set(first["inputs_sha256"]) == {"prediction_folder", "label_folder", "dataset_json"}
    moved = tmp_path / "project_v1"
    moved.mkdir()
    for path in (pred_dir, label_dir, dataset):
        shutil.move(path, moved / path.name)
    pred_dir, label_dir, dataset = moved / "pred", moved / "labels", moved / "dataset.json"
    command = ["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset)]
    assert main(command) == 0
    assert (f"replacing the earlier evaluation there (the same files and settings; it scored them in "
            f"{tmp_path.resolve() / 'pred'} and {tmp_path.resolve() / 'labels'} and "
            f"{tmp_path.resolve() / 'dataset.json'}, moved since)\n") in capsys.readouterr().out
    again = json.loads((pred_dir / "evaluation" / "summary.json").read_text())
    assert again["settings"]["prediction_folder"] == str(pred_dir.resolve())
    assert (again["per_class"], again["inputs_sha256"]) == (first["per_class"], first["inputs_sha256"])
    # Moved again, with another setting: refused naming the setting alone (the move is none)
    shutil.move(moved, tmp_path / "project_v2")
    pred_dir, label_dir, dataset = (tmp_path / "project_v2" / path.name for path in (pred_dir, label_dir, dataset))
    command = ["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset)]
    assert main(command + ["--tolerance", "2"]) == 2
    assert capsys.readouterr().err == (
        f"error: --output {pred_dir / 'evaluation'} holds an earlier evaluation of other inputs or settings "
        f"(tolerance_mm 1.0, now 2.0), which this one would replace: give --output another folder to keep it, or "
        f"--overwrite to replace it\n")
    # ... or with a prediction made anew: the moved folder holds other files than those scored
    save(pred_dir / "c.nii.gz", sphere(np.array([30.0, 37.0, 50.0])) * 0)
    assert main(command) == 2
    err = capsys.readouterr().err
    assert (f'(prediction_folder "{(moved / "pred").resolve()}", now "{pred_dir.resolve()}" (other files)), which '
            f'this one would replace') in err
    assert json.loads((pred_dir / "evaluation" / "summary.json").read_text()) == again  # left as it was
    # One written before the files were recorded (the ninety-seventh and ninety-eighth sessions) is told by the
    # folders alone, as then
    del again["inputs_sha256"]
    (pred_dir / "evaluation" / "summary.json").write_text(json.dumps(again))
    assert main(command) == 2
    assert f'(prediction_folder "{(moved / "pred").resolve()}", now "{pred_dir.resolve()}"; label_folder' in \
        capsys.readouterr().err
    assert main(command + ["--overwrite"]) == 0


def test_the_same_evaluation_with_a_copy_of_labels_or_labels_folder_says_the_first_is_still_there(folders, tmp_path,
                                                                                                    capsys):
    """Another --labels file of the same bytes (or a copy of LABELS), the first still where the earlier evaluation
    named it: replaced as the same evaluation, the last line said "it scored them in .../dataset.json, moved since"
    of a file never moved (until the hundred-and-twenty-fourth session's helper h133). Now it names the first as
    still there and the one given now as another file of the same bytes; one gone is still "moved since"."""
    pred_dir, label_dir, dataset = folders
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset)]) == 0
    capsys.readouterr()
    copy = tmp_path / "config_copy" / "dataset.json"
    copy.parent.mkdir()
    shutil.copyfile(dataset, copy)
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(copy)]) == 0
    out = capsys.readouterr().out
    assert (f"replacing the earlier evaluation there (the same files and settings; its --labels {dataset.resolve()} "
            f"is still there, {copy.resolve()} given now another file of the same bytes)\n") in out, out
    assert "moved since" not in out
    # LABELS copied, the --labels copy moved back over the first (the earlier path gone): each said as it is
    shutil.copytree(label_dir, tmp_path / "labels_copy")
    copy.unlink()
    assert main(["evaluate", str(pred_dir), str(tmp_path / "labels_copy"), "--labels", str(dataset)]) == 0
    assert (f"(the same files and settings; it scored them in {copy.resolve()}, moved since; its LABELS "
            f"{label_dir.resolve()} is still there, {(tmp_path / 'labels_copy').resolve()} given now another folder "
            f"of the same files)\n") in capsys.readouterr().out


def test_the_inputs_digest_needs_no_hashlib_file_digest_which_python_3_10_lacks(folders, monkeypatch):
    """inputs_sha256 was made with hashlib.file_digest, new in Python 3.11: on 3.10, which pyproject's
    requires-python supports, every evaluation ended in its AttributeError (ninety-ninth session). The digests are
    those it made: SHA-256 over each scored file's name and the SHA-256 of its bytes, and dataset.json's."""
    import hashlib

    pred_dir, label_dir, dataset = folders
    monkeypatch.delattr(hashlib, "file_digest", raising=False)  # as on Python 3.10
    recorded = evaluate_folders(pred_dir, label_dir, dataset_json=dataset)["inputs_sha256"]

    def of_files(folder):
        whole = hashlib.sha256()
        for case in "abc":
            path = folder / f"{case}.nii.gz"
            whole.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
        return whole.hexdigest()

    assert recorded == {"prediction_folder": of_files(pred_dir), "label_folder": of_files(label_dir),
                        "dataset_json": hashlib.sha256(dataset.read_bytes()).hexdigest()}


def test_a_file_datalad_did_not_fetch_is_told_how_to_fetch_it_not_passed_over(folders):
    """A label that is a git-annex link whose content is not fetched was passed over by the folder's listing, so
    its prediction was "without a label, not scored" and the rest scored; a prediction so, "write this case's
    prediction there" (until the hundred-and-fourth session)."""
    pred_dir, label_dir, _ = folders
    for folder in (label_dir, pred_dir):
        case = folder / "a.nii.gz"
        stored = case.read_bytes()
        case.unlink()
        case.symlink_to("../../.git/annex/objects/Xk/3v/SHA256E-s7264--4d7a.nii.gz/SHA256E-s7264--4d7a.nii.gz")
        with pytest.raises(DataError, match=re.escape(f"{case}: a git-annex link whose content is not fetched")):
            evaluate_folders(pred_dir, label_dir)
        case.unlink()
        case.write_bytes(stored)


def test_the_inputs_digest_is_taken_as_scoring_reads_each_file_not_by_reading_it_again(folders, monkeypatch):
    """inputs_sha256 read every scored file a second time, after scoring it: from disk where the files exceed the
    page cache (until the hundredth session). The files scored are hashed in scoring's own read; dataset.json,
    which scoring does not read, alone is read for its digest."""
    from accelerated_seg import evaluate_output

    pred_dir, label_dir, dataset = folders
    read_again = []
    bytes_digest = evaluate_output._bytes_digest
    monkeypatch.setattr(evaluate_output, "_bytes_digest", lambda path: read_again.append(path) or bytes_digest(path))
    recorded = evaluate_folders(pred_dir, label_dir, dataset_json=dataset)["inputs_sha256"]
    assert read_again == [dataset]
    pairs, _ = match_cases(pred_dir, label_dir)
    assert recorded == evaluate_output.input_digests(pairs, dataset)  # as the files hold, read apart


def test_the_merge_is_recorded_as_it_took_effect_so_an_explicit_false_is_the_same_evaluation(folders, tmp_path):
    """merge_foreground=False and None (no --merge-foreground) were recorded apart in summary.json's settings, so
    the same evaluation rerun with an explicit False was refused as another ("merge_foreground null, now
    false"): the same but beside a binarized model's config.json. Recorded as it took effect since the
    ninety-ninth session (true, "references", false); one written before is read by what it merged."""
    from accelerated_seg.data.preprocess import PreprocessSettings

    pred_dir, label_dir, dataset = folders
    out = tmp_path / "same"
    assert evaluate_folders(pred_dir, label_dir, dataset_json=dataset, output_dir=out)["settings"][
        "merge_foreground"] is False
    evaluate_folders(pred_dir, label_dir, dataset_json=dataset, output_dir=out, merge_foreground=False)
    # one written before, as given (null beside false): the same evaluation still
    summary = json.loads((out / "summary.json").read_text())
    (out / "summary.json").write_text(json.dumps({**summary, "settings": {**summary["settings"],
                                                                         "merge_foreground": None}}))
    evaluate_folders(pred_dir, label_dir, dataset_json=dataset, output_dir=out, merge_foreground=False)
    # what differs in effect still differs: both sides merged against neither
    with pytest.raises(DataError, match="merge_foreground false, now true"):
        evaluate_folders(pred_dir, label_dir, output_dir=out, merge_foreground=True, dataset_json=None)
    # a binarized model's config.json merges the references alone, unless merge_foreground=False (a 2 refused)
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "model": {"name": "unet"}, "num_classes": 2, "labels": {"0": "background", "1": "foreground"},
        "preprocessing": PreprocessSettings(binarize=True).to_dict()}))
    for case in ("a", "b", "c"):  # such a model's predictions: 0 and 1
        save(pred_dir / f"{case}.nii.gz", (nib.load(pred_dir / f"{case}.nii.gz").get_fdata() > 0).astype(np.uint8))
    out = tmp_path / "binarized"
    implied = evaluate_folders(pred_dir, label_dir, dataset_json=model, output_dir=out)
    assert implied["settings"]["merge_foreground"] == "references" and "binarized_references" not in implied[
        "settings"]
    for merge, now in ((False, "false"), (True, "true")):
        with pytest.raises(DataError, match=f'merge_foreground "references", now {now}'):
            evaluate_folders(pred_dir, label_dir, dataset_json=model, output_dir=out, merge_foreground=merge)
    # one written before: null, and binarized_references true where Segmentation.evaluate gave it
    (out / "summary.json").write_text(json.dumps({**implied, "settings": {
        **implied["settings"], "merge_foreground": None, "binarized_references": True}}))
    evaluate_folders(pred_dir, label_dir, dataset_json=model, output_dir=out)
    # binarized_references=True is that merge: recorded alike, no setting of its own
    out = tmp_path / "dataset"
    evaluate_folders(pred_dir, label_dir, num_classes=2, output_dir=out, binarized_references=True)
    evaluate_folders(pred_dir, label_dir, num_classes=2, output_dir=out, binarized_references=True,
                     merge_foreground=None)
    with pytest.raises(DataError, match=r'\(merge_foreground "references", now false\)'):
        evaluate_folders(pred_dir, label_dir, num_classes=2, output_dir=out)


def test_evaluate_command(folders, capsys):
    pred_dir, label_dir, dataset = folders
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset), "--tolerance", "2"]) == 0
    out = capsys.readouterr().out
    assert "class 2 lesion: Dice 0.6667" in out and "(of 3 case(s): 1 with one side empty: inf, not averaged)" in out
    assert json.loads((pred_dir / "evaluation" / "summary.json").read_text())["tolerance_mm"] == {"1": 2.0, "2": 2.0}

    # An output that cannot be written: one line, not a traceback.
    (pred_dir / "taken").write_text("a file, not a folder")
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3", "--output",
                 str(pred_dir / "taken")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    assert f"--output {pred_dir / 'taken'} is a file, not a folder" in err  # errno 17, after scoring, before
    # Below a file, or a folder where metrics.csv goes: errno 20 and 21 after scoring, before the twenty-eighth
    (pred_dir / "holds_a_folder" / "metrics.csv").mkdir(parents=True)
    for output, message in ((pred_dir / "taken" / "sub", "taken is a file, so the folder cannot be made there"),
                            (pred_dir / "holds_a_folder", "holds a folder named metrics.csv, where that file goes")):
        assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3", "--output", str(output)]) == 2
        assert message in capsys.readouterr().err
    # A training run's folder: its summary.json was replaced by the evaluation's before the thirtieth session
    run = pred_dir / "run"
    run.mkdir()
    (run / "summary.json").write_text('{"step": 300, "best_dice": 0.9}')
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3", "--output", str(run)]) == 2
    assert "holds summary.json that evaluate did not write (a training run's summary?)" in capsys.readouterr().err
    assert json.loads((run / "summary.json").read_text()) == {"step": 300, "best_dice": 0.9}
    # One before its summary.json (still training, or stopped by Ctrl-C): the evaluation's summary.json was written
    # there, and the run's replaced it at its end, or its resume's, without a word.
    live = pred_dir / "live_run"
    (live / "checkpoints" / "step_2").mkdir(parents=True)
    (live / "run_info.json").write_text('{"strategy": "single process"}')
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3", "--output", str(live)]) == 2
    assert f"--output {live} is a training run's folder (it holds run_info.json)" in capsys.readouterr().err
    assert not (live / "summary.json").exists() and not (live / "metrics.csv").exists()
    # evaluate's own files are replaced on a rerun of the same folders and settings (the first call above wrote them)
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset), "--tolerance", "2"]) == 0
    assert "without a label" not in capsys.readouterr().out
    # A prediction without a label is said on the console, not only in summary.json (sixty-seventh session)
    shutil.copy(pred_dir / "a.nii.gz", pred_dir / "extra.nii.gz")
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset), "--tolerance", "2"]) == 0
    assert "warning: 1 prediction(s) without a label of the same name, not scored: extra.nii.gz" in (
        capsys.readouterr().out)
    (pred_dir / "extra.nii.gz").unlink()
    # A file given for a folder ("prediction folder not found" before, of a file that was there)
    assert main(["evaluate", str(pred_dir / "a.nii.gz"), str(label_dir), "--num-classes", "3"]) == 2
    assert "a.nii.gz: a file, where evaluate takes the prediction folder" in capsys.readouterr().err

    (pred_dir / "a.nii.gz").unlink()
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3"]) == 2
    assert "have no prediction" in capsys.readouterr().err


def test_the_command_refuses_a_wrong_folder_file_or_setting_before_torch_and_monai_import(folders):
    """Refused from the arguments, the folders and the NIfTI headers alone: until the fifty-sixth session
    each of these waited 13-15 s for torch and MONAI to import first, on 2 cores; now 0.4-0.6 s (with a
    model's config.json as --labels, since the fifty-seventh)."""
    from refusals import run_probing_imports

    pred_dir, label_dir, dataset = folders
    (pred_dir / "taken").write_text("a file, not a folder")
    refusals = [([str(pred_dir.parent / "pred_typo"), str(label_dir)], "prediction folder not found"),
                ([str(label_dir), str(label_dir)], "is both the prediction and the label folder"),
                ([str(pred_dir), str(label_dir), "--output", str(pred_dir / "taken")], "is a file, not a folder"),
                ([str(pred_dir), str(label_dir), "--labels", str(dataset), "--tolerance", "1", "2", "3"],
                 "--tolerance gives 3 value(s) for 2 class(es) [1, 2]"),
                ([str(pred_dir), str(label_dir), "--labels", str(dataset), "--num-classes", "4"],
                 "--num-classes 4 disagrees with the classes [1, 2]")]
    # A model's config.json as --labels: its classes' values come from its preprocessing settings,
    # read without torch or MONAI too (data/preprocess_settings.py). Here class 2 is written as 4.
    export_config = pred_dir.parent / "model" / "config.json"
    export_config.parent.mkdir()
    export_config.write_text(json.dumps({
        "model": {"name": "unet"}, "num_classes": 3, "labels": {"0": "background", "1": "ventricles", "2": "lesion"},
        "preprocessing": {"spacing": None, "label_map": [[0, 0], [1, 1], [4, 2]]}}))
    refusals += [([str(pred_dir), str(label_dir), "--labels", str(export_config), "--num-classes", "3"],
                  "--num-classes 3 disagrees with the classes [1, 4]"),
                 ([str(pred_dir), str(label_dir), "--labels", str(export_config), "--tolerance", "1", "2", "3"],
                  "--tolerance gives 3 value(s) for 2 class(es) [1, 4]")]

    def assert_refused_at_once(args, message):
        proc, imported = run_probing_imports("accelerated_seg.cli", "evaluate", *args, module=True)
        assert proc.returncode == 2 and proc.stderr.startswith("error: ") and message in proc.stderr, proc.stderr
        assert imported == [], (args, imported)

    for args, message in refusals:
        assert_refused_at_once(args, message)
    save(pred_dir / "c.nii.gz", np.zeros((60, 50, 39), np.uint8))  # last: grids are checked before settings
    assert_refused_at_once([str(pred_dir), str(label_dir), "--num-classes", "3"], "are not on one voxel grid")
    assert not (pred_dir / "evaluation").exists()


def test_an_output_folder_no_file_can_be_made_in_is_refused_before_any_case_is_scored(folders, monkeypatch):
    """A read-only --output (or the predictions' folder, where evaluation/ goes by default) was found when
    metrics.csv was written, once every case was scored (an audit's probe)."""
    from faults import read_only_below

    pred_dir, label_dir, dataset = folders
    read_only_below(monkeypatch, pred_dir)
    scored = []
    _replace_in_every_evaluate_module(monkeypatch, "read_label_map", lambda path, *_: scored.append(path) or 1 / 0)
    for output in (None, pred_dir / "evaluation" / "run_2"):
        with pytest.raises(DataError, match=rf"^output_dir {pred_dir / 'evaluation'}\S*: no file can be made in "
                                            rf"{pred_dir} \(Read-only file system\); give a folder you can write to"):
            evaluate_folders(pred_dir, label_dir, dataset_json=dataset, output_dir=output)
    assert scored == [] and not (pred_dir / "evaluation").exists()


def test_evaluate_folders_errors_name_its_keyword_arguments_and_the_commands_errors_its_flags(folders, tmp_path,
                                                                                               capsys):
    """evaluate_folders called from Python named the command line's flags in its errors ("--output <folder> is a
    file", "--num-classes 4 disagrees", "give --labels a dataset.json ...", "drop --merge-foreground"), settings
    its caller never typed: they name its keyword arguments, and the command's its flags (ninetieth session)."""
    pred_dir, label_dir, dataset = folders
    (pred_dir / "taken").write_text("a file, not a folder")
    missing = tmp_path / "missing.json"
    reference = nib.load(label_dir / "a.nii.gz").get_fdata()
    save(tmp_path / "masks" / "a.nii.gz", np.where(reference > 0, 255, 0).astype(np.uint8))  # scored first
    for case in "bc":
        shutil.copy(label_dir / f"{case}.nii.gz", tmp_path / "masks" / f"{case}.nii.gz")
    save(tmp_path / "mask" / "a.nii.gz", np.where(reference > 0, 255, 0).astype(np.uint8))
    save(tmp_path / "multi" / "a.nii.gz", reference.astype(np.uint8))  # values 1 and 2: none shared with [255]
    refusals = [  # (folders, keyword arguments, the command's flags, the error from Python, the command's error)
        ((pred_dir, label_dir), {"output_dir": pred_dir / "taken"}, ["--output", str(pred_dir / "taken")],
         f"output_dir {pred_dir / 'taken'} is a file, not a folder", f"--output {pred_dir / 'taken'} is a file"),
        ((pred_dir, label_dir), {"dataset_json": dataset, "num_classes": 4},
         ["--labels", str(dataset), "--num-classes", "4"], "num_classes 4 disagrees with the classes [1, 2]",
         "--num-classes 4 disagrees with the classes [1, 2]"),
        ((pred_dir, label_dir), {"num_classes": 1}, ["--num-classes", "1"],
         "num_classes must count background", "--num-classes must count background"),
        ((pred_dir, label_dir), {"dataset_json": dataset, "tolerance_mm": [1, 2, 3]},
         ["--labels", str(dataset), "--tolerance", "1", "2", "3"], "tolerance_mm gives 3 value(s) for 2 class(es)",
         "--tolerance gives 3 value(s) for 2 class(es)"),
        ((pred_dir, label_dir), {"dataset_json": dataset, "merge_foreground": True},
         ["--labels", str(dataset), "--merge-foreground"], "but merge_foreground=True scores every foreground value",
         "but --merge-foreground scores every foreground value"),
        ((pred_dir, label_dir), {"dataset_json": missing}, ["--labels", str(missing)],
         f"{missing}: dataset_json file not found", f"{missing}: --labels file not found"),
        ((pred_dir, label_dir), {"merge_foreground": True, "num_classes": 3},
         ["--merge-foreground", "--num-classes", "3"],
         "leaves two classes, not num_classes 3: drop one", "leaves two classes, not --num-classes 3: drop one"),
        ((pred_dir, tmp_path / "masks"), {"num_classes": 3}, ["--num-classes", "3"],
         "check num_classes / dataset_json, or the file; if 255 marks unannotated voxels, give dataset_json a "
         "dataset.json that names it the \"ignore\" label; if the reference is a mask saved as 0 and 255, "
         "merge_foreground=True makes class 1 the foreground: every value above 0 in the references and in the "
         "predictions merged into one",
         "check --num-classes / --labels, or the file; if 255 marks unannotated voxels, give --labels a dataset.json "
         "that names it the \"ignore\" label; if the reference is a mask saved as 0 and 255, --merge-foreground "
         "makes class 1 the foreground: every value above 0 in the references and in the predictions merged into "
         "one"),
        ((tmp_path / "multi", tmp_path / "mask"), {}, [],
         "if the references are masks saved as 0 and 255, merge_foreground=True makes class 1 the foreground: "
         "every value above 0 in the references and in the predictions merged into one; to score each value as a "
         "class all the same, give "
         "dataset_json a dataset.json naming them (or num_classes above the largest)",
         "if the references are masks saved as 0 and 255, --merge-foreground makes class 1 the foreground: every "
         "value above 0 in the references and in the predictions merged into one; to score each value as a class "
         "all the same, give --labels "
         "a dataset.json naming them (or --num-classes above the largest)")]
    for (predictions, labels), keywords, flags, from_python, from_the_command in refusals:
        with pytest.raises(ValueError) as refused:
            evaluate_folders(predictions, labels, **keywords)
        assert from_python in str(refused.value) and "--" not in str(refused.value), refused.value
        assert main(["evaluate", str(predictions), str(labels), *flags]) == 2
        assert from_the_command in capsys.readouterr().err
    assert not (pred_dir / "evaluation").exists()


def test_a_negative_or_non_finite_tolerance_is_refused_naming_it_before_any_file_is_read(folders, monkeypatch,
                                                                                          capsys):
    """--tolerance -1 was "surface-Dice tolerances must be finite and >= 0 mm; got {1: -1.0}", naming no setting,
    once the headers were read (and, where the files give the classes, every label map): a review of the
    ninetieth session. The command names --tolerance, evaluate_folders its keyword tolerance_mm, before any file."""

    pred_dir, label_dir, _ = folders
    read = []
    for reader in ("read_label_map", "read_nifti"):
        _replace_in_every_evaluate_module(monkeypatch, reader, lambda path, *_, **__: read.append(path) or 1 / 0)
    for given, flags, said in ((-1, ["-1"], "-1"), ([1, math.nan], ["1", "nan"], "nan"), ({1: 1, 2: -2.5}, None,
                                                                                           "-2.5")):
        with pytest.raises(ValueError, match=re.escape(f"tolerance_mm must be finite and >= 0 mm (a surface-Dice "
                                                       f"tolerance), got {said}")):
            evaluate_folders(pred_dir, label_dir, tolerance_mm=given)
        if flags is not None:
            assert main(["evaluate", str(pred_dir), str(label_dir), "--tolerance", *flags]) == 2
            assert capsys.readouterr().err == (f"error: --tolerance must be finite and >= 0 mm (a surface-Dice "
                                               f"tolerance), got {said}\n")
    assert read == [] and not (pred_dir / "evaluation").exists()


def test_a_2d_label_map_is_refused_naming_its_file_before_any_case_is_scored(folders):
    """2D maps (one slice saved as such) reached the distances and failed there with "spacing (2.0, 2.0,
    2.0) must give one voxel size per axis of shape (50, 40)", naming no file, once the cases before them
    were scored (an audit's probe)."""
    pred_dir, label_dir, dataset = folders
    label = nib.load(label_dir / "b.nii.gz")
    slice_alone = np.asanyarray(label.dataobj)[0].astype(np.uint8)  # (Y, Z)
    for folder in (label_dir, pred_dir):  # both 2D: one grid, as far as shapes and affines tell
        nib.save(nib.Nifti1Image(slice_alone, label.affine), folder / "b.nii.gz")
    with pytest.raises(DataError, match=rf"^{label_dir / 'b.nii.gz'}: a 2D image \({slice_alone.shape[0]}, "
                                        rf"{slice_alone.shape[1]}\); evaluate scores 3D label maps"):
        evaluate_folders(pred_dir, label_dir, dataset_json=dataset)
    assert not (pred_dir / "evaluation").exists()


def test_a_tilde_in_evaluate_folders_paths_is_the_home_folder(folders, tmp_path, monkeypatch):
    """The command line expands "~" (cli.path_argument); evaluate_folders(..., output_dir="~/ev") wrote
    into a folder named "~" in the working directory, and "~/pred" was "not found" (an audit's probe)."""
    pred_dir, label_dir, dataset = folders
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(work)
    summary = evaluate_folders("~/pred", "~/labels", dataset_json="~/dataset.json", output_dir="~/ev")
    assert summary["num_cases"] == 3 and (tmp_path / "ev" / "summary.json").is_file()
    assert list(work.iterdir()) == []


def test_a_label_map_of_other_than_whole_numbers_is_refused_naming_its_values_and_any_scaling(tmp_path):
    """"found fractional or NaN values" alone, before the seventy-fourth session: a label of 1000 saved
    through a uint8 header (scl_slope 3.92) reads back as 1000.0000012, which only the header explains."""
    from accelerated_seg.evaluate import read_label_map

    labels = np.zeros((4, 4, 4), np.int32)
    labels[1, 1, 1] = 1000
    scaled = nib.Nifti1Image(labels, np.eye(4))
    scaled.set_data_dtype(np.uint8)  # nibabel scales 1000 into 0..255
    nib.save(scaled, tmp_path / "scaled.nii.gz")
    with pytest.raises(DataError, match=r"scaled.nii.gz: a label map must hold whole class numbers, found 1 other "
                                        r"value\(s\) \(1000.0000\d+\); its header scales the stored integers "
                                        r"\(scl_slope 3.92157, scl_inter 0\), which made them so: save the label map "
                                        r"with an integer data type and no scaling"):
        read_label_map(tmp_path / "scaled.nii.gz")
    probabilities = np.zeros((4, 4, 4), np.float32)
    probabilities[0, 0, :] = [0.25, 0.5, np.nan, 1.0]
    nib.save(nib.Nifti1Image(probabilities, np.eye(4)), tmp_path / "probs.nii.gz")
    with pytest.raises(DataError, match=r"found 3 other value\(s\) \(0.25, 0.5, nan\); is this an image or a "
                                        r"probability map instead of a label map\? Give the label map of class "
                                        r"values \(a probability map thresholded, or the argmax of one per class\)"):
        read_label_map(tmp_path / "probs.nii.gz")
    # whole numbers but for a NaN (another tool's float output): asked "an image or a probability map?" before the
    # ninety-fifth session
    classes = np.zeros((4, 4, 4), np.float32)
    classes[1, 1, :] = [1, 2, np.nan, np.inf]
    nib.save(nib.Nifti1Image(classes, np.eye(4)), tmp_path / "nan.nii.gz")
    with pytest.raises(DataError, match=r"nan\.nii\.gz: 2 voxel\(s\) NaN or Inf among whole class numbers; a label map "
                                        r"holds none: set them to 0 \(background\) or to their class, or export the "
                                        r"map again"):
        read_label_map(tmp_path / "nan.nii.gz")


def test_a_tilde_in_an_output_argument_is_the_home_folder(folders, tmp_path, monkeypatch, capsys):
    """The shell leaves ``~`` alone after ``=`` (``--output=~/ev``): evaluate wrote into a folder named
    ``~`` in the working directory, which ``rm -rf ~`` deletes with one's home (seventy-fifth session)."""
    pred_dir, label_dir, dataset = folders
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir(), work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset), "--output=~/ev"]) == 0
    assert (home / "ev" / "summary.json").is_file() and list(work.iterdir()) == []
    assert str(home / "ev") in capsys.readouterr().out


def test_a_dataset_json_saved_with_a_byte_order_mark_names_the_classes_and_the_ignore_label(tmp_path):
    """Training reads a dataset.json saved with a byte-order mark (Windows editors, PowerShell), but evaluate's
    --labels refused the same file ("Unexpected UTF-8 BOM"), and its ignore label was read as none."""
    from accelerated_seg.evaluate import class_names_from_json, ignore_from_json

    path = tmp_path / "dataset.json"
    path.write_text(json.dumps({"labels": {"background": 0, "tumour": 1, "ignore": 2}}), encoding="utf-8-sig")
    assert class_names_from_json(path) == {0: "background", 1: "tumour"}
    assert ignore_from_json(path) == 2


def test_class_names_of_a_folder_are_its_dataset_jsons_and_a_missing_file_says_what_the_labels_take(tmp_path):
    """class_names_from_json said "file not found" as check_labels_file does, in a copy of its own, and a
    folder gave "[Errno 21] Is a directory" uncaught (ninety-second session's probe); a folder holding a
    dataset.json was refused naming it until the ninety-seventh session, and is read as it now."""
    from accelerated_seg.evaluate import class_names_from_json, ignore_from_json

    (tmp_path / "dataset.json").write_text(json.dumps({"labels": {"background": 0, "tumour": 1, "ignore": 2}}))
    assert class_names_from_json(tmp_path) == {0: "background", 1: "tumour"} and ignore_from_json(tmp_path) == 2
    with pytest.raises(DataError, match=rf"^{re.escape(str(tmp_path / 'gone.json'))}: --labels file not found; "
                                        r"give the dataset.json that names the classes$"):
        class_names_from_json(tmp_path / "gone.json", "--labels")


def test_labels_given_as_a_dataset_or_model_folder_takes_the_file_in_it_that_names_the_classes(folders, tmp_path,
                                                                                              capsys):
    """--labels <folder> was refused until the ninety-seventh session, naming the dataset.json it held ("give
    Dataset042/dataset.json"): an nnU-Net or Decathlon dataset's folder, or a model's folder as predict --model
    takes it, is read through the one file in it that names the classes, as given itself."""
    from accelerated_seg.data.preprocess import PreprocessSettings

    pred_dir, label_dir, dataset = folders  # dataset: tmp_path/dataset.json, beside pred/ and labels/
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset), "--output",
                 str(tmp_path / "by_file")]) == 0
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(tmp_path), "--output",
                 str(tmp_path / "by_folder")]) == 0
    capsys.readouterr()
    by_file, by_folder = (json.loads((tmp_path / out / "summary.json").read_text()) for out in ("by_file", "by_folder"))
    assert by_folder["classes"] == {"1": "ventricles", "2": "lesion"} and by_folder["per_class"] == by_file["per_class"]
    # a model's folder (an export, config.json + model.safetensors): its config.json's names, as given itself
    model = tmp_path / "model"
    model.mkdir()
    config = {"model": {"name": "unet"}, "num_classes": 3, "labels": {"0": "background", "1": "vent", "2": "les"},
              "preprocessing": PreprocessSettings().to_dict()}
    (model / "config.json").write_text(json.dumps(config))
    (model / "model.safetensors").write_bytes(b"")
    summary = evaluate_folders(pred_dir, label_dir, dataset_json=model, output_dir=tmp_path / "by_model")
    assert summary["classes"] == {"1": "vent", "2": "les"}


def test_labels_given_as_a_folder_that_holds_no_single_declaration_is_refused_before_any_case_is_read(
        folders, tmp_path, monkeypatch, capsys):
    """--labels <folder> was "error: [Errno 21] Is a directory: '...'", naming neither the flag nor the file
    wanted, once every header was read (ninety-second session's probe); a folder is read through its dataset.json
    or config.json since the ninety-seventh session, and one holding both, or neither, is refused saying what to
    give: a run's folder names its exports."""
    import accelerated_seg.evaluate as evaluate

    pred_dir, label_dir, dataset = folders
    read = []
    monkeypatch.setattr(evaluate, "read_nifti", lambda path, **_: read.append(path) or 1 / 0)
    (tmp_path / "config.json").write_text("{}")
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(tmp_path)]) == 2
    assert (f"error: {tmp_path}: a folder holding both dataset.json and config.json, where --labels takes the one "
            f"file that names the classes: give {dataset} (the dataset's) or {tmp_path / 'config.json'} (a model's, "
            f"in the values predict writes)") in capsys.readouterr().err
    run = tmp_path / "run"
    (run / "best_model").mkdir(parents=True)
    (run / "model").mkdir()
    for export in ("best_model", "model"):
        (run / export / "config.json").write_text("{}")
    for labels, below in ((pred_dir, ""), (run, f"; give one of {run / 'best_model'}, {run / 'model'}")):
        assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(labels)]) == 2
        assert capsys.readouterr().err == (
            f"error: {labels}: a folder without a dataset.json or config.json, where --labels takes the dataset.json "
            f"(or a model's config.json) that names the classes, or the folder holding it{below}\n")
    with pytest.raises(DataError, match="a folder without a dataset.json or config.json, where dataset_json takes"):
        evaluate_folders(pred_dir, label_dir, dataset_json=label_dir)
    assert read == [] and not (pred_dir / "evaluation").exists()


def test_labels_whose_dataset_json_is_a_folder_or_a_link_to_nothing_beside_a_config_json_is_said_so(
        folders, tmp_path, monkeypatch, capsys):
    """A dataset.json that is a folder (a copy that made one, or a link to one), given to --labels itself or in the
    folder given, was "a folder without a dataset.json or config.json", and a dataset.json linking to nothing or a
    folder beside a readable config.json had the config.json taken without a word, where both readable are refused as
    two, until review r116: each is said as load_cases says it (review r113), before any case is read."""
    import accelerated_seg.evaluate as evaluate

    pred_dir, label_dir, _ = folders
    read = []
    monkeypatch.setattr(evaluate, "read_nifti", lambda path, **_: read.append(path) or 1 / 0)
    folder = tmp_path / "copied"
    (folder / "dataset.json").mkdir(parents=True)
    linked = tmp_path / "linked"
    (linked / "real").mkdir(parents=True)
    (linked / "dataset.json").symlink_to("real")
    not_a_file = ", not the dataset's JSON file: put the dataset's dataset.json in its place (copy it again from"
    for given, said in ((folder / "dataset.json", f"{folder / 'dataset.json'} is a folder{not_a_file}"),
                        (folder, f"{folder / 'dataset.json'} is a folder{not_a_file}"),
                        (linked, f"{linked / 'dataset.json'} is a folder (a symbolic link to real){not_a_file}")):
        assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(given)]) == 2
        assert capsys.readouterr().err.startswith(f"error: {said}"), given
    (folder / "config.json").write_text("{}")  # a model's beside it: the folder is said, then the file to give
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(folder)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {folder / 'dataset.json'} is a folder{not_a_file}")
    dangling = tmp_path / "dangling"
    dangling.mkdir()
    (dangling / "dataset.json").symlink_to(tmp_path / "not_mounted" / "dataset.json")
    (dangling / "config.json").write_text("{}")
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dangling)]) == 2
    assert capsys.readouterr().err == (
        f"error: {dangling / 'dataset.json'} is a symbolic link to {tmp_path / 'not_mounted' / 'dataset.json'}, "
        f"which does not exist (a dangling link: what it names not mounted, or moved?): mount or make what it names, "
        f"or give {dangling / 'config.json'} itself (a model's, in the values predict writes), where its classes "
        f"are the ones to score\n")
    assert read == [] and not (pred_dir / "evaluation").exists()


def test_labels_given_as_the_datasets_csv_is_refused_naming_what_names_the_classes(folders, tmp_path, monkeypatch,
                                                                                  capsys):
    """--labels cases.csv (a CSV dataset's own file, which a new user gives as the dataset's description) was told
    it "needs a \"labels\" object ... JSONDecodeError: Expecting value" (hundredth session's walk through the docs):
    it is refused as a CSV, which names no classes, before any case is read, pointing to the model's config.json."""
    import accelerated_seg.evaluate as evaluate

    pred_dir, label_dir, _ = folders
    read = []
    monkeypatch.setattr(evaluate, "read_nifti", lambda path, **_: read.append(path) or 1 / 0)
    table = tmp_path / "cases.CSV"
    table.write_text("image,label\nimg/a.nii.gz,lab/a.nii.gz\n")
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(table)]) == 2
    assert capsys.readouterr().err == (
        f"error: {table}: a CSV, where --labels takes the dataset.json (or a model's config.json) that names the "
        f"classes: a CSV names none (training took them from data.labels); give the config.json of the model that "
        f"predicted, or its folder (best_model/, model/); for predictions another tool made, give --num-classes "
        f"(classes including background) instead\n")
    # --num-classes, for predictions that came from no model of ours, was unsaid until the hundredth session
    with pytest.raises(DataError, match="a CSV, where dataset_json takes .* give num_classes \\(classes"):
        evaluate_folders(pred_dir, label_dir, dataset_json=table)
    assert read == [] and not (pred_dir / "evaluation").exists()


def test_an_output_in_the_labels_folder_is_refused_naming_both_before_any_case_is_read(folders, monkeypatch,
                                                                                      capsys):
    """--output LABELS (or a folder in it) wrote metrics.csv and summary.json among the dataset's reference
    labels (ninety-second session's probe)."""
    import accelerated_seg.evaluate as evaluate

    pred_dir, label_dir, dataset = folders
    read = []
    monkeypatch.setattr(evaluate, "read_nifti", lambda path, **_: read.append(path) or 1 / 0)
    for output, where in ((label_dir, "is"), (label_dir / "evaluation", "is inside")):
        assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset), "--output",
                     str(output)]) == 2
        assert (f"error: --output {output} {where} the reference labels' folder LABELS {label_dir}: metrics.csv and "
                f"summary.json would lie among the dataset's labels; give a folder outside it"
                in capsys.readouterr().err)
    with pytest.raises(DataError, match=r"is the reference labels' folder label_dir "):
        evaluate_folders(pred_dir, label_dir, dataset_json=dataset, output_dir=label_dir)
    assert read == [] and not (label_dir / "evaluation").exists()
    assert sorted(path.name for path in label_dir.iterdir() if not path.name.endswith(".nii.gz")) == []


def test_metrics_and_summary_are_replaced_together_or_neither_when_a_write_fails(folders, monkeypatch, capsys):
    """The two files were written one after the other: a full disk (or Ctrl-C) at summary.json left this
    evaluation's metrics.csv beside an earlier one's summary.json (ninety-second session's probe)."""
    import errno

    import accelerated_seg.files as files

    pred_dir, label_dir, dataset = folders
    evaluate_folders(pred_dir, label_dir, dataset_json=dataset)
    output = pred_dir / "evaluation"
    before = {name: (output / name).read_text() for name in ("metrics.csv", "summary.json")}
    synced, sync = [], files.sync_file
    (pred_dir.parent / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(pred_dir.parent / "tmp"))  # where the scores are kept instead

    def full_at_the_second_file(path):
        synced.append(path)
        if len(synced) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        sync(path)

    monkeypatch.setattr(files, "sync_file", full_at_the_second_file)
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3", "--tolerance", "2",
                 "--overwrite"]) == 2
    assert (f"error: --output {output}: metrics.csv and summary.json cannot be written (No space left on device); "
            f"neither file there was replaced") in capsys.readouterr().err
    assert {name: (output / name).read_text() for name in before} == before
    assert sorted(path.name for path in output.iterdir()) == ["metrics.csv", "summary.json"]  # no temporary left


def test_a_full_disk_at_the_last_write_keeps_every_score_and_says_them(folders, tmp_path, monkeypatch, capsys):
    """evaluate scores every case (hours, for a large test set) and then writes its two files: a full disk or a
    quota there said "free some space or give another folder", and every score was lost, none said (the
    hundred-and-twenty-second session's Fixed entry). Both files are kept in the temporary folder instead, the
    command says its scores as ever and the mv that puts the files in place, which then are this evaluation; from
    Python the error holds the summary."""
    import errno

    import accelerated_seg.evaluate_output as evaluate_output
    from accelerated_seg.evaluate_output import EvaluationNotWritten

    pred_dir, label_dir, dataset = folders
    output, elsewhere = tmp_path / "full", tmp_path / "tmp"
    elsewhere.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))
    write, full = evaluate_output.write_files_together, [output]

    def full_there(folder, writers):
        if folder in full or folder.parent in full:  # the folder, or one made in it (the scores kept)
            raise OSError(errno.ENOSPC, "No space left on device")
        write(folder, writers)

    monkeypatch.setattr(evaluate_output, "write_files_together", full_there)
    command = ["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset), "--output", str(output)]
    assert main(command) == 2
    said, (kept,) = capsys.readouterr(), list(elsewhere.iterdir())
    assert re.search(r"^class 1 ventricles: Dice .*\nclass 2 lesion: Dice .*\n", said.out, re.MULTILINE)
    assert re.search(rf"^3 case\(s\), mean Dice [0-9.]+ ± [0-9.]+; metrics.csv and summary.json not written to "
                     rf"{re.escape(str(output))} \(kept in {re.escape(str(kept))} instead\)$", said.out, re.MULTILINE)
    assert said.err == (f"error: --output {output}: metrics.csv and summary.json cannot be written (No space left on "
                        f"device); neither file there was replaced; every score is kept in {kept} instead (in the "
                        f"temporary folder, which a job's end may clean): free some space, then mkdir -p {output} "
                        f"&& mv {kept}/metrics.csv {kept}/summary.json {output}/\n")
    whole = evaluate_folders(pred_dir, label_dir, dataset_json=dataset, output_dir=tmp_path / "whole")
    assert json.loads((kept / "summary.json").read_text())["per_class"] == whole["per_class"]
    assert (kept / "metrics.csv").read_text() == (tmp_path / "whole" / "metrics.csv").read_text()
    # the command said, run as printed once there is room: the same evaluation, which the same command replaces
    assert _run_as_printed(said.err) == sorted(["metrics.csv", "summary.json"]) == sorted(os.listdir(output))
    full.clear()
    assert main(command) == 0
    assert "replacing the earlier evaluation there (the same folders and settings)" in capsys.readouterr().out

    full.extend([output / "again", elsewhere])  # the temporary folder's disk as full: nothing kept, the lines said
    shutil.rmtree(kept)
    with pytest.raises(EvaluationNotWritten, match=rf"; neither file there was replaced, and the scores could not be "
                                                   rf"kept in the temporary folder {re.escape(str(elsewhere))} either "
                                                   rf"\(No space left on device\): free some space or give another "
                                                   rf"folder$") as not_written:
        evaluate_folders(pred_dir, label_dir, dataset_json=dataset, output_dir=output / "again")
    assert not_written.value.kept_in is None and not_written.value.summary["per_class"] == whole["per_class"]
    assert list(elsewhere.iterdir()) == []


def _run_as_printed(error_line: str) -> list[str]:
    """The command an error line suggests after its ", then ", run by bash as printed: what is left where it took
    the files from (nothing, where it moved them)."""
    command = error_line.rstrip("\n").split(", then ", 1)[1]
    ran = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    kept = Path(re.search(r"every score is kept in (.+?) instead", error_line).group(1))
    return sorted(set(["metrics.csv", "summary.json"]) - set(os.listdir(kept)))


@pytest.mark.parametrize("name, failure, what", [
    (b"r\xe9sultats", errno.ENOSPC, "free some space"),  # a folder named in Latin-1: '...r\xe9sultats' named another
    (b"scores", errno.EACCES, "once {output} can be written to (Permission denied)")])  # "free some space" misled
def test_the_command_that_puts_kept_scores_in_place_works_as_printed(folders, tmp_path, monkeypatch, capsys, name,
                                                                       failure, what):
    """The command the full disk's error line gives, pasted into bash as printed, puts both files into the output
    folder, whatever its name, made or not (review r107): into a folder not there, ``mv a b folder/`` failed ("No
    such file or directory"); one named in Latin-1 was printed ``'.../r\\xe9sultats'/``, four characters to the shell
    (printed_paths), now ``$'.../r\\xe9sultats'``; a folder that was not writable was told to free some space."""
    import accelerated_seg.evaluate_output as evaluate_output

    pred_dir, label_dir, dataset = folders
    (tmp_path / "out").mkdir()
    output, elsewhere = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/out/" + name)), tmp_path / "tmp"
    elsewhere.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))
    write = evaluate_output.write_files_together

    def failing_there(folder, writers):
        if folder == output:
            raise OSError(failure, os.strerror(failure))
        write(folder, writers)

    monkeypatch.setattr(evaluate_output, "write_files_together", failing_there)
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset), "--output", str(output)]) == 2
    said = capsys.readouterr().err
    assert f"which a job's end may clean): {what.format(output=output)}, then mkdir -p " in said
    assert _run_as_printed(said) == ["metrics.csv", "summary.json"] == sorted(os.listdir(output))
    assert os.listdir(tmp_path / "out") == [os.fsdecode(name)]  # no folder of another name made


def test_labels_without_a_prediction_of_their_name_say_where_the_predictions_are(folders, tmp_path, capsys):
    """Labels named as images (a_0000.nii.gz) against predict's a.nii.gz, or the predictions one folder down,
    were told "3 label(s) ... have no prediction ...; predict those cases" (ninety-second session's probe)."""
    pred_dir, label_dir, _ = folders
    (tmp_path / "suffixed").mkdir()
    for case in "abc":
        shutil.copy(label_dir / f"{case}.nii.gz", tmp_path / "suffixed" / f"{case}_0000.nii.gz")
    assert main(["evaluate", str(pred_dir), str(tmp_path / "suffixed")]) == 2
    assert (f"none of the 3 label(s) in {tmp_path / 'suffixed'} (a_0000, b_0000, c_0000) has a prediction of its name "
            f"in {pred_dir}, which holds 4 NIfTI file(s) of other names (a.nii.gz, a_probs.nii.gz, b.nii.gz, ...): "
            f"cases are paired by file name") in capsys.readouterr().err
    shutil.copytree(pred_dir, tmp_path / "run" / "predictions")
    assert main(["evaluate", str(tmp_path / "run"), str(label_dir)]) == 2
    assert (f"has a prediction of its name in {tmp_path / 'run'}, but its folder predictions/ holds NIfTI files: "
            f"cases are paired by file name within the folders given; give {tmp_path / 'run' / 'predictions'}"
            ) in capsys.readouterr().err
    assert not (tmp_path / "run" / "evaluation").exists()
    # Another tool's names (MONAI's SaveImage: a_seg.nii.gz, in a folder of its own per case by default): the
    # suffix, or the per-case folders, are named (since the ninety-fifth session; only the _0000 of an image's
    # channel was named before, and per-case folders were "predict those cases")
    for case in "abc":
        shutil.copy(pred_dir / f"{case}.nii.gz", (tmp_path / "seg").mkdir(exist_ok=True) or
                    tmp_path / "seg" / f"{case}_seg.nii.gz")
        (tmp_path / "tree" / case).mkdir(parents=True)
        shutil.copy(pred_dir / f"{case}.nii.gz", tmp_path / "tree" / case / f"{case}_seg.nii.gz")
    assert main(["evaluate", str(tmp_path / "seg"), str(label_dir)]) == 2
    assert ('each prediction\'s name is a label\'s with "_seg" added (a_seg.nii.gz for a.nii.gz): rename them '
            'without it' in capsys.readouterr().err)
    assert main(["evaluate", str(pred_dir), str(tmp_path / "suffixed")]) == 2  # the labels', a_probs aside
    assert ('each label\'s name is a prediction\'s with "_0000" added (a_0000.nii.gz for a.nii.gz): rename them '
            'without it' in capsys.readouterr().err)
    assert main(["evaluate", str(tmp_path / "tree"), str(label_dir)]) == 2
    assert (f"has a prediction of its name in {tmp_path / 'tree'}, but its folders a/, b/, c/ are named as the "
            f"labels' cases and hold their NIfTI files (a/a_seg.nii.gz, ...), as MONAI's SaveImage writes them: put "
            f"each case's prediction in one folder under its label's name") in capsys.readouterr().err
    # The dataset's folder for its labelsTr/: "no .nii/.nii.gz label file" said no more
    shutil.copytree(label_dir, tmp_path / "dataset" / "labelsTr")
    shutil.copytree(label_dir, tmp_path / "dataset" / "imagesTr")
    assert main(["evaluate", str(pred_dir), str(tmp_path / "dataset")]) == 2
    assert (f"{tmp_path / 'dataset'}: no .nii/.nii.gz label file; give the folder of reference label maps (NIfTI "
            f"files are in its folders imagesTr/, labelsTr/: {tmp_path / 'dataset' / 'labelsTr'}?)"
            ) in capsys.readouterr().err


def test_reference_label_maps_of_another_format_are_named_with_their_conversion(folders, tmp_path, capsys):
    """A labelsTs of .mha (Grand Challenge's format, which nnU-Net reads) was told "no .nii/.nii.gz label file;
    give the folder of reference label maps", the folder given being that one."""
    pred_dir, _, _ = folders
    (tmp_path / "labelsTs").mkdir()
    for case in ("a", "b"):
        (tmp_path / "labelsTs" / f"{case}.mha").write_bytes(b"ObjectType = Image")
    assert main(["evaluate", str(pred_dir), str(tmp_path / "labelsTs")]) == 2
    assert (f"{tmp_path / 'labelsTs'}: no .nii/.nii.gz label file, but 2 .mha file(s) (a.mha, b.mha), which are not "
            f"read: only NIfTI is; convert them to NIfTI, e.g. with SimpleITK (nnU-Net's own reader): "
            f"SimpleITK.WriteImage(SimpleITK.ReadImage('a.mha'), 'a.nii.gz')"
            ) in capsys.readouterr().err  # named as a label map is, without _0000 (case_0000.nii.gz until reviewed)


def test_an_interrupted_evaluate_says_that_nothing_was_written(folders, monkeypatch, capsys):
    """Ctrl-C while the cases were scored ended evaluate without a word (ninety-second session's probe)."""

    pred_dir, label_dir, dataset = folders

    def interrupted(path, *_):
        raise KeyboardInterrupt

    _replace_in_every_evaluate_module(monkeypatch, "read_label_map", interrupted)
    assert main(["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset)]) == 130
    assert (f"evaluate interrupted: nothing written (both files are written together at the end; an earlier "
            f"evaluation in {pred_dir / 'evaluation'} stays as it was)") in capsys.readouterr().err
    assert not (pred_dir / "evaluation").exists()


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="SIGTERM to a process")
def test_sigterm_stops_evaluate_as_ctrl_c_does_and_says_so(folders):
    """A time limit's SIGTERM as the second map is read, scoring the folders again over an earlier evaluation of them:
    evaluate says nothing is written, naming SIGTERM, status 143, the earlier evaluation whole and as it was. Until
    the hundred-and-second session it ended at once, saying nothing, status -15."""
    pred_dir, label_dir, dataset = folders
    command = ["evaluate", str(pred_dir), str(label_dir), "--labels", str(dataset)]
    assert main(command) == 0
    output = pred_dir / "evaluation"
    earlier = {path.name: path.read_bytes() for path in output.iterdir()}
    done = run_terminated(*command)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"evaluate stopped by SIGTERM: nothing written (both files are written together at the end; an earlier "
        f"evaluation in {output} stays as it was)"), done.stderr
    assert {path.name: path.read_bytes() for path in output.iterdir()} == earlier  # no temporary beside them


def test_a_map_of_several_volumes_is_refused_as_such_not_as_another_grid(folders, tmp_path, capsys):
    """A prediction saved one-hot (x, y, z, 3) was "not on one voxel grid; ... resample the prediction onto the
    label's grid", a fix that does not apply (ninety-second session's probe). (x, y, z, 1) is still scored."""
    pred_dir, label_dir, dataset = folders
    for case in "abc":
        label = nib.load(label_dir / f"{case}.nii.gz")
        one_hot = np.stack([np.asarray(label.dataobj) == c for c in range(3)], -1).astype(np.uint8)
        save(tmp_path / "one_hot" / f"{case}.nii.gz", one_hot, label.affine)
        save(tmp_path / "trailing" / f"{case}.nii.gz", np.asarray(label.dataobj)[..., None].astype(np.uint8),
             label.affine)
    assert main(["evaluate", str(tmp_path / "one_hot"), str(label_dir), "--labels", str(dataset)]) == 2
    assert (f"error: {tmp_path / 'one_hot' / 'a.nii.gz'}: 3 volumes (shape {(*SHAPE, 3)}), where evaluate scores one "
            f"3D label map per case") in capsys.readouterr().err
    assert main(["evaluate", str(tmp_path / "trailing"), str(label_dir), "--labels", str(dataset)]) == 0
    # saved channels first, as torch and MONAI hold it: NIfTI reads (3, x, y, z) as z volumes of (3, x, y),
    # which the error told as "39 volumes" alone before the ninety-fifth session
    for case in "abc":
        one_hot = nib.load(tmp_path / "one_hot" / f"{case}.nii.gz")
        save(tmp_path / "first" / f"{case}.nii.gz", np.moveaxis(np.asarray(one_hot.dataobj), -1, 0), one_hot.affine)
    assert main(["evaluate", str(tmp_path / "first"), str(label_dir), "--labels", str(dataset)]) == 2
    assert (f"error: {tmp_path / 'first' / 'a.nii.gz'}: shape {(3, *SHAPE)}, the label's {SHAPE} behind a first "
            f"axis of 3: a channels-first array (a one-hot or probability map, as torch and MONAI hold it) saved as "
            f"it is; give the label map (its argmax over that first axis, saved with the label's affine)"
            ) in capsys.readouterr().err


def test_classes_in_no_file_are_warned_of_in_one_line(folders, capsys):
    """A --num-classes 60 for a 3-class dataset printed 57 warning lines, one per class (ninety-second session's
    probe): one line names them."""
    pred_dir, label_dir, _ = folders
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "9"]) == 0
    warnings_said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning: ")]
    assert warnings_said == ["warning: 6 classes (3 class_3, 4 class_4, 5 class_5, 6 class_6, 7 class_7, ...) are in "
                             "no reference and no prediction, so each scores Dice 1 in every case and lifts the mean; "
                             "if they should not be scored, check --num-classes or --labels (with --overwrite, to "
                             "replace this evaluation)"]


@pytest.mark.parametrize("marks", [["plans.pkl"], ["postprocessing.json"], ["plans.pkl", "postprocessing.json"]])
def test_a_missing_prediction_in_nnunet_v1s_folder_is_told_in_nnunet_v1s_words(folders, marks, monkeypatch, capsys):
    """nnU-Net v1's nnUNet_predict copies its model's plans.pkl beside the <case>.nii.gz it writes, and its
    postprocessing.json where the model has one; such a folder was told "write this case's prediction there ...
    with the tool that made the others" until the ninety-seventh session, as any other tool's. Its files are
    told apart by name, before any prediction's header is read."""
    import accelerated_seg.predict_marks as predict_marks  # where evaluate's advice looks the header read up

    pred_dir, label_dir, _ = folders
    (pred_dir / "c.nii.gz").unlink()
    for mark in marks:
        (pred_dir / mark).write_bytes(b"")
    read = []
    monkeypatch.setattr(predict_marks, "marked_by_predict", lambda path: read.append(path) or False)
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3"]) == 2
    err = capsys.readouterr().err
    assert f"evaluate looked for {pred_dir / 'c.nii.gz'} (or .nii)" in err and "accelerated-seg" not in err
    assert (f"the folder is nnU-Net v1's (it holds {' and '.join(marks)}, which nnUNet_predict copies beside its "
            f"predictions): predict this case with nnUNet_predict ... -o {pred_dir}, which names it so, or remove "
            f"its label") in err
    assert read == []
    for mark in marks:  # another tool's folder: the headers are read, by the stand-in (so it stood where read)
        (pred_dir / mark).unlink()
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3"]) == 2
    assert read and "nnU-Net v1" not in capsys.readouterr().err


def test_a_prediction_folder_holding_the_labels_folder_names_its_predictions_subfolder(folders, tmp_path, capsys):
    """`evaluate . labelsTs` from a folder beside predictions/ was told to give labelsTs, the first subfolder
    by name, as the predictions; a subfolder of no label's names (aaa/) was named as readily (ninety-second session's
    review). Two of the labels' names are both named, to choose from."""
    pred_dir, label_dir, _ = folders
    shutil.copytree(label_dir, tmp_path / "run" / "labelsTs")
    shutil.copytree(pred_dir, tmp_path / "run" / "predictions")
    (tmp_path / "run" / "aaa").mkdir()
    shutil.copy(label_dir / "a.nii.gz", tmp_path / "run" / "aaa" / "other_name.nii.gz")
    assert main(["evaluate", str(tmp_path / "run"), str(tmp_path / "run" / "labelsTs")]) == 2
    assert f"its folder predictions/ holds NIfTI files: cases are paired by file name within the folders given; " \
           f"give {tmp_path / 'run' / 'predictions'}" in capsys.readouterr().err
    shutil.copytree(pred_dir, tmp_path / "run" / "more_predictions")
    assert main(["evaluate", str(tmp_path / "run"), str(label_dir)]) == 2
    assert "its folders labelsTs/, more_predictions/, predictions/ hold NIfTI files of the labels' names" in \
        capsys.readouterr().err


# What made a map of NaN alone, and what to do, as the error says it of each role (a pattern).
NAN_SAID = {"prediction": r"the model that made it diverged \(NaN weights, or a NaN in its input\) or the program "
                          r"writing it failed: check that model's training loss and this case's image, and predict "
                          r"the case again",
            "reference": r"the program writing it failed: export the reference again from its source"}


@pytest.mark.parametrize("role", ["prediction", "reference"])
def test_an_all_nan_map_is_said_to_be_all_nan_with_what_made_it_and_what_to_do(folders, role):
    """Told "64 voxel(s) NaN or Inf among whole class numbers ... set them to 0 or to their class", as if a few
    voxels were wrong, until the ninety-sixth session: a map of NaN alone is a diverged model's or a failed
    write's."""
    pred_dir, label_dir, _ = folders
    path = (pred_dir if role == "prediction" else label_dir) / "b.nii.gz"
    save(path, np.full(SHAPE, np.nan, np.float32))
    said = NAN_SAID[role]
    for classes in ({"num_classes": 3}, {}):  # read when scored, or first to find the classes
        with pytest.raises(DataError, match=rf"b\.nii\.gz: every voxel \(120000\) is NaN, so the {role} holds no "
                                            rf"class at all; {said}"):
            evaluate_folders(pred_dir, label_dir, **classes)
    from accelerated_seg.evaluate import read_label_map

    with pytest.raises(DataError, match=r"so the label map holds no class at all; if it is a prediction, the model "
                                        r"that made it diverged .*; if a reference, the program writing it failed"):
        read_label_map(path)  # a caller that does not say which


@pytest.mark.parametrize("role, shape", [("prediction", (*SHAPE, 3)), ("prediction", (3, *SHAPE)),
                                         ("reference", (*SHAPE, 3))], ids=["volumes", "channels_first", "reference"])
def test_a_map_of_several_volumes_all_nan_is_said_to_be_all_nan_first(folders, role, shape):
    """A probability map of NaN alone (a diverged model's) was refused as "3 volumes (shape ...)" or as saved
    channels first, with its argmax as the remedy, until the ninety-seventh session: that argmax is class 0 in
    every voxel, a map that would then be scored, Dice 0, with nothing said of the NaN. The NaN comes first, in
    one error that names its shape too; one of whole numbers is refused as several volumes, as before."""
    pred_dir, label_dir, _ = folders
    path = (pred_dir if role == "prediction" else label_dir) / "b.nii.gz"
    save(path, np.full(shape, np.nan, np.float32))
    said = NAN_SAID[role]
    with pytest.raises(DataError, match=rf"b\.nii\.gz: every voxel \(360000, shape {re.escape(str(shape))}\) is "
                                        rf"NaN, so the {role} holds no class at all, nor would its argmax; {said}"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)
    save(path, np.zeros(shape, np.float32))  # whole numbers: one volume too many all the same
    with pytest.raises(DataError, match=r"(3 volumes|a channels-first array)"):
        evaluate_folders(pred_dir, label_dir, num_classes=3)


def test_a_reoriented_prediction_is_named_on_the_console_and_in_the_summary(folders, capsys):
    """Laid onto its label's grid since the ninety-fifth session, but without a word: a reader could not tell
    which of another tool's files were stored in another orientation (ninety-sixth session)."""
    pred_dir, label_dir, _ = folders
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3"]) == 0
    assert "orientation" not in capsys.readouterr().out
    assert "reoriented_predictions" not in json.loads((pred_dir / "evaluation" / "summary.json").read_text())
    offset = nib.load(pred_dir / "b.nii.gz")
    nib.save(offset.as_reoriented(nib.orientations.ornt_transform(
        nib.io_orientation(offset.affine), nib.orientations.axcodes2ornt("LPS"))), pred_dir / "b.nii.gz")
    axcodes = "".join(nib.aff2axcodes(AFFINE))
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3"]) == 0
    assert (f"1 of 3 prediction(s) stored in another orientation than their label, laid onto the label's grid voxel "
            f"for voxel (nothing resampled) and scored there: b (LPS, label {axcodes}); summary.json "
            f"reoriented_predictions names them") in capsys.readouterr().out
    summary = json.loads((pred_dir / "evaluation" / "summary.json").read_text())
    assert summary["reoriented_predictions"] == {"b": {"prediction": "LPS", "label": axcodes}}


def test_a_missing_prediction_is_told_in_the_words_of_the_tool_that_wrote_the_folder(folders, tmp_path, capsys):
    """"predict those cases (accelerated-seg predict)" was said of every folder, nnU-Net's and MONAI's too, until
    the ninety-sixth session: the advice now names the file looked for and the tool that wrote the others."""
    pred_dir, label_dir, _ = folders
    (pred_dir / "c.nii.gz").unlink()
    looked = f"evaluate looked for {pred_dir / 'c.nii.gz'} (or .nii)"
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3"]) == 2
    err = capsys.readouterr().err
    assert looked in err and "accelerated-seg" not in err
    assert ("write this case's prediction there under that name with the tool that made the others, or remove its "
            "label") in err
    # nnU-Net v2's predict leaves its arguments beside its <case>.nii.gz
    (pred_dir / "predict_from_raw_data_args.json").write_text("{}")
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3"]) == 2
    err = capsys.readouterr().err
    assert looked in err and "accelerated-seg" not in err
    assert (f"the folder is nnU-Net v2's (it holds predict_from_raw_data_args.json): predict this case with "
            f"nnUNetv2_predict ... -o {pred_dir}, which names it so, or remove its label") in err
    (pred_dir / "predict_from_raw_data_args.json").unlink()
    # MONAI's SaveImage: the case in a folder of its own
    (pred_dir / "c").mkdir()
    shutil.copy(pred_dir / "b.nii.gz", pred_dir / "c" / "c_seg.nii.gz")
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3"]) == 2
    err = capsys.readouterr().err
    assert looked in err and "accelerated-seg" not in err
    assert ("its folder c/ holds c/c_seg.nii.gz, as MONAI's SaveImage writes a case: save with "
            "SaveImage(separate_folder=False, output_postfix=\"\"), or move the file up to that name") in err
    shutil.rmtree(pred_dir / "c")
    # accelerated-seg predict's own folder: its label maps carry its mark in their header
    image = nib.load(pred_dir / "a.nii.gz")
    image.header["descrip"] = b"accelerated_seg prediction"
    nib.save(image, pred_dir / "a.nii.gz")
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3"]) == 2
    err = capsys.readouterr().err
    assert looked in err
    assert (f"predict this case (accelerated-seg predict ... --output {pred_dir}, which wrote the others), or "
            f"remove its label") in err
    # A folder holding no NIfTI file at all: the name each prediction takes
    (tmp_path / "empty").mkdir()
    assert main(["evaluate", str(tmp_path / "empty"), str(label_dir), "--num-classes", "3"]) == 2
    err = capsys.readouterr().err
    assert f"3 label(s) in {label_dir} have no prediction in {tmp_path / 'empty'}" in err
    assert ("the folder holds no NIfTI file: write each case's prediction there, named as its label"
            ) in err and "accelerated-seg" not in err


def test_evaluate_without_labels_of_an_nnunet_labelsts_names_the_dataset_json_beside_it(tmp_path, capsys):
    """A region model's predictions of an nnU-Net dataset's imagesTs, scored against its labelsTs without --labels,
    were scored as classes class_1, class_2 (another figure than the regions' Dice training reported) without a
    word of the dataset.json one folder up that declares the regions (ninety-sixth session's probe)."""
    reference = np.zeros((8, 8, 8), np.uint8)
    reference[1:7, 1:7, 1:7] = 1
    reference[3:5, 3:5, 3:5] = 2
    root = tmp_path / "Dataset042_Tiny"
    save(root / "labelsTs" / "case_006.nii.gz", reference)
    save(tmp_path / "pred" / "case_006.nii.gz", reference)
    (root / "dataset.json").write_text(json.dumps({
        "channel_names": {"0": "T1"}, "labels": {"background": 0, "whole": [1, 2], "core": 2},
        "regions_class_order": [1, 2], "numTraining": 1, "file_ending": ".nii.gz"}))
    pred_dir, label_dir = str(tmp_path / "pred"), str(root / "labelsTs")
    assert main(["evaluate", pred_dir, label_dir]) == 0
    out = capsys.readouterr().out
    assert (f"warning: scored the values found in the files as classes (no --labels), but {root / 'dataset.json'} "
            f"beside LABELS declares regions (whole, core), which a model trained on it predicts and training "
            f"scored: give --labels {root / 'dataset.json'} to score the regions (and --overwrite, to replace this "
            f"evaluation)\n") in out
    assert "class 1 class_1" in out
    assert main(["evaluate", pred_dir, label_dir, "--labels", str(root / "dataset.json"), "--overwrite"]) == 0
    out = capsys.readouterr().out
    assert "beside LABELS" not in out and "region 1 whole" in out
    # a dataset.json of plain classes: its names offered, in a note
    (root / "dataset.json").write_text(json.dumps({
        "channel_names": {"0": "T1"}, "labels": {"background": 0, "a": 1, "b": 2}, "numTraining": 1,
        "file_ending": ".nii.gz"}))
    assert main(["evaluate", pred_dir, label_dir, "--overwrite"]) == 0
    assert (f"note: scored the values found in the files as classes class_1, ... (no --labels); "
            f"{root / 'dataset.json'} beside LABELS names them: give --labels {root / 'dataset.json'} (and "
            f"--overwrite, to replace this evaluation)\n") in capsys.readouterr().out
    (root / "dataset.json").unlink()  # nothing beside: nothing to say
    assert main(["evaluate", pred_dir, label_dir]) == 0
    assert "beside LABELS" not in capsys.readouterr().out
    # a link to nothing there (its storage not mounted): said, not passed over as no dataset.json (review r113)
    (root / "dataset.json").symlink_to(tmp_path / "unmounted" / "dataset.json")
    assert main(["evaluate", pred_dir, label_dir, "--overwrite"]) == 0
    assert (f"note: scored the values found in the files as classes class_1, ... (no --labels); "
            f"{root / 'dataset.json'} is a symbolic link to {tmp_path / 'unmounted' / 'dataset.json'}, which does not "
            f"exist (a dangling link: what it names not mounted, or moved?): mount or make what it names, then give "
            f"--labels {root / 'dataset.json'} to name the classes or regions (and --overwrite, to replace this "
            f"evaluation)\n") in capsys.readouterr().out


def _classes_in_the_files(root):
    """Tiny cases whose classes only the files give: class 3 predicted alone (case a), class 2 in case b alone,
    9 marking unannotated voxels in case c's reference, a prediction stored in another orientation (case b)."""
    shape = (14, 12, 10)
    label = np.zeros(shape, np.uint8)
    label[2:8, 3:9, 2:7] = 1
    pred = np.roll(label, 1, axis=0)
    cases = {"a": (label, np.where(pred > 0, pred, 0) + 3 * (np.arange(14) == 12)[:, None, None]),
             "b": (label + 2 * (label == 0) * (np.arange(10) > 7), np.flip(pred, axis=0)),
             "c": (np.where(np.arange(14)[:, None, None] < 2, 9, label), pred)}
    flipped = AFFINE @ np.array([[-1, 0, 0, 13], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    for case, (reference, prediction) in cases.items():
        save(root / "labels" / f"{case}.nii.gz", reference.astype(np.uint8))
        save(root / "pred" / f"{case}.nii.gz", prediction.astype(np.uint8), flipped if case == "b" else AFFINE)
    return root / "pred", root / "labels"


@pytest.mark.parametrize("given", [{}, {"ignore_value": 9}, {"merge_foreground": True, "ignore_value": 9},
                                   {"tolerance_mm": {1: 0.5, 2: 2.0, 3: 1.5, 9: 1.0}}])
def test_classes_found_while_scoring_give_the_files_of_the_classes_found_first(tmp_path, monkeypatch, given):
    """Where the files give the classes, scoring's read finds them (since the hundredth session; for {class: mm}
    since the hundred-and-first): metrics.csv and summary.json as where every map was read first to find them,
    which a tolerance per class in order still does."""
    from accelerated_seg import evaluate

    pred_dir, label_dir = _classes_in_the_files(tmp_path)
    once = evaluate_folders(pred_dir, label_dir, output_dir=tmp_path / "once", **given)
    monkeypatch.setattr(evaluate, "_each_class_own", lambda tolerance: False)  # the classes found before scoring
    evaluate_folders(pred_dir, label_dir, output_dir=tmp_path / "first", **given)
    for name in ("metrics.csv", "summary.json"):
        assert (tmp_path / "once" / name).read_text() == (tmp_path / "first" / name).read_text()
    ignored = "ignore_value" in given
    found = [1] if given.get("merge_foreground") else [1, 2, 3] if ignored else [1, 2, 3, 9]  # 9 a class unless ignored
    assert once["classes"] == {str(c): f"class_{c}" for c in found} and once["reoriented_predictions"]
    assert once.get("cases_annotated_in_part") == (["c"] if ignored else None)
    if "tolerance_mm" in given:
        assert once["tolerance_mm"] == {str(c): t for c, t in given["tolerance_mm"].items()}


def test_a_tolerance_by_class_keyed_by_numpys_integers_is_taken_and_other_keys_or_values_refused_naming_it(
        tmp_path):
    """{np.int64(1): 1.0} (classes from np.unique) was refused once every case was scored, by json writing
    summary.json's settings; a key "1" by "gives no tolerance for class(es) [1, ...]", and a value "a" by a bare
    "could not convert string to float" (until the hundred-and-first session)."""
    pred_dir, label_dir = _classes_in_the_files(tmp_path)
    keyed = {np.int64(c): 0.5 * c for c in (1, 2, 3, 9)}
    summary = evaluate_folders(pred_dir, label_dir, output_dir=tmp_path / "numpy", tolerance_mm=keyed)
    assert summary["tolerance_mm"] == {"1": 0.5, "2": 1.0, "3": 1.5, "9": 4.5}
    assert json.loads((tmp_path / "numpy" / "summary.json").read_text())["settings"]["tolerance_mm"] == \
        {"1": 0.5, "2": 1.0, "3": 1.5, "9": 4.5}
    with pytest.raises(ValueError, match=re.escape("tolerance_mm is keyed by class numbers ({1: 1.0, 2: 2.0}), got "
                                                   "the key(s) '1', 2.5")):
        evaluate_folders(pred_dir, label_dir, output_dir=tmp_path / "str", tolerance_mm={"1": 1.0, 2.5: 1.0})
    with pytest.raises(ValueError, match=re.escape("tolerance_mm must be numbers of mm (a surface-Dice tolerance), "
                                                   "got 'a'")):
        evaluate_folders(pred_dir, label_dir, output_dir=tmp_path / "a", tolerance_mm={1: "a"})
    assert not (tmp_path / "str").exists() and not (tmp_path / "a").exists()


def test_a_tolerance_by_class_lacking_a_class_found_is_refused_as_where_the_classes_were_found_first(tmp_path,
                                                                                                     monkeypatch):
    """{class: mm} without a class the files hold: the same refusal as where every map was read first to find the
    classes (until the hundred-and-first session), once every map is read, nothing written."""
    from accelerated_seg import evaluate

    pred_dir, label_dir = _classes_in_the_files(tmp_path)
    with pytest.raises(ValueError) as once:
        evaluate_folders(pred_dir, label_dir, tolerance_mm={1: 1.0, 2: 1.0})
    monkeypatch.setattr(evaluate, "_each_class_own", lambda tolerance: False)
    with pytest.raises(ValueError) as first:
        evaluate_folders(pred_dir, label_dir, tolerance_mm={1: 1.0, 2: 1.0})
    assert str(once.value) == str(first.value) and "tolerance_mm gives no tolerance for class(es) [3, 9]" in str(
        once.value)
    assert not (pred_dir / "evaluation" / "summary.json").exists()


def test_classes_found_in_the_files_cost_one_read_of_each_map(tmp_path, monkeypatch):
    """Every label and prediction was read in full twice where the files give the classes: once to find them,
    once to score (until the hundredth session; for {class: mm} until the hundred-and-first). A tolerance per class
    in order still reads them first."""
    from accelerated_seg import label_map_reading

    pred_dir, label_dir = _classes_in_the_files(tmp_path)
    reads = []
    read_nifti = label_map_reading.read_nifti
    monkeypatch.setattr(label_map_reading, "read_nifti", lambda path, **kw: reads.append(path) or read_nifti(path, **kw))
    evaluate_folders(pred_dir, label_dir, output_dir=tmp_path / "one", tolerance_mm=[2.0])
    assert sorted(reads) == sorted((folder / f"{case}.nii.gz") for folder in (pred_dir, label_dir) for case in "abc")
    reads.clear()
    evaluate_folders(pred_dir, label_dir, output_dir=tmp_path / "by_class", tolerance_mm={1: 1.0, 2: 2.0, 3: 3.0,
                                                                                           9: 4.0})
    assert len(reads) == 6  # 12 until the hundred-and-first session
    reads.clear()
    evaluate_folders(pred_dir, label_dir, output_dir=tmp_path / "each", tolerance_mm=[1.0, 2.0, 3.0, 4.0])
    assert len(reads) == 12


def test_a_prediction_refused_after_the_classes_are_found_while_scoring_is_refused_as_before(tmp_path, monkeypatch):
    """A prediction holding the ignore value is refused naming the classes, which are known once every map is read:
    the same refusal, of the same case, as where the maps were read first to find them."""
    from accelerated_seg import evaluate

    pred_dir, label_dir = _classes_in_the_files(tmp_path)
    save(pred_dir / "c.nii.gz", np.full((14, 12, 10), 9, np.uint8))
    with pytest.raises(DataError) as once:
        evaluate_folders(pred_dir, label_dir, ignore_value=9)
    monkeypatch.setattr(evaluate, "_one_for_all", lambda tolerance: None)
    with pytest.raises(DataError) as first:
        evaluate_folders(pred_dir, label_dir, ignore_value=9)
    assert str(once.value) == str(first.value) and "c.nii.gz: label value(s) [9]" in str(once.value)
    assert not (pred_dir / "evaluation" / "summary.json").exists()


def test_distances_of_files_both_in_micrometres_are_in_micrometres_though_named_mm(folders, tmp_path):
    """A reference and its prediction both declaring micrometres are one unit, so nothing refuses them, and the
    distances are measured in their numbers, the reference's spacing: hd95_mm holds micrometres and the surface-Dice
    tolerance is read in micrometres, as docs/inference.md says (a review of the hundred-and-seventh session, which
    found it unwritten)."""
    pred_dir, label_dir, _ = folders
    in_mm = evaluate_folders(pred_dir, label_dir, num_classes=3, tolerance_mm=2.0, output_dir=tmp_path / "mm")
    for path in [*pred_dir.glob("[abc].nii.gz"), *label_dir.glob("*.nii.gz")]:
        image = nib.load(path)
        image = nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([1000.0] * 3 + [1.0]) @ image.affine)
        image.header.set_xyzt_units("micron")
        nib.save(image, path)
    scored = {tolerance: evaluate_folders(pred_dir, label_dir, num_classes=3, tolerance_mm=tolerance,
                                          output_dir=tmp_path / f"um{tolerance}")["per_class"]
              for tolerance in (2.0, 2000.0)}
    for c in ("1", "2"):
        mm, um = in_mm["per_class"][c], scored[2000.0][c]
        assert um["hd95_mm"]["mean"] == pytest.approx(1000 * mm["hd95_mm"]["mean"], rel=1e-5)
        assert um["surface_dice"]["mean"] == pytest.approx(mm["surface_dice"]["mean"], abs=1e-6)
        assert um["dice"]["mean"] == mm["dice"]["mean"]
    assert in_mm["per_class"]["1"]["hd95_mm"]["mean"] > 0  # the offset case's: 4 mm off
    # 2 read as 2 micrometres: every surface voxel of the offset case off by more
    assert scored[2.0]["1"]["surface_dice"]["mean"] < in_mm["per_class"]["1"]["surface_dice"]["mean"]


def test_an_output_whose_name_is_too_long_is_one_error_naming_the_setting_and_what_to_do(folders, tmp_path,
                                                                                          monkeypatch, capsys):
    """--output of a name longer than a filesystem takes (ENAMETOOLONG): Path.is_file raised it as evaluate noted the
    files it would replace, a traceback with status 1 before the evaluation's own refusal of the folder (the
    hundred-and-twenty-first session's review of the stop lines, r100; benchmarks/results/review_stop_lines_2026-12-07/
    evaluate_long_output.sh), then the bare "[Errno 36] File name too long: ..." (the hundred-and-twenty-second
    session's probe): one line naming --output, the name's length and what to give, before any case is scored; and
    so is a whole path too long (each name short)."""
    pred_dir, label_dir, _ = folders
    scored = []
    _replace_in_every_evaluate_module(monkeypatch, "read_label_map", lambda path, *_: scored.append(path) or 1 / 0)
    output = tmp_path / ("a" * 300)
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3", "--output", str(output)]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: --output {output}: a name on its path is 300 bytes long ({'a' * 24}...), and a file or "
                   f"folder name takes at most 255: give a shorter one\n")
    deep = tmp_path.joinpath(*["d" * 200] * 21)
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3", "--output", str(deep)]) == 2
    assert re.fullmatch(rf"error: --output {re.escape(str(deep))}: the path is {len(str(deep))} bytes long, and with "
                        rf"the files evaluate writes in it \(\d+ bytes\) over the 4095 a path may be: give a shorter "
                        rf"one\n", capsys.readouterr().err)
    assert scored == [] and not (tmp_path / ("d" * 200)).exists()


def test_an_output_through_a_dangling_link_or_a_link_in_a_loop_is_refused_before_any_case_is_scored(
        folders, tmp_path, monkeypatch, capsys):
    """--output a symbolic link to a folder not there (shared storage not mounted) failed at the write, mkdir's
    FileExistsError once every case was scored; one in a loop was pathlib's "RuntimeError: Symlink loop", a
    traceback (the hundred-and-twenty-second session's probe). Each is now refused first, as predict and train
    refuse them (files.link_problem)."""
    pred_dir, label_dir, _ = folders
    scored = []
    _replace_in_every_evaluate_module(monkeypatch, "read_label_map", lambda path, *_: scored.append(path) or 1 / 0)
    (tmp_path / "dangling").symlink_to(tmp_path / "not_mounted" / "evaluation")
    (tmp_path / "loop_a").symlink_to(tmp_path / "loop_b")
    (tmp_path / "loop_b").symlink_to(tmp_path / "loop_a")
    for name, said in (("dangling", f"is a symbolic link to {tmp_path / 'not_mounted' / 'evaluation'}, which does not "
                                    f"exist (a dangling link)"),
                       ("loop_a", "is a symbolic link in a loop (following it leads back to it)")):
        assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3", "--output",
                     str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: --output: {tmp_path / name} {said}") and err.endswith(
            "; or give another folder\n") and err.count("\n") == 1, err
    assert scored == [] and not (tmp_path / "not_mounted").exists()


def test_an_output_below_a_folder_this_user_may_not_search_is_one_line_before_any_case_is_scored(
        folders, tmp_path, monkeypatch, capsys):
    """--output below a folder whose permissions do not let this user in (EACCES at the stat): Path.exists' bare
    "[Errno 13] Permission denied: ..." (the hundred-and-twenty-second session's probe, as user nobody); now one
    line naming --output, why and what to do. Simulated: a chmod stops nothing for root."""
    import errno
    import os
    from pathlib import Path

    pred_dir, label_dir, _ = folders
    closed, real_stat = tmp_path / "closed", os.stat
    closed.mkdir()

    def stat(path, *args, **kwargs):
        if Path(os.fspath(path)).is_relative_to(closed) and Path(os.fspath(path)) != closed:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real_stat(path, *args, **kwargs)

    scored = []
    _replace_in_every_evaluate_module(monkeypatch, "read_label_map", lambda path, *_: scored.append(path) or 1 / 0)
    monkeypatch.setattr(os, "stat", stat)
    output = closed / "evaluation"
    assert main(["evaluate", str(pred_dir), str(label_dir), "--num-classes", "3", "--output", str(output)]) == 2
    assert capsys.readouterr().err == (f"error: --output {output} cannot be reached: a folder on its way is not open "
                                       f"to this user (Permission denied); give a folder you can write to, or get "
                                       f"access to that one\n")
    assert scored == []
