"""The box of a case's image voxels above 0, which data.crop_foreground crops the case to: the checks find it
as they scan the images, and count the labelled voxels outside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Box:
    """The bounding box of some voxels, inclusive ``low`` and ``high`` corner indices."""

    low: tuple[int, int, int]
    high: tuple[int, int, int]

    @staticmethod
    def of(mask: np.ndarray, z_offset: int = 0) -> Box | None:
        """The box of a 3D mask's True voxels (its z indices shifted by ``z_offset``), None if there are none."""
        corners = [np.flatnonzero(np.any(mask, axis=tuple(a for a in range(3) if a != axis))) for axis in range(3)]
        if not len(corners[0]):
            return None
        return Box((int(corners[0][0]), int(corners[1][0]), int(corners[2][0]) + z_offset),
                   (int(corners[0][-1]), int(corners[1][-1]), int(corners[2][-1]) + z_offset))

    @staticmethod
    def union(boxes) -> Box | None:
        boxes = [box for box in boxes if box is not None]
        if not boxes:
            return None
        return Box(tuple(min(b.low[a] for b in boxes) for a in range(3)),
                   tuple(max(b.high[a] for b in boxes) for a in range(3)))

    def outside(self, slab: np.ndarray, z_offset: int) -> np.ndarray:
        """Boolean mask of a slab's voxels outside the box (the slab's first z index is ``z_offset``)."""
        inside = np.zeros(slab.shape[:3], bool)
        low_z, high_z = self.low[2] - z_offset, self.high[2] - z_offset
        inside[self.low[0]:self.high[0] + 1, self.low[1]:self.high[1] + 1, max(0, low_z):max(0, high_z + 1)] = True
        return ~inside
