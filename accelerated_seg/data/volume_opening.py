"""A case's files opened for the checks: each read to its end and refused, with what to do, where it is no
readable 3D volume (or 4D stack of the channels declared), a label of several volumes of NaN alone said so
first, and a file over the voxel budget refused from its header before it is decompressed.
"""

from __future__ import annotations

import math
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.all_nan import all_nan_said
from accelerated_seg.data.check_report import CheckReport
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.formats.paths import is_gzipped, nifti_stem
from accelerated_seg.data.io import header_error, nifti_without_its_extension, read_nifti
from accelerated_seg.data.voxel_slabs import slabs


def over_budget(case_id: str, files: list[tuple[str, Path]], max_voxels: int, report: CheckReport) -> bool:
    """Report the case's first file with more than ``max_voxels`` voxels, judged from its header alone."""
    for role, path in files:
        try:
            shape = read_nifti(path, verify_stream=False).shape
        except DataError:
            continue  # unreadable: the full read that follows reports it
        # Spatial voxels only: a 4D file is reported as 4D (split it), not as too large.
        voxels = int(np.prod(shape[:3], dtype=np.int64))
        if voxels > max_voxels:
            report.errors.append(
                f"{case_id} ({role}): {path}: shape {tuple(shape)} holds {voxels:,} voxels, over the budget of "
                f"{max_voxels:,} voxels per volume (data.max_voxels); resample it to a coarser spacing or crop it to "
                "the region of interest before training, or raise the budget on a machine with more memory"
            )
            return True
    return False


def open_volume(path: Path, case_id: str, role: str, report: CheckReport, volumes: int = 1,
                 channels_declared_in: str = "the dataset", channels: int = 1) -> nib.Nifti1Image | None:
    """Read and fully verify a file; return it only if it is a readable 3D volume (one behind size-1 axes as
    (x, y, z): ``one_volume``), or a 4D stack of ``volumes`` 3D volumes (channels, as ``channels_declared_in``
    declares them) where more than one is expected; ``channels``: the channels the case's files are given for."""
    context = f"{case_id} ({role})"
    try:
        image = read_nifti(path, verify_stream=True)
    except DataError as err:
        report.errors.append(f"{context}: {err}")
        return None
    if nifti_stem(path) is None:  # passed, read by its bytes; training's loader and nibabel go by the name
        # read gzip-compressed where its name ends in .gz (scan.gz), as nibabel would if it took the name
        report.errors.append(f"{context}: {path}: {nifti_without_its_extension(path, compressed=is_gzipped(path))}")
        return None
    if volumes_in(image.shape) != volumes:
        if role == "label" and (said := _several_volumes_all_nan_said(image)):  # before its volumes' argmax
            report.errors.append(f"{context}: {path}: {said}")
            return None
        said = _not_3d_advice(image.shape, role, volumes, channels_declared_in, channels)
        report.errors.append(f"{context}: {path}: {said}")
        return None
    if 0 in image.shape[:3]:  # passed as "only background" and then failed inside MONAI's Orientationd
        report.errors.append(f"{context}: {path}: shape {tuple(image.shape)} has an axis of length 0: it holds no "
                             "voxel; re-export the volume from its source")
        return None
    if (error := header_error(path, image)) is not None:  # no values to check, or no grid to compare on
        report.errors.append(f"{context}: {error}")
        return None
    return one_volume(image)


def _several_volumes_all_nan_said(label: nib.Nifti1Image) -> str:
    """``all_nan_said`` of a float label of several volumes without a finite voxel (a diverged model's
    probability map), "" of any other: refused as "3 volumes" with their argmax as the remedy until the
    ninety-seventh session, though that argmax is class 0 in every voxel, background alone that would pass.
    Read in slabs, on this error's way alone, and only until a finite voxel."""
    if label.get_data_dtype().kind != "f" or math.prod(label.shape[3:]) <= 1 or 0 in label.shape:
        return ""
    only_nan = True
    for slab in slabs(label):
        if np.isfinite(slab).any():
            return ""
        only_nan = only_nan and bool(np.isnan(slab).all())
    return all_nan_said(label.shape, only_nan, "label")


