"""A label file's values checked as one pass reads them: whole numbers among the declared values, refused with
their likely cause (resampled linearly, a scan or a probability map given as the label, a header's scaling, NaN
alone), and counted for what the foreground crop would cut away.
"""

from __future__ import annotations

from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.all_nan import all_nan_said
from accelerated_seg.data.check_report import CheckReport
from accelerated_seg.data.dataset_tally import Tally
from accelerated_seg.data.declared_labels import DeclaredLabels
from accelerated_seg.data.foreground_box import Box
from accelerated_seg.data.voxel_slabs import grid_shape, slabs_from

_MAX_VALUES_SHOWN = 8  # enough to recognise the mistake without flooding the message


def check_label_values(
    path: Path, label: nib.Nifti1Image, declared: DeclaredLabels, context: str, report: CheckReport, tally: Tally,
    box: Box | None = None,
) -> tuple[int, int]:
    """Labels must be whole numbers among the declared values: anything else breaks the remap, one-hot or loss.

    Returns:
        (labelled voxels outside ``box``, labelled voxels): what the foreground crop would drop.
    """
    non_integer: set[float] = set()
    undeclared: set[float] = set()
    has_foreground = False
    outside = labelled = 0
    voxels = fractional_voxels = 0
    within_0_1 = True  # every non-integer value: a probability map's, where most voxels hold them
    any_finite, only_nan = label.get_data_dtype().kind != "f", True  # of a float label: one of NaN alone?
    slope, inter = _scaling(label)
    # A header's scaling misreads every value of the file: the declared classes its stored values hold (what
    # the error's remedy writes back) are behind the values refused, and those alone (any it did not read, before
    # the ninety-fifth session, so one scaled file hid a class in no file of the dataset)
    stored = Tally(declared, declared.ignore_value) if (slope, inter) != (1.0, 0.0) else None
    for start, slab in slabs_from(label):
        voxels += slab.size
        if stored is not None:
            stored.see(np.round((slab - inter) / slope))
        if not any_finite:  # a normal float label's first slab ends this
            any_finite, only_nan = bool(np.isfinite(slab).any()), only_nan and bool(np.isnan(slab).all())
        if slab.dtype.kind in "fc":
            fractional = slab != np.round(slab)  # NaN compares unequal, so it is caught too
            values = slab[fractional]
            _collect(non_integer, values)
            if stored is None:  # a scaled file's are its stored values' classes (below), not those near its reads
                tally.see_refused(values)
            fractional_voxels += values.size
            within_0_1 = within_0_1 and not np.any((values < 0) | (values > 1))
            slab = np.where(fractional, 0, slab)  # report each bad voxel once, as non-integer
        _collect(undeclared, slab[declared.undeclared(slab)])
        tally.see(slab)
        foreground = slab > 0  # an ignore label's voxels too: annotated or not, they are cut away alike
        has_foreground = has_foreground or bool(np.any(slab != 0))
        if box is not None and slab.ndim in (3, 4) and slab.shape[3:] in ((), (1,)):  # (x, y, z, 1) too
            spatial = foreground.reshape(slab.shape[:3])
            labelled += int(np.count_nonzero(spatial))
            outside += int(np.count_nonzero(spatial & box.outside(slab, start)))
    tally.scanned += 1
    if not any_finite and voxels:  # told "all within 0..1, as a probability map's do" until the ninety-seventh
        report.errors.append(f"{context}: {path}: {all_nan_said(grid_shape(label), only_nan, 'label')}")
        return outside, labelled

    # Refused whatever it reads as: a scaling onto declared classes (scl_inter 1: stored 0, 1, 2 read as 1, 2, 3)
    # passed silently before the ninety-fifth session, and training learnt every class shifted
    scaled = label_scaling_said(label)
    if scaled:
        tally.refused.update(value for value in tally.unseen if value not in stored.unseen)
    if scaled and not (non_integer or undeclared):
        report.errors.append(f"{context}: {path}: its voxels read as classes other than those it stores{scaled}")
    if non_integer:
        report.errors.append(f"{context}: {path}: non-integer label values {_show(non_integer)}; a label map holds "
                             f"class values" + (scaled or _why_not_whole(fractional_voxels, voxels, within_0_1)))
    if undeclared:
        # The way that works for "unlabelled" voxels is the ignore label: declaring -1 is refused (labels.py), and
        # so is ignore_value=-1. Said in from_files' words to its pairs (the config's "ignore" label came first,
        # ignore_value= in brackets with no value, until the ninety-seventh session)
        ignored = declared.ignore_value if declared.ignore_value is not None else max(declared.values) + 1
        way = (f"give them a value above the classes', {ignored}, and Dataset.from_files(..., ignore_value={ignored})"
               if declared.from_files else "give them a value above the classes' and declare it the \"ignore\" "
                                           "label (Dataset.from_files: ignore_value=)")
        negative = (" (negative values are never classes; -1 often marks unlabelled voxels"
                    + (f": to leave them out of the loss and the metrics, {way}, docs/data.md)"
                       if not declared.any_foreground else ")") if min(undeclared) < 0 else "")
        # 255 (uint8's largest) is how many exports mark unannotated voxels; declared as a class it would train
        # "unlabelled" as a structure: the ignore label is the way (ninety-fourth session's probe)
        if 255 in undeclared and declared.ignore_value is None and not declared.any_foreground:
            declare = ("give Dataset.from_files ignore_value=255, nnU-Net's \"ignore\" label" if declared.from_files
                       else f"declare it the \"ignore\" label in {declared.declared_in}, as nnU-Net does "
                            f"(Dataset.from_files: ignore_value=255)")
            negative += (f" (255 often marks unlabelled voxels: to leave them out of the loss and the metrics, "
                         f"{declare}, docs/data.md \"Sparse annotation\")")
        # A two-class mask saved as 0 and 255 (or any one other value) is the usual cause in a binary dataset;
        # binarizing is its remedy, which the message did not name before the forty-fourth session.
        mask = not declared.any_foreground and len(declared.values) == 2 and min(undeclared) > 0
        # check's flag too, as data.labels is told with check's --labels: `check cases.csv` of a 0/255 mask was told
        # a config setting that the command, given no --config, takes as --binarize (hundredth session)
        binarize = ("Dataset.binarize() (data.binarize: true in a config file)" if declared.from_files
                    else "data.binarize: true (check: --binarize; Dataset.binarize())")
        report.errors.append(
            f"{context}: {path}: label values {_show(undeclared)} are not declared (declared: "
            f"{declared.describe()}){negative}{scaled}; fix the label file"
            + ("" if declared.any_foreground else f", or declare the missing classes in {declared.declared_in}")
            + (", or, for a mask saved as 0 and another value (255, say), train every value above 0 as the one "
               f"foreground class: {binarize}" if mask else "")
        )
    if not has_foreground and not non_integer:
        tally.background_only.append(path)
    return outside, labelled


