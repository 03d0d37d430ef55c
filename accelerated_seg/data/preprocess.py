"""The deterministic part of the pipeline, shared by training, validation and prediction.

Every volume is brought to the same frame before the network sees it: channel-first, RAS
orientation, the target voxel spacing (when one is set) and per-channel z-score intensities over
the nonzero (head) region. ``predict`` applies exactly these transforms and inverts the spatial ones
(MONAI records them on the MetaTensor), so predictions land back on the input's grid.
"""

from __future__ import annotations

from typing import Sequence

from monai.transforms import (
    Compose,
    EnsureChannelFirstd,
    EnsureTyped,
    LoadImaged,
    NormalizeIntensityd,
    Orientationd,
    Spacingd,
)

# Recorded in config.json so inference can say what it applies.
NORMALISATION = {"type": "zscore", "nonzero": True, "channel_wise": True}
ORIENTATION = "RAS"


def preprocess(keys: Sequence[str] = ("image", "label"), spacing: Sequence[float] | None = None) -> Compose:
    """Load + orient + resample + normalise; ``keys`` may omit "label" for inference.

    Args:
        keys: dictionary keys to load; "image" is normalised, "label" resampled with nearest.
        spacing: target voxel size in mm, or None to keep each volume's own spacing.
    """
    keys = list(keys)
    steps = [
        # Multi-channel cases list one file per channel; EnsureChannelFirstd stacks them.
        LoadImaged(keys, reader="NibabelReader", image_only=True),
        EnsureChannelFirstd(keys),
        # labels=None: take the axis convention from the MetaTensor (nibabel gives RAS world space).
        Orientationd(keys, axcodes=ORIENTATION, labels=None),
    ]
    if spacing is not None:
        modes = ["bilinear" if k == "image" else "nearest" for k in keys]
        steps.append(Spacingd(keys, pixdim=tuple(spacing), mode=modes))
    steps += [
        NormalizeIntensityd("image", nonzero=NORMALISATION["nonzero"], channel_wise=NORMALISATION["channel_wise"]),
        EnsureTyped("image", dtype="float32", track_meta=True),
    ]
    return Compose(steps)