def _not_3d_advice(shape: tuple[int, ...], role: str, volumes: int = 1,
                   channels_declared_in: str = "the dataset", channels: int = 1) -> str:
    """Say what a non-3D file probably is and how to turn it into what is expected (``volumes`` of them, as
    ``channels_declared_in`` declares: the JSON by its name, "dataset.json" of every one until the ninety-first
    session; ``channels``: the channels a case's several files are given for, one 3D volume each)."""
    if role != "label" and (advice := vector_layout_advice(shape)):
        return advice
    if advice := channel_first_advice(shape, role):
        return advice
    if volumes > 1:  # one file per case for several declared channels
        return one_file_for_channels_said(shape, volumes, f"{channels_declared_in} declares")
    if channels > 1 and role != "label":  # one of a case's several channel files
        return channel_file_of_several_said(shape, channels, f"{channels_declared_in} declares")
    if len(shape) == 4 and role == "label":
        return (
            f"shape {shape} is 4D with {shape[3]} volumes; a label must be one 3D map of class values — "
            "convert a one-hot/multi-channel label with argmax over the last axis"
        )
    if len(shape) == 4:
        return (
            f"shape {shape} is 4D with {shape[3]} volumes (several channels or time points in one file), but "
            "the dataset declares one channel: declare its channels in an MSD dataset.json's 'modality' "
            "(the Decathlon's own 4D files are read so) or Dataset.from_files' channel_names, or split it into "
            "one 3D file per channel (e.g. nibabel.funcs.four_to_three) and list them as channels: a dataset.json "
            "'image' list, nnU-Net _0000/_0001 files, CSV image_0/image_1 columns, or ([channel files], label) "
            "pairs in Python"
        )
    if len(shape) < 3:
        return (
            f"shape {shape} is {len(shape)}D; this package trains on 3D volumes — stack the slices into one 3D volume"
        )
    return f"shape {shape} is not 3D (x, y, z; trailing size-1 axes are allowed); store each 3D volume as its own file"


def channel_file_of_several_said(shape: tuple[int, ...], channels: int, declared: str, order: str = "") -> str:
    """What is wrong with a file that is not one 3D volume among a case's ``channels`` files, one per channel, as
    ``declared`` ("dataset.json declares", "the model takes"; ``order`` as ``one_file_for_channels_said``'s). An
    (x, y, z, 2) file beside a 3D one for 2 channels was told "the dataset declares one channel: declare its channels
    in ... 'modality'" by the check of a dataset.json whose "modality" declared 2, and "the model takes one channel"
    by predict and evaluate of a 2-channel model, until review r94 of the hundred-and-twentieth session."""
    held = volumes_in(shape)
    what = f"is 4D with {held} volumes" if held is not None else f"is {len(shape)}D, no stack of 3D volumes"
    in_order = f", in the order {order}" if order else ""
    return (f"shape {tuple(shape)} {what}, but {declared} {channels} channels and it is one of the {channels} files "
            f"given for them, one 3D volume each: give one 3D file per channel{in_order}, or one file of them all "
            f"as (x, y, z, {channels})")


def one_file_for_channels_said(shape: tuple[int, ...], channels: int, declared: str, order: str = "") -> str:
    """What is wrong with one file given for ``channels`` > 1 channels that does not hold them as (x, y, z,
    ``channels``), as ``declared`` ("dataset.json declares", "the model takes"; ``order``: predict's "channel 0 (T1),
    channel 1 (FLAIR)"). Training's check and predict said it in two ways until the hundred-and-twentieth session
    ("is 4D with 3 volumes, but dataset.json declares 2 channels and lists this one file for them"; "an image of shape
    ... holds 3 3D volume(s), but the model takes 2 channels"; helper h109)."""
    held = volumes_in(shape)
    what = ("holds one 3D volume" if held == 1 else f"is 4D with {held} volumes" if held is not None
            else f"is {len(shape)}D, no stack of 3D volumes")
    in_order = f", in the order {order}" if order else ""
    return (f"shape {tuple(shape)} {what}, but {declared} {channels} channels and this one file is given for them: "
            f"store them in it as (x, y, z, {channels}), or give one 3D file per channel{in_order}")


# The most channels an array laid out (C, x, y, z) is taken to hold: a scan is wider than this along x
MOST_CHANNELS_FIRST = 4


