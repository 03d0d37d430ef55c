"""Segmentation metrics shared by validation during training and ``accelerated-seg evaluate``.

Per case and per foreground class, on the label map's own voxel grid, distances in millimetres:

- Dice: 2|P∩L| / (|P| + |L|).
- HD95: MONAI's 95th-percentile Hausdorff distance between the two surfaces (the larger of the two
  directed 95th percentiles), with the voxel spacing taken from the affine.
- Surface Dice (normalised surface distance): the share of both surfaces' area lying within a
  tolerance (mm) of the other one (MONAI ``compute_surface_dice`` with ``use_subvoxels``: each
  boundary element weighted by its area, as DeepMind's ``surface-distance`` that challenges use;
  MONAI's default counts boundary voxels, which on thick slices over-weights the faces across them).

MONAI gives both distances in float32; each is reported as the shortest decimal that reads back as that
float32 (``float32_as_decimal``: 0.7 mm, not 0.699999988079071), Dice exactly in float64.

Conventions where a mask is empty (empty = the class has no voxel in that file):

=====================  =====  ===========  ============
prediction / label      Dice   HD95 (mm)    Surface Dice
=====================  =====  ===========  ============
both empty              1      0            1
one of them empty       0      inf          0
=====================  =====  ===========  ============

"Nothing to find, nothing found" is a perfect score (as MONAI's ``compute_dice(ignore_empty=False)``
and the BraTS challenge). nnU-Net v2 differs here: it leaves such a Dice out of its mean (NaN), so on
data where a class is often absent its mean is lower than ours; ``summarise`` counts these rows
(``n_both_empty``) so either mean can be recovered. A distance to a surface that does not exist has
no finite value, so HD95 is ``inf``; ``summarise`` averages HD95 over the finite values and reports
how many were infinite, instead of letting one empty mask turn the mean into ``inf``.

Where the reference marks voxels unannotated (an "ignore" label, sparse annotation), Dice is that of the
annotated voxels alone, as nnU-Net scores them: the prediction is left out where the label is ignored.
Distances to a surface drawn only in part are not defined, so HD95 and surface Dice are not computed
for a case whose label holds the ignore value (NaN, in ``evaluate``'s files and in validation's); a
case without one has its surfaces drawn in full and is measured as without the ignore label (since
the ninety-third session: before, no case was).

    from accelerated_seg.evaluate import evaluate_folders
    summary = evaluate_folders("predictions", "labelsTs", dataset_json="dataset.json")

torch and MONAI, which take seconds to import, are imported only where the distances are measured
(``binary_metrics``): the ``evaluate`` command checks its folders, files and settings first, and refuses
a wrong one at once instead of after that wait.

Here are the scores and ``evaluate_folders``, which puts the evaluation together; each step it takes has a
module of its own (since the ninety-sixth session): ``evaluate_cases`` pairs each label with its prediction,
``evaluate_grids`` checks that the two lie on one voxel grid, ``label_map_reading`` reads a map's classes,
``evaluate_classes`` decides which classes are scored and what they are called, ``evaluate_output`` checks
the output folder and writes the two files, and ``evaluate_setting_names`` names the settings in the errors.
``evaluate_folders`` itself reads as those steps, each a function below it (since the hundred-and-fifth
session): the inputs checked, the files paired and their grids checked, the classes chosen, every case scored,
and the report written.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
import numbers
from decimal import Decimal
from pathlib import Path
from statistics import mean as exact_mean, median as exact_median, pstdev as exact_pstdev
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import nibabel as nib
import numpy as np

from .data.checks import label_scaling_said
from .data.errors import DataError
from .data.io import read_nifti
from .dropped_interrupts import interrupts_kept, raise_a_dropped_interrupt
from .evaluate_cases import NNUNET_PREDICT_ARGUMENTS, case_id, match_cases
from .evaluate_classes import (
    ClassesFound,
    binarized_from_json,
    check_labels_file,
    class_names_from_json,
    classes_to_score,
    export_class_values,
    foreground_classes,
    ignore_from_json,
    merged_foreground,
    merged_foreground_note,
    regions_from_json,
    require_known_values,
)
from .evaluate_grids import GEOMETRY_ATOL_MM, SHEAR_NOTED_DEGREES, check_same_grid, shear_degrees, voxel_spacing
from .evaluate_output import (check_earlier_evaluation, check_output_folder, check_output_outside_the_labels,
                              evaluation_settings, input_digests, write_evaluation)
from .evaluate_setting_names import SettingNames
from .label_map_reading import read_label_map
from .own_warnings import quieted
from .regions import Regions

if TYPE_CHECKING:
    import torch

# Every name importable from here before the ninety-sixth session split this module (cases, grids, label maps,
# classes, the output folder into evaluate_*.py and label_map_reading.py) still is.
__all__ = [
    "DEFAULT_TOLERANCE_MM", "GEOMETRY_ATOL_MM", "SHEAR_NOTED_DEGREES", "NNUNET_PREDICT_ARGUMENTS", "METRICS",
    "EMPTY_BOTH", "EMPTY_ONE", "NOT_MEASURED", "voxel_spacing", "shear_degrees", "foreground_classes", "tolerances",
    "check_tolerance_values", "case_metrics", "region_metrics", "annotated_in_part", "binary_metrics",
    "float32_as_decimal", "statistics", "summarise", "both_empty", "SettingNames", "case_id", "match_cases",
    "check_same_grid", "read_label_map", "class_names_from_json", "check_labels_file", "ignore_from_json",
    "binarized_from_json", "regions_from_json", "evaluate_folders", "check_output_outside_the_labels",
    "check_output_folder",
]

DEFAULT_TOLERANCE_MM = 1.0
METRICS = ("dice", "hd95_mm", "surface_dice")
EMPTY_BOTH = {"dice": 1.0, "hd95_mm": 0.0, "surface_dice": 1.0}  # nothing to find, nothing found
EMPTY_ONE = {"dice": 0.0, "hd95_mm": math.inf, "surface_dice": 0.0}  # no surface to measure a distance to
NOT_MEASURED = {"hd95_mm": math.nan, "surface_dice": math.nan}  # a label annotated in part: surfaces drawn in part


# --------------------------------------------------------------------------------------------------
# Metrics of one case
# --------------------------------------------------------------------------------------------------


def tolerances(tolerance_mm: float | Sequence[float] | Mapping[int, float], classes: Sequence[int],
               scored: str = "class", setting: str = "tolerance_mm") -> dict[int, float]:
    """One surface-Dice tolerance per class (``scored``: "region" where regions are scored): a single
    number for all, one per class in order, or a mapping; ``setting`` names it in the errors."""
    check_tolerance_values(tolerance_mm, setting)
    plural = "class(es)" if scored == "class" else f"{scored}(s)"
    if isinstance(tolerance_mm, Mapping):
        missing = [c for c in classes if c not in tolerance_mm]
        if missing:
            raise ValueError(f"{setting} gives no tolerance for {plural} {missing}")
        chosen = {c: float(tolerance_mm[c]) for c in classes}
    elif isinstance(tolerance_mm, (int, float)):
        chosen = {c: float(tolerance_mm) for c in classes}
    else:
        values = [float(t) for t in tolerance_mm]
        if len(values) == 1:
            values = values * len(classes)
        if len(values) != len(classes):
            raise ValueError(f"{setting} gives {len(values)} value(s) for {len(classes)} {plural} {list(classes)}; "
                             f"give one value for all, or one per {scored} in that order")
        chosen = dict(zip(classes, values))
    return chosen


def check_tolerance_values(tolerance_mm: float | Sequence[float] | Mapping[int, float],
                           setting: str = "tolerance_mm") -> None:
    """A ValueError naming ``setting`` (``--tolerance`` for the command) unless every surface-Dice tolerance is a
    finite number >= 0 mm: "surface-Dice tolerances must be ...; got {1: -1.0}" named no setting, and came once
    every label file was read where the files give the classes (ninety-first session)."""
    given = list(tolerance_mm.values()) if isinstance(tolerance_mm, Mapping) else (
        [tolerance_mm] if isinstance(tolerance_mm, (int, float)) else list(tolerance_mm))
    for value in given:  # "could not convert string to float: 'a'" named no setting (hundred-and-first session)
        try:
            float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{setting} must be numbers of mm (a surface-Dice tolerance), got {value!r}") from None
    if bad := [t for t in given if not (math.isfinite(float(t)) and float(t) >= 0)]:
        raise ValueError(f"{setting} must be finite and >= 0 mm (a surface-Dice tolerance), got "
                         f"{', '.join(f'{float(t):g}' for t in bad)}")


def case_metrics(pred: np.ndarray | torch.Tensor, label: np.ndarray | torch.Tensor, classes: int | Sequence[int],
                 spacing: Sequence[float], tolerance_mm: float | Sequence[float] | Mapping[int, float]
                 = DEFAULT_TOLERANCE_MM, distances: bool = True, ignore: int | None = None
                 ) -> dict[int, dict[str, float]]:
    """Dice, HD95 and surface Dice of each foreground class of one case.

    Args:
        pred: predicted label map (X, Y, Z), integer label values.
        label: reference label map on the same grid.
        classes: number of classes including background (scores 1..C-1), or the label values to score.
        spacing: voxel size in mm along each array axis (``voxel_spacing(affine)``).
        tolerance_mm: surface-Dice tolerance: one value, one per class, or {class: mm}.
        distances: False leaves out HD95 and surface Dice (the distance transforms are most of the
            cost; validation during training may only want Dice).
        ignore: the label's value for unannotated voxels (none when None): only the others are scored,
            and where the label holds any, HD95 and surface Dice are NaN (not defined).

    Returns:
        {class: {"dice", "hd95_mm", "surface_dice", "label_voxels", "pred_voxels"}}, with the
        module's conventions for empty masks (without the two distances when ``distances`` is False).

    Example:
        >>> a = np.zeros((10, 10, 10), np.uint8); a[2:6, 2:6, 2:6] = 1
        >>> case_metrics(a, a, 2, spacing=(1.0, 1.0, 2.0))[1]["dice"]
        1.0
    """
    pred, label, in_part = _annotated_only(_as_numpy(pred), _as_numpy(label), ignore)
    if len(spacing) != pred.ndim:
        raise ValueError(f"spacing {tuple(spacing)} must give one voxel size per axis of shape {pred.shape}")
    values = foreground_classes(classes)
    tolerance = tolerances(tolerance_mm, values)
    return {c: _measured(pred == c, label == c, spacing, tolerance[c], distances, in_part) for c in values}


def region_metrics(pred: np.ndarray | torch.Tensor, label: np.ndarray | torch.Tensor, regions: Regions,
                   spacing: Sequence[float], tolerance_mm: float | Sequence[float] = DEFAULT_TOLERANCE_MM,
                   distances: bool = True, ignore: int | None = None) -> dict[int, dict[str, float]]:
    """``case_metrics`` of each region (``regions.py``) of two label maps: {region index: metrics}, in the
    regions' order. A region's mask is every voxel holding one of its values, in either map; ``ignore``
    as in ``case_metrics``."""
    pred, label, in_part = _annotated_only(_as_numpy(pred), _as_numpy(label), ignore)
    tolerance = tolerances(tolerance_mm, list(range(regions.count)))
    return {k: _measured(np.isin(pred, values), np.isin(label, values), spacing, tolerance[k], distances, in_part)
            for k, values in enumerate(regions.values)}


def annotated_in_part(label: np.ndarray, ignore: int | None) -> bool:
    """Whether the label map holds the ignore value anywhere: then its surfaces are drawn only in part."""
    return ignore is not None and bool(np.any(label == ignore))


def _annotated_only(pred: np.ndarray, label: np.ndarray, ignore: int | None) -> tuple[np.ndarray, np.ndarray, bool]:
    """(pred, label, annotated in part) with the prediction set to ``ignore`` where the label is: no class, so
    no mask, holds those voxels in either map. A label annotated in full is returned as it is, so that it is
    scored exactly as without an ignore label."""
    if pred.shape != label.shape:
        raise ValueError(f"prediction shape {pred.shape} != label shape {label.shape}")
    if not annotated_in_part(label, ignore):
        return pred, label, False
    return np.where(label == ignore, np.asarray(ignore, dtype=np.result_type(pred, label)), pred), label, True


def _measured(pred: np.ndarray, label: np.ndarray, spacing: Sequence[float], tolerance_mm: float, distances: bool,
              in_part: bool) -> dict:
    """``binary_metrics``; where the distances are asked for of a label annotated in part, NaN for them: the
    distance to a surface drawn in part is not defined, and a NaN is counted (n_nan), not averaged."""
    if distances and in_part:
        return {**binary_metrics(pred, label, spacing, tolerance_mm, distances=False), **NOT_MEASURED}
    return binary_metrics(pred, label, spacing, tolerance_mm, distances)


def binary_metrics(pred: np.ndarray, label: np.ndarray, spacing: Sequence[float], tolerance_mm: float,
                   distances: bool = True) -> dict:
    """Dice, HD95 (mm) and surface Dice (only Dice unless ``distances``) of one foreground mask."""
    pred_voxels, label_voxels = int(pred.sum()), int(label.sum())
    counts = {"label_voxels": label_voxels, "pred_voxels": pred_voxels}
    if pred_voxels == 0 or label_voxels == 0:  # the conventions in the module docstring
        scores = EMPTY_BOTH if pred_voxels == label_voxels else EMPTY_ONE
        return {**(scores if distances else {"dice": scores["dice"]}), **counts}

    dice = 2.0 * int(np.logical_and(pred, label).sum()) / (pred_voxels + label_voxels)
    if not distances:
        return {"dice": dice, **counts}
    import torch  # here, not at the top: the module docstring's last paragraph says why
    from monai.metrics import compute_hausdorff_distance, compute_surface_dice

    # Distances only involve the masks' neighbourhood: crop to it (a 1-voxel margin keeps every
    # surface voxel a surface voxel), so MONAI's float copies are small even for a whole-body CT.
    window = _union_box(pred, label)
    p = torch.from_numpy(np.ascontiguousarray(pred[window]))[None, None]
    t = torch.from_numpy(np.ascontiguousarray(label[window]))[None, None]
    spacing = [float(s) for s in spacing]
    # MONAI 1.6 passes its own deprecated get_mask_edges argument; the warning is not ours to fix. Quieted without a
    # change of the filters (quieted): a catch_warnings at each case reset Python's records of the lines that said a
    # warning, so a loop of Segmentation.evaluate said each warning of its cases at every call (until r118's review)
    with quieted((".*always_return_as_numpy.*", FutureWarning)):
        hd95 = compute_hausdorff_distance(p, t, include_background=True, percentile=95, spacing=spacing)
        nsd = compute_surface_dice(p.float(), t.float(), [tolerance_mm], include_background=True, spacing=spacing,
                                   use_subvoxels=True)
    return {"dice": dice, "hd95_mm": float32_as_decimal(hd95.item()), "surface_dice": float32_as_decimal(nsd.item()),
            **counts}


def float32_as_decimal(value: float) -> float:
    """A float32 result as the float of its shortest decimal that reads back as that float32: 0.7, not the
    0.699999988079071 that ``float()`` of a float32 0.7 gives; ``np.float32`` of it is ``value`` again.

    MONAI measures the distances in float32, whatever it is given: its KD-tree works in float64, but
    ``get_surface_distance`` casts the distances to float32 and ``compute_hausdorff_distance`` and
    ``compute_surface_dice`` fill float32 tensors (MONAI 1.6.1; float64 masks or spacing give the same float32
    numbers). float64 would take a distance computation of our own; and a NIfTI header holds the spacing in
    float32 anyway, so float32 is all the precision there is to report. Its digits past the seventh were
    noise that read as if measured (0.699999988 mm in metrics.csv), and this keeps every bit of it.
    """
    return float(np.format_float_positional(np.float32(value), unique=True))


def _union_box(a: np.ndarray, b: np.ndarray) -> tuple[slice, ...]:
    """Bounding box of a | b grown by one voxel, clipped to the array."""
    union = np.logical_or(a, b)
    box = []
    for axis in range(union.ndim):
        hit = np.flatnonzero(union.any(axis=tuple(i for i in range(union.ndim) if i != axis)))
        box.append(slice(max(int(hit[0]) - 1, 0), min(int(hit[-1]) + 2, union.shape[axis])))
    return tuple(box)


def _as_numpy(volume) -> np.ndarray:
    """A label map as a numpy array; (1, X, Y, Z) and (1, 1, X, Y, Z) as produced by training become (X, Y, Z)."""
    is_tensor = hasattr(volume, "detach")  # a torch tensor, told without importing torch
    array = volume.detach().cpu().numpy() if is_tensor else np.asarray(volume)
    if array.ndim > 3 and all(n == 1 for n in array.shape[:-3]):
        array = array.reshape(array.shape[-3:])
    return array


# --------------------------------------------------------------------------------------------------
# Summary statistics
# --------------------------------------------------------------------------------------------------


def statistics(values: Sequence[float]) -> dict:
    """Mean, std (population), median, min and max of the finite values, and counts of the others.

    Every value is JSON-safe: None where there is no finite value to summarise. Each statistic is that of
    the values as metrics.csv writes them, decimals (``repr``), computed exactly and rounded once to a float
    (Python's ``statistics`` sums exactly): numpy's running float64 sum read three cases of 0.7 mm as a mean
    of 0.6999999999999998 and a std of 1.1e-16, a spread that is not there, and 0.1 and 0.2 as
    0.15000000000000002.

    Example:
        >>> statistics([1.0, 3.0, float("inf")])["mean"], statistics([1.0, 3.0, float("inf")])["n_inf"]
        (2.0, 1)
    """
    array = np.asarray(values, dtype=float)
    written = [Decimal(repr(value)) for value in array[np.isfinite(array)].tolist()]  # each reads back as itself

    def stat(fn):
        return float(fn(written)) if written else None

    return {"mean": stat(exact_mean), "std": stat(exact_pstdev), "median": stat(exact_median), "min": stat(min),
            "max": stat(max), "n": len(written), "n_inf": int(np.isinf(array).sum()),
            "n_nan": int(np.isnan(array).sum())}


def summarise(rows: Sequence[dict], class_names: Mapping[int, str]) -> dict:
    """Per-class and overall statistics of ``metrics.csv`` rows (one per case and class).

    "overall" pools every (case, class) row; with every class scored on every case its mean Dice is
    the mean of the per-class means, the number training reports as "mean Dice".
    """
    per_class = {}
    for c, name in class_names.items():
        mine = [r for r in rows if r["class"] == c]
        present = [r["dice"] for r in mine if not both_empty(r)]
        per_class[str(c)] = {"name": name, **{m: statistics([r[m] for r in mine]) for m in METRICS},
                             "n_both_empty": len(mine) - len(present),
                             "n_both_empty_annotated_in_part": sum(map(_both_empty_unmeasured, mine)),
                             "dice_mean_without_both_empty": statistics(present)["mean"]}
    # nnU-Net v2's foreground mean: the mean of its per-class means (each without the both-empty rows).
    class_means = [c["dice_mean_without_both_empty"] for c in per_class.values()]
    overall = {**{m: statistics([r[m] for r in rows]) for m in METRICS},
               "n_both_empty": sum(c["n_both_empty"] for c in per_class.values()),
               "n_both_empty_annotated_in_part": sum(c["n_both_empty_annotated_in_part"] for c in per_class.values()),
               "dice_mean_without_both_empty": statistics([m for m in class_means if m is not None])["mean"]}
    return {"per_class": per_class, "overall": overall}


def _both_empty_unmeasured(row: dict) -> bool:
    """In neither file of a case annotated in part: Dice 1, but no HD95 (NaN, in hd95_mm's n_nan), where the
    others in neither file have 0 mm. Counted apart since the ninety-third session: "in neither file: 0 mm"
    counted them too, so a case was said twice, once as NaN and once as 0 mm."""
    return both_empty(row) and math.isnan(row.get("hd95_mm", 0.0))


def both_empty(row: dict) -> bool:
    """The class is in neither file (a ``case_metrics`` row): Dice 1 here, NaN (left out of the mean)
    in nnU-Net v2."""
    return row["label_voxels"] == 0 and row["pred_voxels"] == 0


def _one_for_all(tolerance_mm: float | Sequence[float] | Mapping[int, float]) -> float | None:
    """The surface-Dice tolerance of every class, where one is given for all (as ``tolerances`` reads it); None
    for one per class (in order, or a mapping)."""
    if isinstance(tolerance_mm, Mapping):
        return None
    if isinstance(tolerance_mm, (int, float)):
        return float(tolerance_mm)
    values = list(tolerance_mm)
    return float(values[0]) if len(values) == 1 else None


def _classes_as_ints(tolerance_mm: float | Sequence[float] | Mapping[int, float],
                     setting: str) -> float | Sequence[float] | dict[int, float]:
    """A {class: mm} tolerance keyed by Python ints: numpy's (a class from np.unique) were refused once every case
    was scored, by json writing summary.json's settings ("keys must be str, int, ...: numpy.int64"), and a key
    that is no whole number ("1", 1.5) by "gives no tolerance for class(es) [1, ...]" (until the hundred-and-first
    session). Anything else as given."""
    if not isinstance(tolerance_mm, Mapping):
        return tolerance_mm
    if wrong := [key for key in tolerance_mm if isinstance(key, bool) or not isinstance(key, numbers.Integral)]:
        raise ValueError(f"{setting} is keyed by class numbers ({{1: 1.0, 2: 2.0}}), got the key(s) "
                         f"{', '.join(map(repr, wrong))}")
    return {int(key): value for key, value in tolerance_mm.items()}


def _each_class_own(tolerance_mm: float | Sequence[float] | Mapping[int, float]) -> bool:
    """Whether each class's surface-Dice tolerance is known from the class alone: one for all, or {class: mm}; not
    one per class in order, whose class is known only once every class is."""
    return isinstance(tolerance_mm, Mapping) or _one_for_all(tolerance_mm) is not None


def _while_found(tolerance_mm: float | Sequence[float] | Mapping[int, float],
                 present: Sequence[int]) -> float | dict[int, float]:
    """The tolerance of the classes ``present`` in a case, scored while the classes are found (``_each_class_own``).
    A class that {class: mm} lacks is scored at the default meanwhile, and refused once every map is read
    (``tolerances``), after the refusals of the values found, which say more of a value no class should hold."""
    if isinstance(tolerance_mm, Mapping):
        return {c: float(tolerance_mm[c]) if c in tolerance_mm else DEFAULT_TOLERANCE_MM for c in present}
    return _one_for_all(tolerance_mm)


def _in_neither(in_part: bool) -> dict:
    """The scores ``case_metrics`` gives a class in neither map of a case (annotated ``in_part`` or not), by the
    same code: empty masks are scored without their voxels or spacing."""
    nothing = np.zeros(1, dtype=bool)
    return _measured(nothing, nothing, (1.0,), DEFAULT_TOLERANCE_MM, True, in_part)


# --------------------------------------------------------------------------------------------------
# Folders of predictions and labels
# --------------------------------------------------------------------------------------------------


def evaluate_folders(pred_dir: str | Path, label_dir: str | Path, *, num_classes: int | None = None,
                     dataset_json: str | Path | None = None,
                     tolerance_mm: float | Sequence[float] | Mapping[int, float] = DEFAULT_TOLERANCE_MM,
                     output_dir: str | Path | None = None, geometry_atol_mm: float = GEOMETRY_ATOL_MM,
                     regions: Regions | None = None, ignore_value: int | None = None,
                     merge_foreground: bool | None = None, binarized_references: bool = False,
                     class_names: Mapping[int, str] | None = None, setting_names: SettingNames = SettingNames(),
                     overwrite: bool = False) -> dict:
    """Score every prediction against its label; write ``metrics.csv`` and ``summary.json``.

    The classes scored are, in this order of preference: those named in ``dataset_json`` (except
    0), 1..``num_classes``-1, or every nonzero value found in the labels and predictions (found as scoring
    reads each map, where one tolerance is given for all: since the hundredth session each map is read once,
    not once to find the classes and again to score). Every pair's geometry is checked before any metric is
    computed.

    Args:
        pred_dir: folder of predicted label maps ``<case>.nii.gz``.
        label_dir: folder of reference label maps with the same names.
        num_classes: classes including background.
        dataset_json: file whose ``"labels"`` give the class names (and values), or the folder holding it (a
            dataset's dataset.json, a model's config.json); an export's config.json or an nnU-Net dataset.json
            declaring regions (``regions.py``) has each region scored instead, as the voxels holding any of its
            values, in rows numbered 1.. in the regions' order.
        tolerance_mm: surface-Dice tolerance: one value, one per class, or {class: mm}.
        output_dir: where the two files go; ``pred_dir/evaluation`` by default.
        geometry_atol_mm: largest affine difference accepted between a prediction and its label.
        regions: the regions to score, in the maps' values (over ``dataset_json``'s).
        ignore_value: the labels' value for unannotated voxels (over ``dataset_json``'s "ignore" label):
            Dice of the annotated voxels alone; HD95 and surface Dice of the cases whose label holds none
            (NaN in the others, which the summary's ``cases_annotated_in_part`` names).
        merge_foreground: class 1 is the foreground, every value above 0 in the references and in the
            predictions merged into one, as a model trained with ``data.binarize`` saw them, or as a mask saved as
            0 and 255 means, whatever classes the predictions tell apart (``--merge-foreground``); the ignore
            value stays out of it. None: the references' alone where ``dataset_json`` is the config.json of a
            model trained so (it predicts 0 and 1: a 2 is refused).
        binarized_references: the references are a dataset's trained binarized (``data.binarize``,
            ``Dataset.binarize()``): merged as a binarized model's config.json given as ``dataset_json`` merges
            them, the references alone (``Segmentation.evaluate``, whose dataset says so where no such file does).
        class_names: names of the ``num_classes`` classes by index (``Segmentation.evaluate``: the model's,
            as training logged them); ``class_<c>`` otherwise.
        setting_names: how the errors name the settings above: by these keyword arguments unless given
            (``accelerated-seg evaluate`` gives its flags).
        overwrite: replace an earlier evaluation in ``output_dir`` that scored other folders or with other
            settings; without it that is refused before any case is scored. One of the same folders and
            settings (summary.json's ``settings``) is replaced either way, and so is one whose folders were moved
            or renamed since, where their files hold what it scored (summary.json's ``inputs_sha256``).

    Returns:
        The summary written to ``summary.json``.

    Raises:
        DataError: missing predictions, grids that disagree, label values outside the classes, an earlier
            evaluation of other inputs or settings in ``output_dir`` (without ``overwrite``).

    Example:
        >>> evaluate_folders("predictions", "labelsTs", num_classes=3)["overall"]["dice"]["mean"]  # doctest: +SKIP
        0.91
    """
    # "~" as the command line reads it (cli.path_argument): evaluate_folders(..., output_dir="~/ev") wrote into a
    # folder named "~" in the working directory, and found no "~/preds" (an audit's probe)
    pred_dir, label_dir = Path(pred_dir).expanduser(), Path(label_dir).expanduser()
    tolerance_mm = _checked_tolerance(tolerance_mm, setting_names)  # before any file is read
    dataset_json = _labels_file(dataset_json, setting_names)
    output_dir = Path(output_dir).expanduser() if output_dir is not None else pred_dir / "evaluation"
    pairs, unmatched = match_cases(pred_dir, label_dir)  # the inputs first: a file given as one is named as such
    # the folder's own checks first: one through a link in a loop raised pathlib's "RuntimeError: Symlink loop" from
    # the other's resolve, a traceback, until the hundred-and-twenty-second session
    check_output_folder(output_dir, setting_names.output_dir)
    check_output_outside_the_labels(output_dir, label_dir, pred_dir, setting_names)
    # each with a Ctrl-C raised, not dropped, where it lands as nibabel closes a file (dropped_interrupts.py)
    with interrupts_kept():
        reorderings, reoriented = _checked_grids(pairs, geometry_atol_mm)  # headers only: before any work

    scoring = _how_scored(dataset_json, num_classes, regions, ignore_value, merge_foreground, binarized_references,
                          setting_names)
    classes = _classes_before_scoring(pairs, num_classes, dataset_json, class_names, tolerance_mm, scoring,
                                      setting_names)
    # what the files scored hold: worked out once, where folders moved since are compared, and for summary.json;
    # there, from the scoring's own read of each file (hashed): until the hundredth session every file was read
    # again to hash it, from disk where the files scored exceed the page cache
    hashed = {}  # path -> hashlib object, fed by read_label_map
    digests = functools.cache(lambda: input_digests(pairs, dataset_json,
                                                    {path: digest.digest() for path, digest in hashed.items()}))
    # the settings as given (not the regions and ignore_value taken from dataset_json), but for the merge
    settings = evaluation_settings(
        pred_dir, label_dir, num_classes=num_classes,
        dataset_json=str(dataset_json.resolve()) if dataset_json is not None else None, tolerance_mm=tolerance_mm,
        geometry_atol_mm=geometry_atol_mm, regions=regions, ignore_value=ignore_value, class_names=class_names,
        merge_foreground=scoring.merged)
    # after the settings' own errors (one wrong is said as such, not as another evaluation's), before any scoring
    check_earlier_evaluation(output_dir, settings, overwrite, setting_names, digests)

    with interrupts_kept():
        scores = _scored_cases(pairs, reorderings, scoring, classes, tolerance_mm, dataset_json, hashed)
    classes = _classes_after_scoring(classes, scores, pairs, scoring, tolerance_mm, setting_names)
    rows = _rows(pairs, classes, scores)
    summary = _summary(pred_dir, label_dir, pairs, unmatched, scoring, classes, scores, reoriented, rows, settings,
                       digests)
    write_evaluation(output_dir, rows, summary, setting_names.output_dir)
    return summary


def _checked_tolerance(tolerance_mm: float | Sequence[float] | Mapping[int, float],
                       setting_names: SettingNames) -> float | Sequence[float] | dict[int, float]:
    """The surface-Dice tolerance as given, its values checked and a {class: mm} keyed by Python ints."""
    check_tolerance_values(tolerance_mm, setting_names.tolerance_mm)
    return _classes_as_ints(tolerance_mm, setting_names.tolerance_mm)


def _labels_file(dataset_json: str | Path | None, setting_names: SettingNames) -> Path | None:
    """The file naming the classes: ``dataset_json``, or for a folder the dataset.json or model's config.json in
    it; None where none is given."""
    if dataset_json is None:
        return None
    return check_labels_file(Path(dataset_json).expanduser(), setting_names.dataset_json, setting_names.num_classes)


def _checked_grids(pairs: Sequence[tuple[str, Path, Path]], geometry_atol_mm: float) -> tuple[dict, dict]:
    """(reorderings, reoriented) of every case, from the headers alone, so that a wrong grid is reported before
    any map is read: reorderings maps a case to the axes' transform of a prediction stored in another orientation
    than its label (or None), reoriented names both orientations where they differ (such a prediction was scored
    reoriented without a word before). A file whose voxels read as other classes than it stores is refused."""
    reorderings, reoriented = {}, {}
    for case, pred_path, label_path in pairs:
        raise_a_dropped_interrupt()  # as the case before's files were closed
        # read_nifti: a file that is not NIfTI at all gave nibabel's bare "File x is not a gzip file"
        pred, label = read_nifti(pred_path, verify_stream=False), read_nifti(label_path, verify_stream=False)
        reorderings[case] = check_same_grid(pred, label, pred_path, label_path, geometry_atol_mm)
        if reorderings[case] is not None:
            reoriented[case] = {role: "".join(nib.aff2axcodes(image.affine))
                                for role, image in (("prediction", pred), ("label", label))}
        for role, image, path in (("prediction", pred, pred_path), ("label", label, label_path)):
            # refused whatever it reads as: a scaling onto classes scored (scl_inter 1: stored 0, 1, 2 read as
            # 1, 2, 3) was scored shifted without a word before the ninety-fifth session
            if scaled := label_scaling_said(image):
                raise DataError(f"{path}: the {role}'s voxels read as classes other than those it stores{scaled}")
    return reorderings, reoriented


@dataclasses.dataclass(frozen=True)
class _Scoring:
    """How ``evaluate_folders`` scores the maps: its settings, with the regions and ignore value ``dataset_json``
    declares where none is given, and the foreground merged (``merge_foreground``): the references', and the
    predictions' too where asked (``merge_predictions``)."""

    regions: Regions | None
    ignore_value: int | None
    merge_foreground: bool
    merge_predictions: bool
    setting_names: SettingNames

    @property
    def merged(self) -> bool | str:
        """What was merged, not how it was asked: merge_foreground=False and None (no --merge-foreground) are the
        same evaluation but beside a binarized model's config.json, and binarized_references=True is that
        config.json's merge. Recorded as given until the ninety-ninth session, False and None were told apart as
        settings."""
        return True if self.merge_predictions else "references" if self.merge_foreground else False

    def as_scored(self, pred: np.ndarray, label: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The two maps (or their values) as scored where the foreground is merged: the references', and the
        predictions' too where asked (a prediction's 2 was scored as a class of its own)."""
        if not self.merge_foreground:
            return pred, label
        return (merged_foreground(pred, self.ignore_value) if self.merge_predictions else pred,
                merged_foreground(label, self.ignore_value))

    def require_known(self, pred: np.ndarray, label: np.ndarray, pred_path: Path, label_path: Path,
                      known: list[int]) -> None:
        """``require_known_values`` of a case's two maps (or their values), as scored."""
        ignore_value, setting_names = self.ignore_value, self.setting_names
        require_known_values(pred, pred_path, known, setting_names, prediction=True, ignore_value=ignore_value)
        require_known_values(label, label_path, known + ([ignore_value] if ignore_value is not None else []),
                             setting_names, reference=ignore_value is None and not self.merge_foreground)


def _how_scored(dataset_json: Path | None, num_classes: int | None, regions: Regions | None,
                ignore_value: int | None, merge_foreground: bool | None, binarized_references: bool,
                setting_names: SettingNames) -> _Scoring:
    """``evaluate_folders``' settings as scoring takes them (``_Scoring``); a ValueError for two that cannot go
    together."""
    if regions is None and dataset_json is not None:
        regions = regions_from_json(dataset_json)
    if ignore_value is None and dataset_json is not None:
        ignore_value = ignore_from_json(dataset_json)
    # Asked for, the merge takes the predictions too (a multi-class model's output against masks); implied by a
    # binarized model's config.json or dataset, the references alone: such a model writes 0 and 1, so a 2 is
    # another model's predictions, refused as before
    merge_predictions = bool(merge_foreground)
    if merge_foreground is None:
        merge_foreground = binarized_references or (dataset_json is not None and binarized_from_json(dataset_json))
    if merge_foreground and num_classes not in (None, 2):
        raise ValueError(f"merging the references' foreground into class 1 leaves two classes, not "
                         f"{setting_names.num_classes} {num_classes}: drop one of the two")
    if merge_foreground and regions is not None:
        raise ValueError(f"{dataset_json or 'regions'} declares regions, each scored over its own values: merging "
                         f"every foreground value into one class leaves none of them; drop "
                         f"{setting_names.merge_foreground}")
    if regions is not None and num_classes is not None:
        raise ValueError(f"{dataset_json or 'regions'} declares regions, which are scored instead of classes: drop "
                         f"{setting_names.num_classes}")
    return _Scoring(regions, ignore_value, merge_foreground, merge_predictions, setting_names)


@dataclasses.dataclass(frozen=True)
class _Classes:
    """The rows scored of each case, by class value (region k's is k + 1) -> name, and each one's surface-Dice
    tolerance; where the classes are ``found`` by scoring's own read of each map, both are None until every map
    is read (``_classes_after_scoring``)."""

    names: dict[int, str] | None
    tolerance: dict[int, float] | None
    found: ClassesFound | None = None


def _classes_before_scoring(pairs: Sequence[tuple[str, Path, Path]], num_classes: int | None,
                            dataset_json: Path | None, class_names: Mapping[int, str] | None,
                            tolerance_mm: float | Sequence[float] | Mapping[int, float], scoring: _Scoring,
                            setting_names: SettingNames) -> _Classes:
    """The classes scored, where the settings or ``dataset_json`` give them, or the regions; else a ``found``
    that scoring's own read of each map fills.

    Where the files give the classes, scoring's own read of each map finds them (ClassesFound), decided once
    every map is read: reading them all first to find the classes, until the hundredth session, read each map
    twice (until the hundred-and-first for {class: mm}). Not for a tolerance per class in order, whose class is
    known only once every class is."""
    regions = scoring.regions
    if regions is None and dataset_json is None and num_classes is None and _each_class_own(tolerance_mm):
        return _Classes(None, None, ClassesFound(setting_names, scoring.ignore_value))
    names = ({k + 1: name for k, name in enumerate(regions.names)} if regions is not None
             else classes_to_score(pairs, num_classes, dataset_json, class_names or {}, scoring.merge_foreground,
                                   setting_names, scoring.ignore_value))
    tolerance = tolerances(tolerance_mm, list(names), "region" if regions is not None else "class",
                           setting_names.tolerance_mm)
    return _Classes(names, tolerance)


@dataclasses.dataclass
class _Scores:
    """What scoring every case gave: each case's {row: metrics} (``scored``), the values its two maps hold
    (``held``, where the classes are found), its label grid's shear in degrees where noted (``sheared``), and
    the cases whose label holds the ignore value (``in_part``)."""

    scored: dict[str, dict[int, dict]] = dataclasses.field(default_factory=dict)
    held: dict[str, list[np.ndarray]] = dataclasses.field(default_factory=dict)
    sheared: dict[str, float] = dataclasses.field(default_factory=dict)
    in_part: list[str] = dataclasses.field(default_factory=list)


def _scored_cases(pairs: Sequence[tuple[str, Path, Path]], reorderings: dict, scoring: _Scoring,
                  classes: _Classes, tolerance_mm: float | Sequence[float] | Mapping[int, float],
                  dataset_json: Path | None, hashed: dict) -> _Scores:
    """Each case's two maps read once (each file hashed as read, into ``hashed``), the prediction laid onto its
    label's grid, merged as asked, their values checked (once every map is read, where the classes are found),
    and scored."""
    known = _values_known(scoring.regions, classes, dataset_json)
    scores = _Scores()
    for case, pred_path, label_path in pairs:
        raise_a_dropped_interrupt()  # as the case before's files were closed
        pred, label, held = _read_case(pred_path, label_path, hashed, classes.found)
        if reorderings[case] is not None:  # its voxels are the label's, in another axis order or direction
            pred = np.ascontiguousarray(nib.orientations.apply_orientation(pred, reorderings[case]))
        pred, label = scoring.as_scored(pred, label)
        if classes.found is None:
            scoring.require_known(pred, label, pred_path, label_path, known)
        else:  # checked once the classes are known, as the maps' values (merged as the maps are)
            scores.held[case] = scoring.as_scored(*held)
        affine = nib.load(label_path).affine
        spacing = voxel_spacing(affine)
        if annotated_in_part(label, scoring.ignore_value):  # its distances are NaN (case_metrics)
            scores.in_part.append(case)
        elif (shear := shear_degrees(affine)) > SHEAR_NOTED_DEGREES:  # where distances are measured
            # To 0.01 degrees: a float32 header's angle is off by ~4e-7 (20.000000287925854 for a 20 degree
            # tilt), which reads as if measured; a scanner's tilt is given to 0.1 or so, the note is from 0.5.
            # Not float32_as_decimal: the angle is no float32 result but an arcsine worked out in float64.
            scores.sheared[case] = round(shear, 2)
        scores.scored[case] = _case_scores(pred, label, spacing, scoring, classes, tolerance_mm,
                                           scores.held.get(case))
    return scores


def _values_known(regions: Regions | None, classes: _Classes, dataset_json: Path | None) -> list[int] | None:
    """The label values a file may hold: a region's values (and the classes of the dataset a model's regions
    were drawn from: one region, {lesion: [2]}, leaves its references' 1 outside every region), or the classes
    scored; None where the classes are found."""
    if regions is not None:
        return sorted({v for region in regions.values for v in region} | export_class_values(dataset_json))
    return list(classes.names) if classes.found is None else None


def _read_case(pred_path: Path, label_path: Path, hashed: dict,
               found: ClassesFound | None) -> tuple[np.ndarray, np.ndarray, list[np.ndarray] | None]:
    """(prediction, reference, the values each holds where the classes are ``found``, else None), each file
    hashed as read into ``hashed`` (path -> hashlib object); the values refused below 0 as the classes' own
    read of a map did."""
    maps, held = [], []
    for path, role in ((pred_path, "prediction"), (label_path, "reference")):
        maps.append(read_label_map(path, role, hashed.setdefault(path, hashlib.sha256())))
        if found is not None:
            held.append(found.add(maps[-1], path, role))
    pred, label = maps
    return pred, label, held if found is not None else None


def _case_scores(pred: np.ndarray, label: np.ndarray, spacing: Sequence[float], scoring: _Scoring,
                 classes: _Classes, tolerance_mm: float | Sequence[float] | Mapping[int, float],
                 held: list[np.ndarray] | None) -> dict[int, dict]:
    """One case's {row: metrics}: of each region (region k is row k + 1), of each class known, or where the
    classes are found, of those this case holds (every other one is in neither map: ``_in_neither``)."""
    if scoring.regions is not None:
        return {k + 1: scores for k, scores in region_metrics(
            pred, label, scoring.regions, spacing, [classes.tolerance[c] for c in classes.names],
            ignore=scoring.ignore_value).items()}
    if classes.found is None:
        return case_metrics(pred, label, list(classes.names), spacing, classes.tolerance, ignore=scoring.ignore_value)
    present = sorted(set(np.concatenate(held).tolist()) - {0, scoring.ignore_value})
    return case_metrics(pred, label, present, spacing, _while_found(tolerance_mm, present),
                        ignore=scoring.ignore_value)


def _classes_after_scoring(classes: _Classes, scores: _Scores, pairs: Sequence[tuple[str, Path, Path]],
                           scoring: _Scoring, tolerance_mm: float | Sequence[float] | Mapping[int, float],
                           setting_names: SettingNames) -> _Classes:
    """``classes`` where they were known before scoring; else those every map read makes, with their tolerances,
    and each case's values checked against them."""
    if classes.found is None:
        return classes
    names = classes.found.classes(scoring.merge_foreground)
    tolerance = tolerances(tolerance_mm, list(names), "class", setting_names.tolerance_mm)
    for case, pred_path, label_path in pairs:  # in the order scoring checked them before
        scoring.require_known(*scores.held[case], pred_path, label_path, list(names))
    return _Classes(names, tolerance)


def _rows(pairs: Sequence[tuple[str, Path, Path]], classes: _Classes, scores: _Scores) -> list[dict]:
    """metrics.csv's rows: one per case and class (or region), case by case, with the class's scores in that
    case, or those of a class in neither of its maps (``_in_neither``: a found class another case holds)."""
    return [{"case": case, "class": c, "name": classes.names[c],
             **(scores.scored[case][c] if c in scores.scored[case] else _in_neither(case in scores.in_part)),
             "tolerance_mm": classes.tolerance[c]}
            for case, _, _ in pairs for c in classes.names]


def _summary(pred_dir: Path, label_dir: Path, pairs: Sequence[tuple[str, Path, Path]], unmatched: Sequence[Path],
             scoring: _Scoring, classes: _Classes, scores: _Scores, reoriented: dict, rows: list[dict],
             settings: dict, digests: Callable[[], dict]) -> dict:
    """What ``summary.json`` holds: the folders, classes and settings scored, the notes on the cases, the
    statistics of ``rows`` and the conventions they follow."""
    ignore_value, merge_foreground = scoring.ignore_value, scoring.merge_foreground
    return {
        "prediction_folder": str(pred_dir), "label_folder": str(label_dir), "num_cases": len(pairs),
        "classes": {str(c): n for c, n in classes.names.items()},
        "tolerance_mm": {str(c): t for c, t in classes.tolerance.items()},
        **({"regions": scoring.regions.to_dict()} if scoring.regions is not None else {}),
        **({"ignore_value": ignore_value} if ignore_value is not None else {}),
        # the cases whose label holds the ignore value: HD95 and surface Dice NaN, left out of their means
        **({"cases_annotated_in_part": scores.in_part} if ignore_value is not None else {}),
        **({"merged_foreground": True} if merge_foreground else {}),
        # cases whose label grid is sheared (degrees from perpendicular): their distances are approximate
        **({"sheared_grids": scores.sheared} if scores.sheared else {}),
        # predictions laid onto their label's grid voxel for voxel (another orientation, nothing resampled)
        **({"reoriented_predictions": reoriented} if reoriented else {}),
        **summarise(rows, classes.names),
        "conventions": _conventions(scoring),
        "predictions_without_label": [str(p) for p in unmatched],
        # what a later evaluation into this folder compares with its own: the same is replaced, another refused
        "settings": settings,
        # and what the files held, by which the same evaluation from folders moved since is told (99th session)
        "inputs_sha256": digests(),
    }


def _conventions(scoring: _Scoring) -> dict[str, str]:
    """summary.json's ``conventions``: how the empty masks are scored, the statistics and distances worked out,
    and the ignore value and merged foreground where there are."""
    ignore_value = scoring.ignore_value
    return {
        "both_empty": "dice 1, hd95_mm 0, surface_dice 1",
        "one_empty": "dice 0, hd95_mm inf, surface_dice 0",
        "statistics": "over finite values; n_inf / n_nan count the others; std is the population std",
        "hd95": "MONAI compute_hausdorff_distance, percentile 95, symmetric, mm from the label's affine",
        "surface_dice": "MONAI compute_surface_dice with use_subvoxels: the share of both surfaces' area "
                        "within tolerance_mm of the other (DeepMind surface-distance's normalised "
                        "surface distance)",
        **({"ignore": f"voxels labelled {ignore_value} are not annotated: Dice over the others; hd95_mm and "
                      "surface_dice not computed (NaN) for a case holding any (cases_annotated_in_part), "
                      "distances to a surface drawn in part are not defined"}
           if ignore_value is not None else {}),
        **({"merged_foreground": merged_foreground_note(scoring.merge_predictions, ignore_value)}
           if scoring.merge_foreground else {}),
    }
