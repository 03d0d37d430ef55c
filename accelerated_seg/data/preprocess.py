"""The deterministic part of the pipeline, shared by the preprocessing cache and prediction.

Every volume is brought to the same frame before the network sees it: channel-first, RAS
orientation, the target voxel spacing, cropped to the bounding box of its voxels above 0, intensities
normalised (per-channel z-score over nonzero voxels, or a CT window scaled to [-1, 1]), and label
values mapped to classes 0..C-1 (binarized: every non-zero value to 1). ``predict`` applies exactly
these transforms and inverts the spatial ones (MONAI records them on the MetaTensor), so predictions
land back on the input's grid.
"""

from __future__ import annotations

from typing import Sequence

import nibabel as nib
import torch
from monai.data import NibabelReader
from monai.transforms import (
    AsDiscreted,
    Compose,
    CropForegroundd,
    EnsureChannelFirstd,
    EnsureTyped,
    LoadImaged,
    MapLabelValued,
    NormalizeIntensityd,
    Orientationd,
    ScaleIntensityRanged,
    Spacingd,
)
from monai.utils import ensure_tuple

from .preprocess_settings import PreprocessSettings
from .volume_opening import one_volume

ORIENTATION = "RAS"


# The intensity normalizations ``preprocess`` knows (data.normalization; an export's preprocessing)
NORMALIZATIONS = ("zscore", "ct")


def case_dict(case) -> dict:
    """The dictionary ``preprocess`` loads for a manifest ``Case`` (one path per channel)."""
    image = [str(p) for p in case.images]
    d = {"image": image if len(image) > 1 else image[0], "id": case.id}
    if case.label is not None:
        d["label"] = str(case.label)
    return d


def preprocess(keys: Sequence[str] = ("image", "label"), settings: PreprocessSettings | None = None,
               reader: NiftiReader | None = None) -> Compose:
    """Load + orient + resample + crop + normalise (+ map labels); ``keys`` may omit "label".

    Args:
        keys: dictionary keys to load; "image" is normalised, "label" resampled with nearest and remapped.
        settings: what to do; the defaults keep the spacing and z-score the image.
        reader: the loader's reader (e.g. ``ImagesReadAlready``); a ``NiftiReader`` by default.
    """
    settings = settings or PreprocessSettings()
    keys = list(keys)
    steps = [
        # Multi-channel cases list one file per channel; EnsureChannelFirstd stacks them.
        LoadImaged(keys, reader=reader or NiftiReader(), image_only=True),
        EnsureChannelFirstd(keys),
        # labels=None: take the axis convention from the MetaTensor (nibabel gives RAS world space).
        Orientationd(keys, axcodes=ORIENTATION, labels=None),
    ]
    if settings.spacing is not None:
        modes = ["bilinear" if k == "image" else "nearest" for k in keys]
        # In float32, not Spacingd's float64: the volume is float32 before and after, and float32
        # places a sampling point of a few hundred voxels' grid within ~1e-4 voxel. float64 took
        # 1.6x the memory and made prediction's inverse of 3 classes 1.5x slower (docs/inference.md);
        # the inverse reads the dtype from the trace, so it resamples back in float32 too.
        steps.append(Spacingd(keys, pixdim=tuple(settings.spacing), mode=modes, dtype=torch.float32))
    if settings.crop_foreground:
        # Before normalisation, so the box is that of the scanner's values: MONAI keeps voxels > 0
        # (its default select_fn), the zero background of MR. CT's air is negative, so training
        # leaves the crop off there unless asked (data.crop_foreground).
        steps.append(CropForegroundd(keys, source_key="image", allow_smaller=True))
    if settings.normalization == "ct":
        low, high = settings.ct_window
        steps.append(ScaleIntensityRanged("image", a_min=low, a_max=high, b_min=-1.0, b_max=1.0, clip=True))
    elif settings.normalization == "zscore":
        steps.append(NormalizeIntensityd("image", nonzero=True, channel_wise=True))
    else:  # an unknown name once z-scored without a word, e.g. from a hand-edited export
        raise ValueError(f"normalization {settings.normalization!r} is not known; choose one of: "
                         f"{', '.join(NORMALIZATIONS)}")
    if settings.binarize and "label" in keys:
        # label >= 0.5, i.e. every non-zero value (the pre-flight checks refuse negative and
        # fractional ones); a map would leave the values it does not list unchanged.
        steps.append(AsDiscreted("label", threshold=0.5))
    elif settings.label_map and "label" in keys:
        original, target = zip(*settings.label_map)
        steps.append(MapLabelValued("label", orig_labels=list(original), target_labels=list(target)))
    steps.append(EnsureTyped("image", dtype="float32", track_meta=True))
    return Compose(steps)


