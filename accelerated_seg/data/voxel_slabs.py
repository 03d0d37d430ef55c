"""A volume's voxels read in slabs of z-slices, so that a check holds about one slab of a large volume at a time,
never the volume twice (``checks``' scans of images and labels, and predict's of a scan).
"""

from __future__ import annotations

from collections.abc import Iterator

import nibabel as nib
import numpy as np

_VOXELS_PER_SLAB = 16 * 1024 * 1024  # bounds the temporary arrays of one scan step


def grid_shape(image: nib.Nifti1Image) -> tuple[int, int, int]:
    """The (x, y, z) shape of the voxel grid, whatever the volumes per file."""
    return tuple(int(size) for size in image.shape[:3])


def slabs(image: nib.Nifti1Image) -> Iterator[np.ndarray]:
    """Yield the voxels in runs of z-slices; z is the slowest axis on disk, so each slab is one contiguous read."""
    for _, slab in slabs_from(image):
        yield slab


def slabs_from(image: nib.Nifti1Image) -> Iterator[tuple[int, np.ndarray]]:
    """``slabs`` with the first z index of each."""
    nx, ny, nz = grid_shape(image)
    step = max(1, _VOXELS_PER_SLAB // max(1, nx * ny))
    for start in range(0, nz, step):
        yield start, np.asanyarray(image.dataobj[:, :, start : start + step])
