"""Sliding-window inference on whole volumes, and prediction of NIfTI files in their own geometry.

``sliding_window_logits`` is used by validation during training and by prediction, so the numbers
reported during training are the ones a user gets from the exported model. Nothing here imports the
training loop or knows about processes (``inference_distributed`` spreads the same functions over
the processes of an ``accelerate launch``).

The prediction of one case, top-down (``predict_case``):

1. read the channel files and check them: their units, one voxel grid, finite voxels, a resampled volume
   the host can hold (``inference_reading``, which also warns of a doubtful geometry);
2. apply exactly the training preprocessing recorded in the export's ``config.json``;
3. run the network as a Gaussian-blended sliding window, optionally under bf16/fp16 autocast, once
   per mirroring of the input (test-time augmentation), averaging the softmax probabilities (a
   region-based model's sigmoid probabilities, one per region: ``regions.py``);
4. map the probabilities back through the inverse crop, resampling and reorientation (MONAI records
   them on the MetaTensor), then take the argmax on the input's own grid (paint the regions);
5. write the label map (and optionally the probabilities) atomically with the input's affine and
   header, so it overlays the scan in 3D Slicer or ITK-SNAP.

Steps 1-2 and 4-5 are host work, 3 is the network's: predicting many cases (``predict_cases``, in
``inference_cases`` and importable from here too) reads the next case and writes the previous one while the
network runs (``inference_pipeline``). Which files make up which case is ``inference_inputs``'s, and which outputs
may be written ``inference_outputs``'s; the processes of a launch share the cases or the windows in
``inference_distributed``.

    from accelerated_seg.inference import predict_cases
    predict_cases("output/demo/best_model", ["scans/"], "predictions/", tta="all")
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import types
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import nibabel as nib
import numpy as np
import torch
from monai.data import MetaTensor
from monai.inferers import sliding_window_inference
from monai.transforms import Compose, Invertd

from .data.checks import any_above_zero
from .data.errors import DataError
from .data.io import write_nifti
from .data.preprocess import ImagesReadAlready, preprocess, reading_and_rest
from .data.preprocess_settings import PreprocessSettings, class_values, preprocess_settings
from .ensemble import given_folders, load_for_prediction, members_of
from .files import remove_written
from .host_cpu import COMMAND_LINE_FP32, emulated_bf16_warning
from .inference_inputs import (channel_names_compared, channels_config, check_channel_count, check_paths_given,
                               home_expanded)
from .inference_outputs import check_one_case_call, probabilities_path, remove_earlier_prediction
# by another name: inference's own name for it is the home's object, given by __getattr__ below
# (_HOMES_OF_WHAT_IT_IMPORTED), as a script that imported it from here before the split reads it
from .inference_outputs import holding_output_folder as _holding_output_folder
from .inference_reading import (read_channels, refuse_beyond_host_memory, refuse_voxels_far_finer,
                                warn_of_dominant_voxels)
from .model_folders import read_export_json
from .own_warnings import AcceleratedSegWarning
from .postprocess import keep_largest_components, largest_component_classes
from .predict_marks import PREDICTION_DESCRIP, label_map_descrip, written_by_predict
from .predict_names import PREDICT_CASE_NAMES, PREDICT_FILE_NAMES, PredictNames
from .predict_options import PredictOptions, mirror_axes, precision_refusal
from .regions import Regions

# --------------------------------------------------------------------------------------------------
# The sliding window, its precision and where its output is stitched together
# --------------------------------------------------------------------------------------------------

PRECISIONS = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}  # by predict_options.PRECISION_NAMES

# Share of the free GPU memory the stitched probabilities may take before they move to the CPU. The
# rest is for the windows' activations (GBs for a 3D U-Net at 128^3 x 4 windows) and fragmentation.
AGGREGATION_MEMORY_FRACTION = 0.5


def sliding_window_logits(model: Callable[[torch.Tensor], torch.Tensor], image: torch.Tensor,
                          roi_size: Sequence[int], sw_batch_size: int = 4, overlap: float = 0.25, *,
                          sw_device: torch.device | str | None = None,
                          device: torch.device | str | None = None) -> torch.Tensor:
    """Logits for a whole (B, C, X, Y, Z) volume from overlapping patches blended with Gaussian weights.

    Args:
        model: network (or any callable) mapping a batch of windows to logits.
        image: the whole preprocessed volume, (B, C, X, Y, Z).
        roi_size: window size; the training patch size.
        sw_batch_size: windows per forward pass.
        overlap: fraction of a window shared with its neighbour along each axis, in [0, 1).
        sw_device: where the windows run (the model's device); by default ``image``'s device.
        device: where the logits of the whole volume are stitched; by default ``image``'s device.
            ``cpu`` with ``sw_device="cuda"`` keeps only the windows on the GPU.

    Example:
        >>> net = torch.nn.Conv3d(1, 3, 1)
        >>> sliding_window_logits(net, torch.zeros(1, 1, 20, 20, 20), (16, 16, 16)).shape
        torch.Size([1, 3, 20, 20, 20])
    """
    return sliding_window_inference(image, tuple(roi_size), sw_batch_size, model, overlap=overlap, mode="gaussian",
                                    sw_device=sw_device, device=device)


def window_batches(spatial_shape: Sequence[int], roi_size: Sequence[int], sw_batch_size: int, overlap: float) -> int:
    """How many times ``sliding_window_logits`` calls the network for one volume of this shape.

    Sharded strategies (FSDP, ZeRO-3) gather parameters inside every forward pass, so every rank must
    call the network equally often; validation uses this to pad the ranks with fewer windows.
    Computed with the same MONAI functions the sliding window uses (the volume is first padded up to
    the window size).
    """
    from monai.data.utils import dense_patch_slices
    from monai.inferers.utils import _get_scan_interval

    padded = tuple(max(s, r) for s, r in zip(spatial_shape, roi_size))
    interval = _get_scan_interval(padded, tuple(roi_size), len(padded), (overlap,) * len(padded))
    return math.ceil(len(dense_patch_slices(padded, tuple(roi_size), interval)) / sw_batch_size)


def check_precision(precision: str, device: torch.device, fp32_setting: str = COMMAND_LINE_FP32) -> None:
    """Refuse a precision the device cannot run, before any file is read.

    Raises:
        ValueError: unknown name, or fp16 on a CPU (its CPU kernels are slow or missing; bf16 is the
            CPU's reduced precision).

    Warns (UserWarning) of bf16 on a CPU without bf16 instructions, where it is emulated and slower than
    fp32 (``host_cpu.emulated_bf16_warning``), naming ``fp32_setting``: the caller's way to fp32 (the
    estimator's ``predict(..., precision='fp32')``, told the command line's until the ninety-second session).
    """
    if error := precision_refusal(precision, device):
        raise ValueError(error)
    if warning := emulated_bf16_warning(device.type, precision, fp32=fp32_setting):
        warnings.warn(warning, AcceleratedSegWarning, stacklevel=3)  # slow, not wrong


def autocast_windows(model: torch.nn.Module, precision: str, device: torch.device) -> Callable:
    """The model as a window predictor under autocast, returning float32 logits.

    The windows run in reduced precision, but the sliding window stitches in the dtype of what the
    predictor returns: returning float32 keeps the Gaussian blending and the softmax exact.
    """
    dtype = PRECISIONS[precision]

    def predict(windows: torch.Tensor) -> torch.Tensor:
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            return model(windows).float()

    return predict


def aggregation_bytes(spatial_shape: Sequence[int], num_classes: int, in_channels: int) -> int:
    """Bytes of the whole-volume float32 buffers of one prediction (preprocessed grid).

    The input and its mirrored copy, MONAI's stitched output and weight map, this pass's softmax and
    the running test-time-augmentation sum.
    """
    return 4 * int(np.prod(spatial_shape)) * (2 * in_channels + 3 * num_classes + 1)


def aggregation_device(compute_device: torch.device, needed_bytes: int, aggregate_on_cpu: bool | None,
                       free_bytes: int | None = None) -> torch.device:
    """Where the whole-volume buffers live: the GPU when they fit comfortably, else the CPU.

    Args:
        compute_device: where the windows run.
        needed_bytes: ``aggregation_bytes`` of the case.
        aggregate_on_cpu: True/False force the choice; None decides from the free GPU memory.
        free_bytes: free GPU memory; queried from CUDA when None (a parameter so it can be tested).

    Example:
        >>> aggregation_device(torch.device("cuda"), 10 * 2**30, None, free_bytes=8 * 2**30)
        device(type='cpu')
    """
    if compute_device.type != "cuda" or aggregate_on_cpu is False:
        return compute_device
    if aggregate_on_cpu:
        return torch.device("cpu")
    if free_bytes is None:
        free_bytes = torch.cuda.mem_get_info(compute_device)[0]
    return torch.device("cpu") if needed_bytes > AGGREGATION_MEMORY_FRACTION * free_bytes else compute_device


def default_device(device: str | torch.device | None) -> torch.device:
    """The given device, or CUDA when available, else the CPU.

    Raises:
        ValueError: a name torch does not know, or a CUDA device this machine does not have (asked
            for, torch would fail only at the first copy, with "Torch not compiled with CUDA enabled").
    """
    try:
        chosen = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    except RuntimeError as error:
        raise ValueError(f"device {device!r} is not a device name torch knows ({error}); use cpu or cuda") from None
    if chosen.type == "cuda" and (not torch.cuda.is_available() or (chosen.index or 0) >= torch.cuda.device_count()):
        raise ValueError(f"device {device!r}: this machine has {torch.cuda.device_count()} CUDA GPU(s) visible; "
                         "use cpu (--device cpu, device=\"cpu\" in Python), or give no device to take the GPU when "
                         "there is one")
    if chosen.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device {device!r}: this machine has no Apple GPU (MPS) that torch can use; use cpu")
    # meta holds no values, and the other types need backends this package was never run on; mps is let
    # through for Apple machines (torch runs MONAI's sliding window there) but is not tested here either.
    if chosen.type not in ("cpu", "cuda", "mps"):
        raise ValueError(f"device {device!r}: prediction runs on cpu, cuda or mps, not {chosen.type}")
    return chosen


# --------------------------------------------------------------------------------------------------
# From the export's classes to the label map written (its preprocessing settings, and the value each
# class is written as, are read in data/preprocess_settings.py, which imports neither torch nor MONAI)
# --------------------------------------------------------------------------------------------------


def output_channels(config: dict) -> int:
    """The network's output channels an export describes: one per region, or one per class."""
    return len(config["regions"]["names"]) if config.get("regions") is not None else int(config["num_classes"])


def export_regions(config: dict, where: str | Path = "the model's config.json") -> Regions | None:
    """An export's regions over class indices, which a painted map holds until ``write_case`` writes each
    class's value (``class_values``); None for a model of exclusive classes.

    Raises:
        DataError: a region value that is not one of the classes' values (a hand-edited config.json;
            ``exported_model.read_export_config`` asks here, so a model is refused when it is loaded).
    """
    if config.get("regions") is None:
        return None
    values = class_values(preprocess_settings(config), int(config["num_classes"]))
    class_of_value = {int(value): index for index, value in enumerate(values)}
    regions = Regions.from_dict(config["regions"])
    if unknown := sorted({v for region in regions.values for v in region} - set(class_of_value)):
        raise DataError(f"{where} declares regions of label value(s) {unknown}, which none of its "
                        f"{len(values)} classes {values.tolist()} is; use the config.json written with the weights")
    return regions.in_classes(class_of_value)


def class_map(probabilities: torch.Tensor, dim: int = 0) -> torch.Tensor:
    """The index of the most probable class along ``dim``: the first on a tie, as ``argmax``.

    ``max(dim).indices``, not ``argmax(dim)``: on the CPU (torch 2.13, 2 threads) argmax over the class
    axis took 425 ms for 3 x 192 x 192 x 160 probabilities, and max 50 ms, with the same result
    (benchmarks/predict_tail.py). On a GPU machine this step runs on the host, after the hand-over.
    """
    return probabilities.max(dim).indices


def kept_whole(config: dict, keep_largest: bool | Sequence[int] | None) -> tuple[int, ...]:
    """The model's class indices that ``keep_largest`` (True, or label values) keeps to their largest
    connected component (``postprocess.largest_component_classes``)."""
    return largest_component_classes(keep_largest, class_values(preprocess_settings(config), config["num_classes"]))


def label_dtype(labels: np.ndarray) -> type:
    """The smallest of the integer types every NIfTI tool reads (FSL has no uint16) that holds each
    written value: uint8, int16 for a parcellation's values (FreeSurfer's 2035), int32 beyond (before the
    thirty-first session int16 was used for every value from 256 up, and 40000 was written as -25536)."""
    largest = int(labels.max(initial=0))
    return next(dtype for dtype in (np.uint8, np.int16, np.int32) if largest <= np.iinfo(dtype).max)


# --------------------------------------------------------------------------------------------------
# Prediction
# --------------------------------------------------------------------------------------------------


@torch.no_grad()
def mirrored_probabilities(model: Callable[[torch.Tensor], torch.Tensor], image: torch.Tensor,
                           roi_size: Sequence[int], options: PredictOptions, device: torch.device,
                           stitch_device: torch.device | None = None, *,
                           window_logits: Callable[..., torch.Tensor] | None = None,
                           to_host: bool = True, sigmoid: bool = False) -> torch.Tensor:
    """Softmax probabilities of a preprocessed (1, C, X, Y, Z) volume, averaged over the mirrorings
    (and over the members of an ensemble, each member's stitched logits made probabilities first);
    with ``sigmoid``, a region-based model's, one sigmoid per output.

    Args:
        model: the network, or a ``ModelEnsemble``, on ``device``.
        image: the preprocessed volume (any device).
        roi_size: window size (the training patch size).
        options: sliding window, TTA and precision settings.
        device: where the windows run.
        stitch_device: where the whole-volume buffers live (``aggregation_device``); ``device`` if None.
        window_logits: replaces ``sliding_window_logits`` (same arguments), e.g. one that runs only
            this process's share of the windows and sums the shares of all processes.
        to_host: hand the probabilities to the CPU; False leaves them on ``stitch_device``.

    Returns:
        (1, classes, X, Y, Z) float32 on the CPU (on ``stitch_device`` when ``to_host`` is False).
    """
    stitch_device = stitch_device or device
    predictors = [autocast_windows(member, options.precision, device) for member in members_of(model)]
    image = image.to(stitch_device)  # the whole volume lives where it is stitched; windows move to `device`
    window_logits = window_logits or sliding_window_logits
    flips = mirror_axes(options.tta)
    total = None
    for axes in flips:
        flipped = image.flip(axes) if axes else image
        for predictor in predictors:
            logits = window_logits(predictor, flipped, roi_size, options.sw_batch_size, options.overlap,
                                   sw_device=device, device=stitch_device)
            probs = torch.sigmoid(logits.float()) if sigmoid else torch.softmax(logits.float(), dim=1)
            del logits  # one volume of logits at a time, not two
            probs = probs.flip(axes) if axes else probs  # back to the input's orientation before averaging
            total = probs if total is None else total.add_(probs)
    total /= len(flips) * len(predictors)
    return total.cpu() if to_host else total


@dataclass(frozen=True)
class PreparedCase:
    """A case read, checked and preprocessed: everything of it the network and the writing need.

    Args:
        reference: the first channel's image (its shape, affine and header are the output's).
        image: the preprocessed volume (C, X, Y, Z), carrying the operations that made it; or, while
            ``pending`` is set, the volume as read.
        transform: the preprocessing, to invert onto the input's grid.
        settings: the preprocessing settings (for the label value of each class).
        regions: a region-based model's regions over class indices (``export_regions``), painted into
            the class map; None for exclusive classes.
        files: the channel files, for messages.
        pending: the preprocessing still to run, on the network's device (``prepare_case(...,
            read_only=True)``, ``preprocessed_on``); None once it has run.
    """

    reference: nib.spatialimages.SpatialImage
    image: MetaTensor
    transform: Compose
    settings: PreprocessSettings
    regions: Regions | None = None
    files: tuple[Path, ...] = ()
    pending: Compose | None = None


def prepare_case(config: dict, channels: Sequence[str | Path], *, read_only: bool = False) -> PreparedCase:
    """Read one case's channel files, check them, and apply the training preprocessing.

    Args:
        read_only: read and check the files, and leave the rest of the preprocessing (reorientation,
            resampling, crop, normalisation) to ``preprocessed_on``, which runs it on a GPU.

    Raises:
        DataError: the files cannot be used (unreadable, grids that differ, non-finite voxels, ...).
    """
    paths = [Path(p) for p in channels]
    check_channel_count(paths, config, PREDICT_CASE_NAMES)  # predict_file's callers are told before the model loads
    settings = preprocess_settings(config)
    images = read_channels(paths, config, settings.spacing)  # every channel's unit judged there
    # The first channel's grid is every channel's (read_channels), so its voxel sizes and shape are theirs: judged
    # once, as training judges a case by its first image
    refuse_voxels_far_finer(config, paths[0], images[0], settings.spacing)
    refuse_beyond_host_memory(config, paths[0], images[0], settings.spacing)
    if settings.normalization == "zscore":
        warn_of_dominant_voxels(paths, images)
    if settings.crop_foreground and not any(any_above_zero(image) for image in images):
        # cropped to nothing, the case came back as an all-background map, exit 0, until the
        # seventy-second session; training's pre-flight check refuses such a case the same way
        raise DataError(f"{', '.join(map(str, paths))}: no image voxel is above 0, and this model's preprocessing "
                        f"(its training's data.crop_foreground, on for zscore) keeps only the box of voxels above 0: "
                        f"nothing would be segmented. If the scan is blank, leave it out; if its intensities were "
                        f"shifted below 0 (another offset, normalised before), give it as the training scans were "
                        f"stored")
    # MONAI's loader takes the images just read and checked rather than decompressing each file again
    served = ImagesReadAlready({str(path.expanduser()): image for path, image in zip(paths, images)})
    transform = preprocess(keys=["image"], settings=settings, reader=served)
    reading, rest = reading_and_rest(transform)
    image = reading({"image": [str(p) for p in paths] if len(paths) > 1 else str(paths[0])})["image"]
    served.images.clear()  # the transform is kept to invert the case; the files' bytes need not be
    prepared = PreparedCase(images[0], image, transform, settings, export_regions(config), tuple(paths), pending=rest)
    return prepared if read_only else preprocessed_on(prepared, torch.device("cpu"))


def preprocessed_on(prepared: PreparedCase, device: torch.device) -> PreparedCase:
    """``prepared`` with the preprocessing it left pending run on ``device`` (the image stays there)."""
    if prepared.pending is None:
        return prepared
    image = prepared.pending({"image": prepared.image.to(device)})["image"]
    return _checked_finite(replace(prepared, image=image, pending=None))


def _checked_finite(prepared: PreparedCase) -> PreparedCase:
    if not torch.isfinite(prepared.image.as_tensor()).all():  # finite on disk (checked), so preprocessing overflowed
        raise DataError(f"{', '.join(map(str, prepared.files))}: the image became non-finite in preprocessing "
                        f"(intensities near float32's limit?); rescale it before predicting")
    return prepared


def resampled_voxels(prepared: PreparedCase) -> int:
    """Voxels of a case resampled to the training spacing, before the foreground crop (from its header)."""
    read_voxels = int(np.prod(prepared.reference.shape[:3]))
    if prepared.settings.spacing is None:
        return read_voxels
    zooms = nib.affines.voxel_sizes(prepared.reference.affine)  # as the loader places the voxels
    scale = np.prod(zooms, dtype=np.float64) / np.prod(prepared.settings.spacing, dtype=np.float64)
    return int(read_voxels * scale) + 1


def resampling_bytes(channels: int, source_voxels: int, target_voxels: int) -> int:
    """Peak bytes of MONAI's resampling (``Spacingd`` and its inverse) of ``channels`` float32 channels,
    which our preprocessing runs in float32 (``data.preprocess``): a copy of the input, a sampling grid
    of 4 homogeneous coordinates per target voxel and the output."""
    return 4 * channels * source_voxels + (16 + 4 * channels) * target_voxels


def preprocess_bytes(prepared: PreparedCase) -> int:
    """Bytes the preprocessing of a read case allocates at its peak (an estimate from above): the float32
    volume as read, the resampling, and four float32 copies of the result (reoriented, cropped,
    normalised, typed).

    Measured on the CPU (``benchmarks/transform_memory.py``): 342 MiB for a 192 x 192 x 160 scan
    resampled from 0.8 x 0.8 x 2.5 mm to 1 mm, where this says 369 MiB; 191 MiB at 1 mm (MONAI
    skips the resampling), where this says 248 MiB."""
    channels, read_voxels = prepared.image.shape[0], int(np.prod(prepared.image.shape[1:]))
    target = resampled_voxels(prepared)
    resampling = resampling_bytes(channels, read_voxels, target) if prepared.settings.spacing is not None else 0
    return 4 * channels * read_voxels + resampling + 16 * channels * target


def inverse_bytes(prepared: PreparedCase, num_classes: int) -> int:
    """Bytes mapping a case's probabilities back onto its input's grid allocates at its peak (an estimate
    from above): the padding that undoes the crop, the resampling, and our clamped copy and class map.

    Measured on the CPU (``benchmarks/transform_memory.py``): 158 MiB for 3 classes of the resampled
    scan of ``preprocess_bytes``, where this says 463 MiB; 29 MiB at 1 mm, where this says 383 MiB."""
    input_voxels, target = int(np.prod(prepared.reference.shape[:3])), resampled_voxels(prepared)
    resampling = resampling_bytes(num_classes, target, input_voxels) if prepared.settings.spacing is not None else 0
    return 4 * num_classes * target + resampling + 4 * (num_classes + 1) * input_voxels


def case_probabilities(model: Callable[[torch.Tensor], torch.Tensor], config: dict, prepared: PreparedCase, *,
                       device: torch.device, options: PredictOptions = PredictOptions(),
                       window_logits: Callable[..., torch.Tensor] | None = None, to_host: bool = True) -> torch.Tensor:
    """The network's part of one case: (classes, X, Y, Z) probabilities on the preprocessed grid, on the CPU
    (where they were stitched when ``to_host`` is False: ``aggregation_device``).

    Args:
        model, device, options: as in ``predict_case``.
        window_logits: replaces ``sliding_window_logits`` (see ``mirrored_probabilities``).
    """
    image = prepared.image
    needed = aggregation_bytes(image.shape[1:], output_channels(config), config["in_channels"])
    stitch_device = aggregation_device(device, needed, options.aggregate_on_cpu)
    return mirrored_probabilities(model, image.as_tensor()[None], config["patch_size"], options, device,
                                  stitch_device, window_logits=window_logits, to_host=to_host,
                                  sigmoid=prepared.regions is not None)[0]


@dataclass(frozen=True)
class RestoredCase:
    """A case's prediction on its input's grid, on the host: what ``write_case`` writes.

    Args:
        classes: (X, Y, Z) index of the most probable class of each voxel, or of the class each voxel's
            regions paint (from a GPU in the smallest integer type that holds it: uint8 up to 256 classes).
        num_classes: classes of the model, background included.
        probabilities: (classes or regions, X, Y, Z) float32, or None when they are not written.
    """

    classes: torch.Tensor
    num_classes: int
    probabilities: torch.Tensor | None = None


def restore_case(prepared: PreparedCase, probabilities: torch.Tensor, keep_probabilities: bool) -> RestoredCase:
    """Map a case's (classes, X, Y, Z) probabilities back onto its input's grid and take the class map,
    on the device the probabilities are on; then hand the result to the host. From a GPU that is one
    byte per voxel (uint8 class indices), where the probabilities are four per class and voxel."""
    reference, regions = prepared.reference, prepared.regions
    restored = _to_input_grid(probabilities, prepared.image, prepared.transform, exclusive=regions is None)
    if restored.shape[1:] != reference.shape[:3]:
        raise RuntimeError(f"internal error: prediction shape {tuple(restored.shape[1:])} != input shape "
                           f"{reference.shape[:3]} for {reference.get_filename()}")
    if regions is not None:  # painted in the smallest type already; the classes are those the regions unite
        return RestoredCase(regions.paint(restored).cpu(), max(regions.order) + 1,
                            restored.cpu() if keep_probabilities else None)
    classes = class_map(restored)
    if classes.device.type != "cpu":  # the smallest index type before the copy (on the CPU a pass for nothing)
        classes = classes.to(next(t for t in (torch.uint8, torch.int16, torch.int32)
                                  if restored.shape[0] - 1 <= torch.iinfo(t).max))
    return RestoredCase(classes.cpu(), restored.shape[0], restored.cpu() if keep_probabilities else None)


def runs_transforms_on_device(device: torch.device, options: PredictOptions) -> bool:
    """Whether a case's transforms (the preprocessing after reading, the inverse, the class map) run in
    the network's stage on ``device``: asked for (``transforms_on_device``) and a CUDA GPU."""
    return options.transforms_on_device and device.type == "cuda"


def transforms_device(device: torch.device, needed_bytes: int, options: PredictOptions,
                      free_bytes: int | None = None) -> torch.device:
    """Where a transform needing ``needed_bytes`` runs: on ``device`` where ``runs_transforms_on_device``
    and it fits as the stitching must (``aggregation_device``; ``free_bytes`` as there), else the CPU."""
    if not runs_transforms_on_device(device, options):
        return torch.device("cpu")
    return aggregation_device(device, needed_bytes, None, free_bytes)


def case_prediction(model: Callable[[torch.Tensor], torch.Tensor], config: dict, prepared: PreparedCase, *,
                    device: str | torch.device, options: PredictOptions = PredictOptions(),
                    window_logits: Callable[..., torch.Tensor] | None = None,
                    keep_probabilities: bool = False, restore: bool = True) -> torch.Tensor | RestoredCase:
    """The network's stage of one case, handed to ``write_case``: its probabilities on the preprocessed
    grid, on the host. Or, with ``options.transforms_on_device`` on a GPU, the whole case on the GPU:
    the preprocessing ``prepare_case(..., read_only=True)`` left pending, the network, and the inverse
    onto the input's grid with the class map (``restore_case``; with ``keep_probabilities`` the
    probabilities too), so the host only reads and writes files. A transform that would not fit in
    the GPU's memory runs on the host instead, here.

    Args:
        model, device, options: as in ``predict_case``; window_logits: as in ``case_probabilities``.
        restore: False returns the probabilities wherever they are: the network's part only (a helper
            process of a prediction whose windows are shared).
    """
    device = default_device(device)  # a name, as predict_file takes it
    if prepared.pending is not None:
        prepared = preprocessed_on(prepared, transforms_device(device, preprocess_bytes(prepared), options))
    on_device = runs_transforms_on_device(device, options)
    probabilities = case_probabilities(model, config, prepared, device=device, options=options,
                                       window_logits=window_logits, to_host=not on_device)
    if not (on_device and restore):
        return probabilities
    needed = inverse_bytes(prepared, probabilities.shape[0])
    return restore_case(prepared, probabilities.to(transforms_device(probabilities.device, needed, options)),
                        keep_probabilities)


def write_case(prepared: PreparedCase, prediction: torch.Tensor | RestoredCase, output: str | Path,
               probabilities_output: str | Path | None = None, keep_largest: Sequence[int] = (),
               made_by: bytes = b"") -> Path:
    """Write a case's label map (and its probabilities when asked) with the input's affine and header;
    returns ``output``. ``prediction`` is ``case_prediction``'s: probabilities on the preprocessed
    grid are mapped back onto the input's grid here first (``restore_case``). ``keep_largest``: class
    indices whose voxels outside the class's largest connected component become background in the
    label map (``postprocess``; the probabilities stay the network's). ``made_by``: the ``case_key``
    both headers record, for ``--continue``."""
    if isinstance(prediction, torch.Tensor):
        prediction = restore_case(prepared, prediction, keep_probabilities=probabilities_output is not None)
    if probabilities_output is not None and prediction.probabilities is None:
        raise RuntimeError("internal error: the probabilities to write were not kept (case_prediction's "
                           "keep_probabilities)")
    reference = prepared.reference
    values = class_values(prepared.settings, prediction.num_classes)
    # The lookup in the written type: int64 values made a 47 MB array for a 192x192x160 scan, 8x uint8.
    classes = prediction.classes.numpy()
    if keep_largest:
        classes = keep_largest_components(classes, keep_largest)
    labels = values.astype(label_dtype(values))[classes]
    header = _output_header(reference.header, made_by)
    header["descrip"] = label_map_descrip(labels)  # what the rerun that would replace it compares with
    write_nifti(output, labels, reference.affine, header=header)
    if probabilities_output is not None:
        # A view: astype's copy of float32 probabilities held one more volume of them (47 MiB for 3 classes at
        # 160³) beside the copy nibabel's write makes (eighty-third session's review).
        write_nifti(probabilities_output,
                    np.moveaxis(prediction.probabilities.numpy(), 0, -1).astype(np.float32, copy=False),
                    reference.affine, header=_output_header(reference.header, made_by))
    else:  # an earlier run's beside the new label map would no longer be its probabilities
        _remove_earlier_probabilities(Path(output))
    return Path(output)


def _remove_earlier_probabilities(output: Path) -> None:
    """Delete ``<case>_probs.nii.gz`` that an earlier run of predict wrote beside ``output``: this run
    wrote the label map without them, and the earlier run's argmax no longer was the label map
    (seventieth session). A file of that name that predict did not write stays. os.path's test: Path.is_file raised
    "File name too long" where the map's name (250-255 bytes) leaves no room for ``_probs``, after the map was
    written, until the hundred-and-twenty-second session (benchmarks/results/output_locks_left_2026-12-07)."""
    stale = probabilities_path(output)
    if os.path.isfile(stale) and written_by_predict(stale) is None:
        remove_written(stale)  # a link's target too


@torch.no_grad()
def predict_case(model: torch.nn.Module, config: dict, channels: Sequence[str | Path], output: str | Path, *,
                 device: str | torch.device, options: PredictOptions = PredictOptions(),
                 probabilities_output: str | Path | None = None, keep_largest: Sequence[int] = ()) -> Path:
    """Segment one case with a loaded model and write its label map in the input's geometry.

    The three steps, one after the other: ``prepare_case`` (host), ``case_prediction`` (the
    network), ``write_case`` (host). ``predict_cases`` overlaps them across neighbouring cases.

    Args:
        model: the exported network, on ``device`` (``load_exported``).
        config: the export's ``config.json``.
        channels: one image file per channel, in the model's channel order.
        output: label map to write (.nii.gz); written atomically.
        device: where the windows run: a ``torch.device`` or its name (``"cpu"``, ``"cuda:0"``).
        options: sliding window, TTA, precision, aggregation.
        probabilities_output: also write the class probabilities here: float32 (X, Y, Z, classes)
            with the input's affine and header.
        keep_largest: class indices kept to their largest connected component (``write_case``).

    Returns:
        ``output``.
    """
    device = default_device(device)  # "cpu" as predict_file takes it: an AttributeError on str.type before
    check_one_case_call([Path(p) for p in channels], output, probabilities_output, config, PREDICT_CASE_NAMES)
    prepared = prepare_case(config, channels, read_only=runs_transforms_on_device(device, options))
    prediction = case_prediction(model, config, prepared, device=device, options=options,
                                 keep_probabilities=probabilities_output is not None)
    return write_case(prepared, prediction, output, probabilities_output, keep_largest)


def _output_header(scan_header, made_by: bytes = b""):
    """The scan's header (geometry, units, qform/sform codes) without what describes the scan's
    intensities: a viewer that honours ``cal_min``/``cal_max`` (FSLeyes) would show labels 0..4
    under a scan's 0..1000 display range as black; with ``made_by`` (``case_key``) in aux_file."""
    header = scan_header.copy()
    header["cal_min"], header["cal_max"] = 0, 0
    header.set_intent("none")
    header["descrip"] = PREDICTION_DESCRIP
    header["aux_file"] = made_by  # the scan's own would say nothing of this file
    return header


def _to_input_grid(probs: torch.Tensor, image: MetaTensor, transform: Compose, exclusive: bool = True) -> torch.Tensor:
    """Probabilities on the preprocessed grid -> on the input's grid, (classes, X, Y, Z).

    The spatial transforms are inverted on probabilities (linear interpolation), not on labels, so
    the argmax is taken at the input's resolution. Voxels the network never saw (cropped away, or
    outside the resampled grid) come back with no probability at all; they are background: for
    ``exclusive`` classes the background class takes the probability missing, a region-based
    model's regions stay at 0 there.
    """
    recorded = MetaTensor(probs, meta=image.meta, applied_operations=image.applied_operations)
    restored = Invertd("pred", transform=transform, orig_keys="image", nearest_interp=False)(
        {"image": image, "pred": recorded})["pred"]
    restored = torch.as_tensor(restored).float().clamp_(0, 1)
    if exclusive:
        restored[0] += (1 - restored.sum(0)).clamp_(min=0)
    return restored


def predict_file(model_dir: str | Path | Sequence[str | Path], inputs: str | Path | Sequence[str | Path],
                 output: str | Path,
                 device: str | torch.device | None = None, sw_batch_size: int = 4, overlap: float = 0.5, *,
                 tta: str = "none", precision: str = "fp32", aggregate_on_cpu: bool | None = None,
                 transforms_on_device: bool = True, probabilities_output: str | Path | None = None,
                 keep_largest: bool | Sequence[int] = False, fp32_setting: str = COMMAND_LINE_FP32,
                 names: PredictNames = PREDICT_FILE_NAMES, lock_outputs: bool = True) -> Path:
    """Segment one case and write a label map with the input's shape, affine and header geometry.

    What cannot work is refused before the model loads, naming the argument (``check_one_case_call``): an
    array or image where a path is taken (``Segmentation.predict`` takes those), a folder as ``output``,
    several files for a one-channel model (several cases: ``predict_cases``), an output over an input, a
    ``probabilities_output`` that is a folder, no NIfTI name or ``output``'s own path (``check_probabilities_output``).

    Args:
        model_dir: folder exported by training (config.json + model.safetensors); several folders predict
            as an ensemble, the mean of their probabilities (``ensemble.load_for_prediction``).
        inputs: the image, or one image per channel in the model's channel order.
        output: path of the label map to write (.nii.gz).
        device: torch device; CUDA when available by default.
        sw_batch_size, overlap, tta, precision, aggregate_on_cpu, transforms_on_device: see ``PredictOptions``.
        probabilities_output: also write the probabilities here (see ``predict_case``).
        keep_largest: True keeps every foreground class to its largest connected component in the label
            map; label values (as the map holds them) keep those classes only (``postprocess``).
        fp32_setting: how the caller asks for fp32, which the emulated-bf16 warning names (``check_precision``).
        names: how the caller names these arguments in a refusal: this function's by default, the command's
            flags for ``accelerated-seg predict --input`` (``PredictNames()``).
        lock_outputs: lock ``output`` and ``probabilities_output`` against another live predict writing them (as
            ``predict`` does); False where they lie in a temporary folder of the caller's own, which no other run
            can name (``Segmentation.predict``'s: locked, it warned of an unlockable ``--output`` nobody gave).

    Raises:
        DataError: the arguments (before the model loads), or the case's files (after); files in a dataset's images
            folder whose dataset.json (one folder up) gives the model's channels in another order, each file its
            dataset's channel of its number (``<case>_0001``: channel 1), before anything is read or written (one
            naming them otherwise is warned of), as ``predict_cases`` refuses them
            (``inference_inputs.channel_names_compared``).
        ConfigError: another live predict writes ``output`` or ``probabilities_output`` (``holding_output_folder``).

    Example:
        >>> predict_file("output/demo/best_model", "scan.nii.gz", "scan_seg.nii.gz", tta="all")  # doctest: +SKIP
    """
    options = PredictOptions(sw_batch_size, overlap, tta, precision, aggregate_on_cpu, transforms_on_device)
    device = default_device(device)
    check_precision(options.precision, device, fp32_setting)
    check_paths_given([(names.model, model_dir), (names.inputs, inputs), (names.output, output),
                       (names.probabilities, probabilities_output)], names)
    channels = [home_expanded(p) for p in ([inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs))]
    # Refused outputs first (one over its input, say): only the case's own failure removes anything. Before the
    # model loads: until the ninety-fifth session output="p2d/" loaded it, then said "p2d: a label map is written
    # as NIfTI", and two cases' files for a one-channel model were counted only as they were read.
    early = config_without_loading(model_dir)
    check_one_case_call(channels, _home_expanded_as_given(output), _home_expanded_as_given(probabilities_output),
                        early, names)
    # A dataset.json's channel order against the model's, as predict_cases compares it (before the model loads, or,
    # where config.json alone says nothing sure of the channels, after it): until the hundred-and-twenty-fourth
    # session (helper h131) imagesTs/p_0000, p_0001 of a dataset ordering the model's channels otherwise were fed
    # as given without a word, here and in Segmentation.predict of paths
    channel_names_compared(channels, early, names, one_case=True)
    output, probabilities_output = home_expanded(output), home_expanded(probabilities_output)
    model, config = load_for_prediction(model_dir)
    if early is None:
        channel_names_compared(channels, config, names, one_case=True)
    keep = kept_whole(config, keep_largest)
    # Each file locked as predict_cases locks one label map: until the hundred-and-twenty-second session this form
    # (predict --input) took no lock, and a second predict writing its map or probabilities went on, unsaid
    with (_holding_output_folder(output, [output, probabilities_output]) if lock_outputs else contextlib.nullcontext()):
        try:
            return predict_case(model.to(device), config, channels, output, device=device, options=options,
                                probabilities_output=probabilities_output, keep_largest=keep)
        except DataError as error:  # the case's voxels or header, as predict_cases removes there
            if earlier := remove_earlier_prediction(output, probabilities_output):
                raise DataError(f"{error}{earlier}") from error
            raise


def _home_expanded_as_given(path: str | Path | None) -> str | Path | None:
    """``home_expanded``, a str keeping its trailing "/" (``check_one_case_output`` and ``check_probabilities_output``
    tell a folder by it)."""
    return os.path.expanduser(path) if isinstance(path, str) else home_expanded(path)


def config_without_loading(model_dir: str | Path | Sequence[str | Path]) -> dict | None:
    """The models' config.json as far as their channels go (``channels_config``), read without loading the
    networks, so that the arguments are refused first; None where it cannot be read (loading says why)."""
    try:
        return channels_config([read_export_json(folder) for folder in given_folders(model_dir)])
    except (OSError, ValueError, IndexError):  # DataError is a ValueError; IndexError: no folder at all
        return None




# --------------------------------------------------------------------------------------------------
# Names that moved to inference_cases (the many-case driver), still importable from here
# --------------------------------------------------------------------------------------------------

# inference_cases imports this module, so this one cannot import it back at its top, nor at its bottom (imported
# first, inference_cases is half made when this one would take the names from it). They stay importable from here,
# the path docs/inference.md, the examples and the estimator's refusals name, each looked up there on use (not kept
# here: a stand-in put there, a test's, is what this name gives too).
MOVED_TO_INFERENCE_CASES = frozenset({"CaseJob", "PredictInterrupted", "could_not_be_segmented", "left_to_predict",
                                      "predict_cases", "prediction_settings", "segment_cases"})

# What this module imported for code that has since left it (to inference_cases and inference_reading in the
# hundred-and-twelfth session's split, or before), and so gave to ``from accelerated_seg.inference import X``:
# since that split ``collect_cases`` and the like raised ImportError (but for the hundred-and-thirteenth session's
# 22 minutes of them in __all__). The package's own names only: the standard library's (nullcontext, closing,
# AbstractContextManager, Iterator, itertools) are no promise of this module's, import them from contextlib, typing
# and itertools. Each is looked up in the module that defines it, on use: importing this module imports none of
# them. Not this module's API: neither __all__ (a star import) nor dir() lists them; import them from their homes.
# A patch of one here (monkeypatch.setattr, mock.patch) is refused: the code takes each from elsewhere, so it would
# change nothing (``_OldImportsNotPatched``). (size_1_axes_advice, imported here on 2026-12-04, is no longer in the
# package.)
_HOMES_OF_WHAT_IT_IMPORTED = {
    ".data.case_units": ("judge_units", "unit_likely_apart"),
    ".data.formats.paths": ("nifti_stem",),
    ".data.grid_agreement": ("GRID_ATOL_MM", "Volume", "grid_difference", "stacking_shift", "without_orientation"),
    ".data.header_units": ("channel_in_another_unit", "channel_units_words", "spatial_unit"),
    ".data.image_value_checks": ("dominant_voxels_said", "intensity_spread", "non_finite_counts"),
    ".data.io": ("PLACEMENT_CONFLICT_FIX", "VOXEL_SIZE_CONFLICT_FIX", "content_not_fetched", "header_error",
                 "placement_conflict", "read_nifti", "voxel_size_conflict"),
    ".data.preprocess_settings": ("spacing_unit", "spacing_was_set"),
    ".data.spacing": ("DECLARE_MM", "FINER_THAN_THE_TARGET", "REWRITE_FROM_MICROMETRES_CODE", "declared_in_mm",
                      "far_finer", "far_finer_words", "other_unit_words", "ras_spacing_of", "resampled_shape_of",
                      "times_coarser", "times_off"),
    ".data.volume_opening": ("channel_first_advice", "one_volume", "vector_layout_advice", "volumes_in"),
    ".host_memory": ("memory_available",),
    ".inference_inputs": ("InputCase", "channel_order", "check_no_folder_as_a_channel", "collect_cases"),
    ".inference_outputs": ("check_outputs", "checked_outputs", "done_as_written", "holding_output_folder",
                           "output_paths", "prediction_ending", "remove_under_the_other_ending"),
    ".inference_pipeline": ("one_at_a_time", "pipelined"),
    ".predict_marks": ("case_key", "prediction_key", "written_before"),
    ".predict_names": ("PREDICT_CASES_NAMES",),
    ".predict_options": ("TTA_MODES",),
    ".sigterm": ("by_sigterm",),
}
_HOME_OF = {name: home for home, names in _HOMES_OF_WHAT_IT_IMPORTED.items() for name in names}


def __getattr__(name: str):
    if name in MOVED_TO_INFERENCE_CASES:
        from . import inference_cases

        return getattr(inference_cases, name)
    if name in _HOME_OF:
        from importlib import import_module

        return getattr(import_module(_HOME_OF[name], __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _OldImportsNotPatched(types.ModuleType):
    """This module, refusing a patch of a name it gives only to old imports (``_HOME_OF``): the code calls each
    from another module, so a stand-in set here is never called, and a test patching one passed unchecked (a spy
    "not called" always true). It raised AttributeError while the names were gone (from the hundred-and-twelfth
    session's split) and was set in silence for the hundred-and-fourteenth's first hour."""

    def __setattr__(self, name: str, value) -> None:
        if name in _HOME_OF:
            if value is __getattr__(name):  # a patch undone, putting back what the name gives: nothing to set
                return
            from importlib import import_module

            for went_to in (".inference_cases", ".inference_reading"):  # where the code that used it went
                import_module(went_to, __package__)
            given = __getattr__(name)
            users = [module_name for module_name, module in list(sys.modules.items()) if module is not self
                     and module_name.startswith(f"{__package__}.") and vars(module).get(name) is given]
            raise AttributeError(f"{__name__}.{name} is not what the code calls (it gives only imports written "
                                 f"before the module's split): patch it where the code looks it up, among the "
                                 f"package's modules holding it now {', '.join(sorted(users))}")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in _HOME_OF and name not in vars(self):  # a refused patch undone (mock.patch's): nothing was set
            return
        super().__delattr__(name)


sys.modules[__name__].__class__ = _OldImportsNotPatched


def __dir__() -> list[str]:
    return sorted(set(globals()) | MOVED_TO_INFERENCE_CASES)  # dir(), help() and an editor's completion list them


# What ``from accelerated_seg.inference import *`` gives: what this module defines, and what moved to inference_cases
# (a star import asks __getattr__ only for a name __all__ holds: without __all__ it gave no predict_cases from the
# hundred-and-twelfth session's split to the hundred-and-thirteenth). Not numpy, torch, nor another module's
# functions, which a star import gave before there was an __all__: import those from their own modules.
__all__ = [
    "AGGREGATION_MEMORY_FRACTION", "PRECISIONS", "PreparedCase", "RestoredCase", "aggregation_bytes",
    "aggregation_device", "autocast_windows", "case_prediction", "case_probabilities", "check_precision", "class_map",
    "config_without_loading", "default_device", "export_regions", "inverse_bytes", "kept_whole", "label_dtype",
    "mirrored_probabilities", "output_channels", "predict_case", "predict_file", "prepare_case", "preprocess_bytes",
    "preprocessed_on", "resampled_voxels", "resampling_bytes", "restore_case", "runs_transforms_on_device",
    "sliding_window_logits", "transforms_device", "window_batches", "write_case",
    *sorted(MOVED_TO_INFERENCE_CASES),
]