class NiftiReader(NibabelReader):
    """MONAI's ``NibabelReader`` placing the voxels where nibabel's ``img.affine`` does, as the rest of
    the package does (the pre-flight checks, evaluation, the headers predictions are written with).

    MONAI's reader rewrites a header whose sform sizes the voxels otherwise than pixdim: it puts the
    qform in the sform's place (``correct_nifti_header_if_necessary``), even where qform_code is 0 and
    the sform is the header's only placement. An image with a stale qform then trained against its
    label (sform only) misaligned, a Dice of 0 between the two, after the checks had found their grids
    equal; and predict resampled such a scan at pixdim's size, Dice 0.13 against 0.96 (sixty-eighth
    session). The checks and predict warn of such headers (``io.voxel_size_conflict``).
    """

    def read(self, data, **kwargs):
        self.filenames = ensure_tuple(data)  # get_data reads them, as after NibabelReader's own reading
        options = {**self.kwargs, **kwargs}
        images = [nib.load(name, **options) for name in self.filenames]
        return images if len(images) > 1 else images[0]

    def get_data(self, img):
        """MONAI's ``get_data``, with each file one stored behind size-1 axes, (x, y, z, 1, 1), read as its
        (x, y, z) volume (``one_volume``), and the channels of a case (several files) stacked on the first one's
        grid.

        The checks (``data.checks``, predict's reading) read a file so, and require the channels to share one
        grid within ``GRID_ATOL_MM``, a header's rounding. MONAI's loader read a (x, y, z, 1, 1) file alone as
        (1, x, y, z, 1), four spatial axes, on which its reorientation failed (the checks refused such a file
        until the ninety-ninth session). Its stacking requires ``np.allclose``'s 1e-8 where an affine's entry is
        0, and arrays of one layout: a case whose channel's affine differed by 1e-6 in a rotation entry, or one
        of whose channels was stored (x, y, z, 1) beside (x, y, z) ones, passed the checks, then stopped
        training's preprocessing and predict with MONAI's traceback (an audit's probes)."""
        images = [one_volume(image) for image in ensure_tuple(img)]
        if len(images) > 1:
            first = images[0].affine
            images = [type(image)(image.dataobj, first, image.header) for image in images]
        return super().get_data(images if len(images) > 1 else images[0])


class ImagesReadAlready(NiftiReader):
    """``NiftiReader`` serving nibabel images read already, by file name, so that no file is
    decompressed twice. Prediction reads and checks each scan before preprocessing it (``read_nifti``
    verifies the whole gzip stream and keeps the decompressed bytes); reading it again from disk cost
    about 125 ms of a 192 x 192 x 160 scan on 2 CPU cores.

    Args:
        images: file name (as MONAI's loader gives it: ``str(Path(name).expanduser())``) -> image.
    """

    def __init__(self, images: dict[str, nib.spatialimages.SpatialImage]):
        super().__init__()
        self.images = images

    def read(self, data, **kwargs):
        self.filenames = ensure_tuple(data)
        # A KeyError makes the loader try its other readers (from disk)
        served = [self.images[str(name)] for name in self.filenames]
        return served if len(served) > 1 else served[0]


def reading_and_rest(transform: Compose) -> tuple[Compose, Compose]:
    """``preprocess``'s transform as two: reading the files (host), and the rest, which works on the
    tensor wherever it is (prediction can run it on the GPU). They are the same transform objects, so
    the whole ``transform`` still inverts what the two did (MONAI checks each operation's transform)."""
    reading, rest = transform.transforms[:2], transform.transforms[2:]
    if not (isinstance(reading[0], LoadImaged) and isinstance(reading[1], EnsureChannelFirstd)):
        raise ValueError(f"not preprocess's transform: it starts with {[type(t).__name__ for t in reading]}")
    return Compose(reading), Compose(rest)
