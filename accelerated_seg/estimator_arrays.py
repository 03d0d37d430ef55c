"""``predict``'s array input: an array (or tensor) checked as the model's (C, X, Y, Z) channels, its affine
checked as a voxel-to-mm matrix, and the warning for an array given without one to a model trained at another
spacing. Each refusal names the array and what to give instead."""
from __future__ import annotations

import numpy as np

from .config import ConfigError
from .data.errors import DataError
from .data.io import affine_problem
from .data.volume_opening import behind_size_1_axes, vector_layout_said


def checked_channels(x, in_channels: int) -> np.ndarray:
    """An array input to ``predict`` as float32 (C, X, Y, Z), or a DataError that names the array."""
    x = given = _as_numpy(x)
    if isinstance(x, (list, tuple)):  # one array per channel, each read as its channel's file would be
        # a tensor requiring grad among them was numpy's RuntimeError until the hundredth session
        x = [_one_volume_array(_as_numpy(item)) for item in x]
        _refuse_a_vector_layout_in(x)
    try:
        array = np.asarray(x)
    except ValueError:  # numpy's "inhomogeneous shape" traceback, for a list of arrays of other shapes
        shapes = ", ".join(str(tuple(np.shape(item))) for item in given) if isinstance(x, (list, tuple)) else "?"
        raise DataError(f"predict: a list of arrays of different shapes ({shapes}); give one array per channel, "
                        f"all of the scan's shape, or one (C, X, Y, Z) array") from None
    if array.ndim == 0 or (array.dtype == object and not isinstance(x, np.ndarray)):
        # None, a number, bytes, or a list mixing paths, images and arrays: "an array of shape ()" before
        raise DataError(f"predict: x is {type(x).__name__} {_shown(x)}; give the scan as a path (a list of paths "
                        f"for several channels), a nibabel image (a list of them) or an array (X, Y, Z) or "
                        f"(C, X, Y, Z)")
    array = _without_size_1_axes(array)
    if (said := vector_layout_said(array.shape)) and not _a_thin_batch(array.shape, in_channels):
        # its file's advice, as predict and check give it; until the hundredth session "a batch of X: give x[0]"
        raise DataError(f"predict: the array's {said}; drop its fourth axis, x[:, :, :, 0], to give its "
                        f"{array.shape[4]} channels as (X, Y, Z, {array.shape[4]})")
    if array.ndim not in (3, 4):
        raise DataError(f"predict: an array of shape {array.shape}; give (X, Y, Z), or (C, X, Y, Z) with the model's "
                        f"{in_channels} channel(s) first{_what_a_5d_array_may_be(array.shape)}")
    if 0 in array.shape:  # else MONAI's reorientation fails on it, as a traceback
        raise DataError(f"predict: an array of shape {array.shape} holds no voxels; give the whole volume")
    if array.ndim == 4 and array.shape[0] != in_channels and array.shape[-1] == in_channels:
        # (X, Y, Z, C): what get_fdata() gives of a 4D NIfTI file (an (X, Y, Z, 1) volume, an MSD case's
        # channels), which predict takes from its path; the array was refused before the sixty-seventh session
        array = np.moveaxis(array, -1, 0)
    channels = array[None] if array.ndim == 3 else array
    if len(channels) != in_channels:
        raise DataError(f"predict: the array's shape {array.shape} gives {len(channels)} channel(s) (the first axis "
                        f"of a 4D array), but the model expects {in_channels}")
    real = np.issubdtype(channels.dtype, np.number) or channels.dtype == bool
    if not real or np.issubdtype(channels.dtype, np.complexfloating):
        raise DataError(f"predict: the array holds {channels.dtype} values; give real numbers")
    channels = channels.astype(np.float32)
    if not np.isfinite(channels).all():
        bad = int(np.count_nonzero(~np.isfinite(channels)))
        raise DataError(f"predict: the array holds {bad} non-finite value(s) (NaN or Inf); replace them (e.g. with "
                        f"the background intensity) first")
    return channels


