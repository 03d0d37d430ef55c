"""An image's intensities checked as one pass reads them: NaN, Inf and values beyond float32's range refused, the
box of its voxels above 0 found, and a voxel (or a few) that makes its z-score on its own told
(``intensity_spread``); predict reads a scan with the same helpers.
"""

from __future__ import annotations

import math
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.check_report import CheckReport
from accelerated_seg.data.foreground_box import Box
from accelerated_seg.data.intensity_spread import IntensitySpread, cluster_said, extreme_clusters, squeeze_said
from accelerated_seg.data.voxel_slabs import slabs, slabs_from

_FLOAT32_MAX = float(np.finfo(np.float32).max)


def non_finite_counts(image: nib.Nifti1Image) -> tuple[int, int]:
    """(NaN, Inf) voxel counts of a 3D image, read in slabs so a large volume is never held twice."""
    if image.get_data_dtype().kind not in "fc":
        return 0, 0  # integer storage (even scaled by a finite slope) cannot hold NaN/Inf
    nan = infinite = 0
    for slab in slabs(image):
        nan += int(np.count_nonzero(np.isnan(slab)))
        infinite += int(np.count_nonzero(np.isinf(slab)))
    return nan, infinite


def any_above_zero(image: nib.Nifti1Image) -> bool:
    """Whether any voxel (of any volume of a 4D file) is above 0: what the foreground crop keeps."""
    return any(bool(np.any(slab > 0)) for slab in slabs(image) if slab.dtype.kind != "c")


def check_finite(path: Path, image: nib.Nifti1Image, context: str, report: CheckReport,
                  spread: IntensitySpread | None = None) -> tuple[Box | None, float, float | None]:
    """NaN/Inf intensities turn the loss into NaN on the first batch that contains them, and so do
    finite ones beyond float32's range, in which training and predict read every image: a float64
    file's, or an integer's scaled by its header's scl_slope (nibabel reads both as float64). Such a
    case became all NaN in the cache without a word, and the run skipped its steps or scored it 0
    (seventy-eighth session's probe; predict refuses such a scan once preprocessed). Returns the box
    of the voxels above 0 (of any volume of a 4D file), which the foreground crop keeps, the smallest
    finite intensity, and the one value every voxel holds (None where they differ or some are not
    finite), read in the same pass; ``spread`` gathers the voxels' sums there too, where given and
    every voxel is finite."""
    nan = infinite = beyond_float32 = 0
    minimum, maximum, largest = math.inf, -math.inf, 0.0
    floating = image.get_data_dtype().kind in "fc"  # integer storage, even scaled by a finite slope: finite
    boxes = []
    for start, slab in slabs_from(image):
        all_finite = True
        if floating:
            nan_here, infinite_here = int(np.count_nonzero(np.isnan(slab))), int(np.count_nonzero(np.isinf(slab)))
            nan, infinite, all_finite = nan + nan_here, infinite + infinite_here, not (nan_here or infinite_here)
        if slab.dtype.kind != "c":  # complex images are refused when opened
            above = slab > 0  # NaN compares False
            boxes.append(Box.of(above.reshape(*above.shape[:3], -1).any(axis=3), start))
            finite = slab if all_finite else slab[np.isfinite(slab)]
            if finite.size:
                # the spread's sums are taken where they can be (every voxel finite so far), in the same
                # reading of the voxels as their extremes
                gathered = spread is not None and all_finite and not (nan or infinite or beyond_float32)
                low, high = spread.see(slab) if gathered else (float(finite.min()), float(finite.max()))
                minimum, maximum = min(minimum, low), max(maximum, high)
                if max(-low, high) > _FLOAT32_MAX:  # only float64 can (a file's, or integers scaled by scl_slope)
                    beyond_float32 += int(np.count_nonzero(np.abs(finite) > _FLOAT32_MAX))
                    largest = max(largest, -low, high)
    if spread is not None and (nan or infinite or beyond_float32):
        spread.clear()  # such an image is refused: its spread is not worth a word
    if nan or infinite:
        report.errors.append(
            f"{context}: {path}: {nan + infinite} non-finite voxel(s) ({nan} NaN, {infinite} Inf) in the image; "
            "replace them with a finite value (e.g. the background intensity) or re-export the image"
        )
    if beyond_float32:
        report.errors.append(
            f"{context}: {path}: {beyond_float32} voxel(s) beyond float32's range (up to {largest:.3g}; float32 "
            f"holds {_FLOAT32_MAX:.3g}), in which training reads the image: they would become Inf and the case "
            "NaN once normalized; rescale the image (or the scl_slope of its header)"
        )
    return Box.union(boxes), minimum, (minimum if minimum == maximum and not (nan or infinite) else None)


def tell_dominant_voxels(spread: IntensitySpread, image: nib.Nifti1Image, path: Path, context: str,
                          report: CheckReport) -> None:
    """Warn of each channel whose z-score one voxel, or a few together, make (``intensity_spread``)."""
    for channel, what, way_on in dominant_voxels_said(spread, image):
        which = f" (volume {channel} of the file)" if len(spread.count) > 1 else ""
        report.warnings.append(f"{context}: {path}{which}: {what}; {way_on}, or leave the case out")


def dominant_voxels_said(spread: IntensitySpread, image: nib.Nifti1Image) -> list[tuple[int, str, str]]:
    """(channel, what it does, the way on) for each channel of ``image`` whose z-score one voxel makes,
    or a few together (the image read again for those: ``intensity_spread.extreme_clusters``)."""
    said = [(channel, squeeze_said(value, share), "set that voxel to a tissue value in the file (a hot pixel, "
             "a marker)") for channel, value, share in spread.dominant_voxels()]
    said += [(channel, cluster_said(count, low, high, share), "set those voxels to a tissue value in the file (a "
              "marker, hot pixels)") for channel, count, low, high, share in extreme_clusters(spread, slabs(image))]
    return sorted(said, key=lambda item: item[0])


def intensity_spread(image: nib.Nifti1Image) -> IntensitySpread:
    """The sums of ``intensity_spread`` over a finite image's voxels, read in slabs (predict's check
    of a scan a z-scoring model segments)."""
    spread = IntensitySpread()
    for slab in slabs(image):
        spread.see(slab)
    return spread