def channel_first_advice(shape: tuple[int, ...], role: str) -> str:
    """What to do with a 4D file whose first axis is a few channels and shorter than the others, (C, x, y, z):
    a PyTorch or MONAI array (EnsureChannelFirst's) saved as it was, a layout no scan has; "" for another shape.
    Such a (1, x, y, z) label was told it held z volumes and to take their argmax over the last axis, and such an
    image to split its z "channels" (hundred-and-fourth session's probe). A last axis of a few is no z: a single
    slice of channels last, (1, x, y, 2), read so too, and array[0] made its two channels two slices that pass."""
    if (len(shape) != 4 or shape[0] > MOST_CHANNELS_FIRST or shape[0] >= min(shape[1:])
            or shape[3] <= MOST_CHANNELS_FIRST):
        return ""
    channels = shape[0]
    said = (f"shape {tuple(shape)} holds {'a channel axis' if channels == 1 else f'{channels} channels'} first, as "
            "PyTorch and MONAI arrays are laid out (C, x, y, z), where a NIfTI file's first three axes are x, y, z")
    if channels == 1:
        return f"{said}: save the 3D array without it (nibabel: nib.Nifti1Image(array[0], affine))"
    if role == "label":
        return f"{said}: save the label map of class values, array.argmax(0) of one-hot channels, as one 3D file"
    return (f"{said}: save the channels last, np.moveaxis(array, 0, -1), as (x, y, z, {channels}) with "
            f"{channels} channels declared, or one 3D file per channel")


def vector_layout_advice(shape: tuple[int, ...]) -> str:
    """What to do with a 5D (x, y, z, 1, C) image, NIfTI's layout of C values per voxel (ITK writes its
    multi-component images so), whose channels this package reads as (x, y, z, C); "" for another shape,
    (x, y, z, 1, 1) among them: one volume (``one_volume``)."""
    if not (said := vector_layout_said(shape)):
        return ""
    return (f"{said}; drop its fourth axis to store them as channels (x, y, z, {shape[4]}) "
            "(nibabel: nib.Nifti1Image(np.asanyarray(img.dataobj)[:, :, :, 0], img.affine, img.header)), or write "
            "one 3D file per channel")


def vector_layout_said(shape: tuple[int, ...]) -> str:
    """That ``shape`` is NIfTI's vector layout (x, y, z, 1, C), C > 1; "" for another shape. The file's advice
    and predict's of an array so shaped (the hundredth session) both begin with it."""
    if len(shape) != 5 or shape[3] != 1 or shape[4] == 1:
        return ""
    return (f"shape {tuple(shape)} is NIfTI's vector layout (x, y, z, 1, {shape[4]}: {shape[4]} values per voxel, "
            "as ITK writes multi-component images)")


def volumes_in(shape: tuple[int, ...]) -> int | None:
    """How many 3D volumes a NIfTI file of ``shape`` holds: 1 for (x, y, z) or one behind size-1 axes, (x, y, z, 1)
    or (x, y, z, 1, 1) (read as (x, y, z): ``one_volume``), C for (x, y, z, C) (channels, as the Decathlon's 4D
    files keep them), None for anything else (a slice, (x, y, z, 1, 2), (x, y, z, 2, 1))."""
    if len(shape) == 3 or behind_size_1_axes(shape):
        return 1
    return int(shape[3]) if len(shape) == 4 else None


def one_volume(image: nib.Nifti1Image) -> nib.Nifti1Image:
    """``image`` as its (x, y, z) volume where it stores that behind size-1 axes, (x, y, z, 1, 1), as some tools
    write it; any other image as it is (never a size-1 axis among x, y, z, nor a 4th axis of several volumes).
    The checks, training's loader (``preprocess.NiftiReader``) and predict each read a file through this, so they
    read it alike, as ITK (SimpleITK, nnU-Net's reader) and evaluate do. Until the ninety-ninth session they
    refused it: MONAI's loader read it alone as (1, x, y, z, 1), four spatial axes, and its reorientation failed.
    Lazily: nibabel's proxy reshapes without reading the voxels, and the header keeps the placement."""
    if len(image.shape) == 3 or not behind_size_1_axes(image.shape):
        return image
    return type(image)(image.dataobj.reshape(image.shape[:3]), image.affine, image.header)


def behind_size_1_axes(shape: tuple[int, ...], spatial: int = 3) -> bool:
    """Whether ``shape`` is its first ``spatial`` axes followed by size-1 axes alone, one or more."""
    return len(shape) > spatial and all(length == 1 for length in shape[spatial:])
