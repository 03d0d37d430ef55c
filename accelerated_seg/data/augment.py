"""Training augmentation assembled from MONAI transforms.

A light, general-purpose set: small rotations/scaling, flips on every axis, and intensity
scale/shift/noise. Every transform is ``Randomizable``; the patch dataset reseeds them per sample
so a sample's augmentation depends only on (seed, epoch, index), never on the worker or rank.
"""

from __future__ import annotations

import math

from monai.transforms import (
    RandAffined,
    RandFlipd,
    RandGaussianNoised,
    RandScaleIntensityd,
    RandShiftIntensityd,
)


def augmentations(enabled: bool = True) -> list:
    if not enabled:
        return []
    keys = ["image", "label"]
    return [
        RandAffined(keys, prob=0.3, rotate_range=[math.radians(15)] * 3, scale_range=[0.1] * 3,
                    mode=["bilinear", "nearest"], padding_mode="zeros"),
        *(RandFlipd(keys, prob=0.5, spatial_axis=axis) for axis in range(3)),
        RandScaleIntensityd("image", factors=0.1, prob=0.5),
        RandShiftIntensityd("image", offsets=0.1, prob=0.5),
        RandGaussianNoised("image", prob=0.2, std=0.05),
    ]