def label_scaling_said(label: nib.Nifti1Image) -> str:
    """Words for a label whose header scales its stored values (scl_slope/scl_inter, which nibabel, ITK
    and so this package apply), or "": an image's scaling copied onto its label (a probe's clinical
    export) turned stored 0, 1, 2 into 5, 7, 9, which the check told the user to declare as classes."""
    slope, inter = _scaling(label)
    if slope == 1.0 and inter == 0.0:
        return ""
    return (f" — its header scales the stored values (scl_slope {slope:g}, scl_inter {inter:g}), as every NIfTI "
            "reader does, but a label map's values are classes: write its stored values without scaling (nibabel: "
            "nib.save(nib.Nifti1Image(img.dataobj.get_unscaled(), img.affine, img.header), path))")


def _scaling(image: nib.Nifti1Image) -> tuple[float, float]:
    """The (scl_slope, scl_inter) that nibabel applies to the stored values: (1, 0) where it applies none."""
    return tuple(float(getattr(image.dataobj, name, default)) for name, default in (("slope", 1.0), ("inter", 0.0)))


def _why_not_whole(fractional_voxels: int, voxels: int, within_0_1: bool) -> str:
    """The likely cause of a label file's non-integer values, and its remedy. A label map resampled
    linearly has them at its edges alone; most of its voxels is a scan's intensities, the case's image
    given as its label, which was told it had been resampled (ninety-second session's probe), or, all
    within 0..1, a probability (soft) map's, which was told its image and label were swapped (its review)."""
    if fractional_voxels > voxels / 2:
        share = f", and {fractional_voxels / voxels:.0%} of this file's voxels hold others"
        swapped = "if the case's image and label are swapped, give the scan as its image and the label map as its label"
        if within_0_1:
            return (f"{share}, all within 0..1, as a probability map's do: give the label map of class values (a "
                    f"probability map thresholded, or the argmax of one per class); or, {swapped}")
        return f"{share}, as a scan's intensities do: {swapped}"
    return " — it was probably resampled with linear interpolation; use nearest-neighbour, or round it"


def _collect(found: set[float], values: np.ndarray) -> None:
    """Add a few distinct offending values to ``found`` (a sample, not all of them)."""
    if values.size and len(found) < _MAX_VALUES_SHOWN:
        found.update(np.unique(values)[: _MAX_VALUES_SHOWN - len(found)].tolist())


def _show(values: set[float]) -> str:
    """Sorted, with whole numbers shown as integers (3 not 3.0) and NaN last."""
    shown = [int(v) if float(v).is_integer() else v for v in sorted(values, key=lambda v: (np.isnan(v), v))]
    return str(shown) + (" (and possibly more)" if len(values) >= _MAX_VALUES_SHOWN else "")