def _as_numpy(x):
    """A torch tensor, possibly on a GPU or requiring grad, as a numpy array; anything else as it is."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


def _one_volume_array(item):
    """One channel's array as its (X, Y, Z) volume where it holds that behind size-1 axes, (X, Y, Z, 1) or
    (X, Y, Z, 1, 1), as ``data.volume_opening.one_volume`` reads such a channel's file; any other item as it is.
    A list of them stacked to (C, X, Y, Z, 1, 1) was refused until the hundredth session."""
    shape = getattr(item, "shape", None)
    if shape is None or not hasattr(item, "reshape") or not behind_size_1_axes(tuple(shape), spatial=3):
        return item
    return item.reshape(tuple(shape[:3]))


def _refuse_a_vector_layout_in(channels: list) -> None:
    """A DataError for a list's array in NIfTI's vector layout, (X, Y, Z, 1, C), with its file's advice, as a list of
    such files' paths is told: stacked, it was refused as "an array of shape (N, X, Y, Z, 1, C)" until the
    hundredth session."""
    for index, item in enumerate(channels):
        if said := vector_layout_said(tuple(getattr(item, "shape", ()))):
            raise DataError(f"predict: the list's array {index}: {said}; drop its fourth axis, "
                            f"x[{index}][:, :, :, 0], and give its {item.shape[4]} channels as one (X, Y, Z, "
                            f"{item.shape[4]}) array, not in a list, or one (X, Y, Z) array per channel")


def _without_size_1_axes(array: np.ndarray) -> np.ndarray:
    """``array`` without the size-1 axes behind its volume: (X, Y, Z, 1, 1), get_fdata() of a volume stored so,
    which predict reads from its path or image as (X, Y, Z) (``data.volume_opening.one_volume``; told to give
    x[0], a slice, as a batch until the ninety-ninth session); (C, X, Y, Z, 1, 1), its channels' arrays stacked
    (refused until the hundredth session). A batch's last axes are a volume's, never two of size 1. One size-1
    axis behind four, (C, X, Y, Z, 1), is kept: it may as well be a batch of single slices, (B, C, X, Y, 1)."""
    for spatial in (3, 4):  # the volume's reading first, as its file is read
        if array.ndim >= spatial + 2 and behind_size_1_axes(array.shape, spatial):
            return array.reshape(array.shape[:spatial])
    return array


def _a_thin_batch(shape: tuple[int, ...], in_channels: int) -> bool:
    """Whether a 5D ``shape`` read as NIfTI's vector layout, (X, Y, Z, 1, C), is rather a batch (B, C, X, Y, Z) of
    volumes one voxel thick along Y: its second axis the model's channels, its last not. Such a batch was told it
    held Z values per voxel, to drop its fourth axis, until a review in the hundredth session."""
    return shape[1] == in_channels != shape[4]


def _what_a_5d_array_may_be(shape: tuple[int, ...]) -> str:
    """What to take of a 5D array: (B, C, X, Y, Z), a batch of a MONAI loader's or a network's input, as a
    notebook has it at hand; or, where its last axis has size 1, channels stored behind it."""
    if len(shape) != 5:
        return ""
    behind = ("; or, for channels behind a size-1 axis, (C, X, Y, Z, 1) or (X, Y, Z, C, 1), x[..., 0]"
              if shape[-1] == 1 else "")
    return f" (a batch of {shape[0]}: give one case, x[0], per call{behind})"


def _shown(x) -> str:
    """``x``'s repr, cut to a line."""
    shown = repr(x)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def array_grid_warning(affine, config: dict) -> str | None:
    """A warning for an array given without its affine to a model trained at another spacing than 1 mm.

    The array is read as 1 mm voxels (RAS) and resampled to the model's spacing: a nobrainer user's
    ``get_fdata()`` of a 1.5 mm scan, given so, was segmented as a 1.5x larger head, its Dice 0.61
    against 0.89 from the path, without a word (eighty-fifth session's probe)."""
    from .data.preprocess_settings import preprocess_settings

    spacing = preprocess_settings(config).spacing  # an older export's top-level spacing too
    if affine is not None or not spacing or all(abs(size - 1.0) < 1e-6 for size in spacing):
        return None
    trained = " x ".join(f"{size:g}" for size in spacing)
    return (f"predict: the array has no affine, so its voxels are read as 1 mm (RAS), and the model was trained "
            f"at {trained} mm: it is resampled as a 1 mm scan would be. Give its own with affine= "
            f"(nib.load(path).affine), or predict the nibabel image or the path itself")


def checked_affine(affine) -> np.ndarray:
    """``predict``'s affine as a 4x4 float matrix (1 mm RAS when None), or a ConfigError."""
    if affine is None:
        return np.eye(4)
    matrix = np.asarray(affine, dtype=float)
    if affine_problem(matrix) is not None:
        raise ConfigError(f"predict: affine must be a finite 4x4 voxel-to-mm matrix whose 3x3 part is invertible "
                          f"(voxel sizes and directions), got {matrix.tolist() if matrix.size <= 16 else matrix.shape}")
    return matrix
