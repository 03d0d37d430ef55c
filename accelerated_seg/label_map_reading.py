"""A label map's voxels as the class numbers they hold (``read_label_map``), for ``accelerated-seg evaluate``
and ``Segmentation.evaluate``: a map that holds anything else is refused, naming the file and what made it so
(a map of NaN alone, NaN or Inf among whole numbers, a header's scaling, an image or probability map given as
a label map). Moved out of ``evaluate.py`` in the ninety-sixth session; importable from there as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .data.all_nan import all_nan_said
from .data.errors import DataError
from .data.io import read_nifti

if TYPE_CHECKING:
    from hashlib import _Hash as Hash


def read_label_map(path: Path, role: str | None = None, digest: Hash | None = None) -> np.ndarray:
    """Integer voxels of a label map (the whole gzip stream is verified), as int64 (X, Y, Z); ``role``
    ("prediction" or "reference", None where either) says what made a map of NaN alone, and what to do;
    ``digest`` (a hashlib object) takes the file's bytes in the same read (``read_nifti``)."""
    image = read_nifti(path, digest=digest)
    array = np.asanyarray(image.dataobj)
    if array.ndim > 3:
        array = array.reshape(array.shape[:3])
    if array.dtype.kind == "f":
        if not np.isfinite(array).any():
            raise DataError(f"{path}: {nothing_but_nan_said(array, role)}")
        wrong = ~np.isfinite(array) | (array != np.round(array))
        if wrong.any() and np.isfinite(array[wrong]).sum() == 0:
            # another tool's float output, whole numbers but for NaN: "an image or a probability map?" misled
            raise DataError(f"{path}: {int(wrong.sum())} voxel(s) NaN or Inf among whole class numbers; a label map "
                            f"holds none: set them to 0 (background) or to their class, or export the map again")
        if wrong.any():
            # Which values, and the header's scaling where it made them: integer labels saved through a
            # uint8 header with a slope read back as 1000.0000012, and only "fractional" was said.
            values = np.unique(array[wrong])
            shown = ", ".join(f"{value:.12g}" for value in values[:5]) + (", ..." if len(values) > 5 else "")
            # nibabel keeps the file's scaling on the data proxy (the header's scl_ fields read NaN once loaded)
            slope, inter = (float(getattr(image.dataobj, name, default)) for name, default in (("slope", 1.0),
                                                                                              ("inter", 0.0)))
            scaled = (f"; its header scales the stored integers (scl_slope {slope:.6g}, scl_inter {inter:.6g}), "
                      f"which made them so: save the label map with an integer data type and no scaling"
                      if (slope, inter) != (1.0, 0.0) else
                      "; is this an image or a probability map instead of a label map? Give the label map of "
                      "class values (a probability map thresholded, or the argmax of one per class)")
            raise DataError(f"{path}: a label map must hold whole class numbers, found {len(values)} other value(s) "
                            f"({shown}){scaled}")
    return array.astype(np.int64)


def nothing_but_nan_said(array: np.ndarray, role: str | None) -> str:
    """``data.all_nan.all_nan_said`` of a map read whole, without a finite voxel (``evaluate_grids.check_same_grid``
    asks it of one of several volumes before refusing its volumes)."""
    return all_nan_said(array.shape, bool(np.isnan(array).all()), role)
