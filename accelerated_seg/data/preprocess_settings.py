"""What decides how a volume is preprocessed, as a cache key and an export's ``config.json`` record it,
how the data settings left to ``auto`` resolve, and the label value each class is written as. Kept
apart from the transforms (``preprocess.py``) so that reading an export's settings imports neither
torch nor MONAI: ``evaluate`` checks a model's classes against its arguments before those imports.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .cases import Manifest

# HU clipped to by ``ct`` normalization unless data.ct_window says otherwise: air to dense bone.
DEFAULT_CT_WINDOW = (-1000.0, 1000.0)


@dataclass(frozen=True)
class PreprocessSettings:
    """Everything that decides what a preprocessed volume looks like; stored in config.json.

    Args:
        spacing: target voxel size in mm (RAS axis order), or None to keep each volume's own.
        normalization: ``zscore`` (per channel over nonzero voxels) or ``ct`` (clip to ``ct_window``
            in HU, then scale linearly to [-1, 1]).
        ct_window: (low, high) HU for ``ct``.
        crop_foreground: crop to the bounding box of image voxels above 0 (any channel).
        label_map: declared label value -> class index, for datasets whose values are not 0..C-1.
        binarize: every non-zero label value is foreground (class 1), declared or not: a FreeSurfer
            aseg holds dozens of values, and "brain vs not brain" should not need them listed.
    """

    spacing: tuple[float, float, float] | None = None
    normalization: str = "zscore"
    ct_window: tuple[float, float] = DEFAULT_CT_WINDOW
    crop_foreground: bool = True
    label_map: tuple[tuple[int, int], ...] | None = field(default=None)
    binarize: bool = False

    def to_dict(self) -> dict:
        d = asdict(self)
        if not self.binarize:  # absent unless set, so caches and exports made before it stay valid
            del d["binarize"]
        d["spacing"] = list(self.spacing) if self.spacing else None
        d["ct_window"] = list(self.ct_window)
        d["label_map"] = [list(p) for p in self.label_map] if self.label_map else None
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "PreprocessSettings":
        return cls(spacing=tuple(d["spacing"]) if d.get("spacing") else None,
                   normalization=d.get("normalization", "zscore"),
                   ct_window=tuple(d.get("ct_window", DEFAULT_CT_WINDOW)),
                   crop_foreground=d.get("crop_foreground", True),
                   label_map=tuple(tuple(p) for p in d["label_map"]) if d.get("label_map") else None,
                   binarize=d.get("binarize", False))

    def fingerprint(self) -> str:
        text = json.dumps({"version": PREPROCESS_VERSION, **self.to_dict()}, sort_keys=True)
        return hashlib.sha1(text.encode()).hexdigest()[:16]


# Bump when the transforms of preprocess.py change meaning, so caches built by older code are not reused
# and a checkpoint or export trained on volumes the older code prepared says so (``code_version_difference``).
PREPROCESS_VERSION = 3
#: What each version changed, for the messages that name a difference of versions.
PREPROCESS_CHANGES = {2: "volumes resampled in float32", 3: "voxels placed by the sform, as nibabel places them"}
#: The key of exports' config.json (and checkpoints' export.json) that records PREPROCESS_VERSION.
CODE_VERSION_KEY = "preprocessing_code_version"


def code_version_difference(export: dict, saved_where: str) -> str | None:
    """How the preprocessing code that prepared an export's (or a checkpoint's) training volumes
    differs from this one's, or None: the same, or not recorded (written before the seventy-sixth
    session; training's settings are compared apart, ``preprocessing_differences``). Until then a
    resume across a change of the code (the sform placing the voxels, version 3) trained on without a
    word on volumes prepared otherwise (seventy-sixth session's probe)."""
    recorded = export.get(CODE_VERSION_KEY)
    if not isinstance(recorded, int) or recorded == PREPROCESS_VERSION:  # a hand edit's "3": not comparable
        return None
    since = "; ".join(f"{version}: {what}" for version, what in sorted(PREPROCESS_CHANGES.items())
                      if recorded < version <= PREPROCESS_VERSION)
    return (f"the preprocessing code: version {recorded} {saved_where}, {PREPROCESS_VERSION} here"
            + (f" ({since})" if since else ""))


def preprocess_settings(config: dict) -> PreprocessSettings:
    """The preprocessing the model was trained with, from its ``config.json``.

    Exports that record ``"preprocessing"`` (``PreprocessSettings.to_dict()``) get exactly that.
    Older exports recorded only ``"spacing"``; their training oriented, resampled and z-scored
    without cropping, so that is what they get.
    """
    if config.get("preprocessing") is not None:
        return PreprocessSettings.from_dict(config["preprocessing"])
    spacing = config.get("spacing")
    return PreprocessSettings(spacing=tuple(spacing) if spacing else None, normalization="zscore",
                              crop_foreground=False)


# The key of an export's config.json that says whether data.spacing set its spacing (true) or the training cases'
# median did (false).
SPACING_SET_KEY = "spacing_set"


def spacing_was_set(config: dict) -> bool:
    """Whether the model's spacing was set (``data.spacing``), from its ``config.json``: training takes at its word
    a header that declares mm for voxels far finer than a spacing set, and not than a median. Exports made before
    the hundred-and-fifth session do not say: they are taken as set, as predict took them until then."""
    return config.get(SPACING_SET_KEY, True) is not False


# The key of an export's config.json that records the unit its training cases' headers declared their voxel sizes
# in (xyzt_units: "mm", "meter" or "micron"; null where none declared one), which its spacing's numbers are in.
SPACING_UNIT_KEY = "spacing_unit"
#: The units a header declares, as nibabel's get_xyzt_units() names them
SPATIAL_UNITS = ("mm", "meter", "micron")


def spacing_unit(config: dict) -> str | None:
    """The unit the model's training cases' headers declared, from its ``config.json``, or None: none declared one,
    or the export was made before the hundred-and-sixth session, which recorded none."""
    return config.get(SPACING_UNIT_KEY)


# The key of an export's config.json that records its cases' median voxel size per RAS axis (training's and
# validation's first images, in the spacing's numbers: the unit above), where data.spacing set the spacing (null where
# the median is the spacing itself): what training weighs a case declaring mm far finer than a spacing set coarser on
# purpose against (``spacing.check_voxels_in_mm``), and predict a scan so since the hundred-and-nineteenth session.
CASES_MEDIAN_KEY = "cases_median_spacing"


def cases_median_spacing(config: dict) -> tuple[float, float, float] | None:
    """The model's cases' median voxel size, from its ``config.json``, or None: its spacing is that median (data.spacing
    unset), or the export was made before the hundred-and-nineteenth session, which recorded none."""
    median = config.get(CASES_MEDIAN_KEY)
    return tuple(float(size) for size in median) if median is not None else None


def class_values(settings: PreprocessSettings, num_classes: int) -> np.ndarray:
    """Label value written for each class index: the dataset's own value where the class stands for
    one (BraTS' 4), the class index where it merges several (``binarize``: foreground is 1, as the
    export's labels say)."""
    if settings.binarize:
        return np.arange(num_classes)
    merged: dict[int, list[int]] = {}
    for original, class_index in settings.label_map or ():
        merged.setdefault(class_index, []).append(original)
    values = np.arange(num_classes)
    for class_index, originals in merged.items():
        if len(originals) == 1 and class_index < num_classes:  # num_classes: unannotated voxels, never predicted
            values[class_index] = originals[0]
    return values


def resolved_normalization(asked: str, manifest: Manifest) -> str:
    """``data.normalization`` with ``auto`` resolved: ``ct`` where the dataset names every image channel
    CT, as nnU-Net chooses its CT normalization from the same declaration; ``zscore`` otherwise. A CT
    dataset of the Decathlon's (7 of its 10 tasks) was z-scored and cropped to the voxels above 0 HU,
    cutting fat and air away, unless ``data.normalization: ct`` was given (until the sixty-seventh session).
    """
    if asked != "auto":
        return asked
    names = list(manifest.channels.values())
    return "ct" if names and all(str(name).strip().upper() == "CT" for name in names) else "zscore"


def resolved_crop_foreground(asked: bool | None, normalization: str) -> bool:
    """``data.crop_foreground`` with None resolved: on for zscore, off for ct, where air is -1000 HU and
    fat below 0, so a box of the voxels above 0 would cut tissue away."""
    return asked if asked is not None else normalization != "ct"
