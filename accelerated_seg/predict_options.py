"""How a prediction runs the network (``PredictOptions``, the mirrorings of ``tta``, the precision a
device takes), apart from ``inference`` because none of it needs torch: the command line refuses a
setting that cannot work (``--overlap 1.5``, ``--precision fp16 --device cpu``) before the inference
stack imports (3-15 s), with the same words as a call from Python after it (ninety-second session).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from .config import did_you_mean

#: The autocast precisions of prediction (``inference.PRECISIONS`` gives their torch dtypes).
PRECISION_NAMES = ("fp32", "bf16", "fp16")


def unknown_precision(precision: str) -> str | None:
    """Why ``precision`` is none of ``PRECISION_NAMES``, or None."""
    if precision not in PRECISION_NAMES:
        return (f"precision {precision!r} is not known; choose one of: {', '.join(PRECISION_NAMES)}"
                + did_you_mean(precision, PRECISION_NAMES))
    return None


def precision_refusal(precision: str, device) -> str | None:
    """Why ``inference.check_precision`` refuses ``precision`` on ``device`` (a torch device, or its name
    as ``--device`` gives it), or None: for the estimator to say in its method's name, and the command line
    before the imports, without the warning that inference gives."""
    if unknown := unknown_precision(precision):
        return unknown
    if precision == "fp16" and str(device).split(":")[0] != "cuda":
        return (f"precision fp16 needs a CUDA GPU, but inference runs on {device}; use --precision bf16 "
                f"(precision=\"bf16\" in Python) or fp32 on the CPU")
    return None


TTA_MODES = ("none", "axes", "all")


def mirror_axes(tta: str) -> list[tuple[int, ...]]:
    """The flips of a (B, C, X, Y, Z) batch to average over; ``()`` is the unflipped input.

    ``none``: the input only. ``axes``: the input and one flip per spatial axis (4 passes).
    ``all``: every combination of flips over the 3 spatial axes (8 passes, nnU-Net's mirroring).

    Example:
        >>> mirror_axes("axes")
        [(), (2,), (3,), (4,)]
    """
    if isinstance(tta, bool):  # tta=True read as "on" and was told only that True is not a mode
        raise ValueError(f"tta={tta}: name the flips instead: 'axes' (the input and each axis flipped, 4 passes), "
                         f"'all' (every combination, 8 passes, nnU-Net's mirroring) or 'none'")
    if tta not in TTA_MODES:
        raise ValueError(f"tta {tta!r} is not known; choose one of: {', '.join(TTA_MODES)}"
                         + did_you_mean(tta, TTA_MODES))
    if tta == "none":
        return [()]
    if tta == "axes":
        return [(), (2,), (3,), (4,)]
    return [axes for k in range(4) for axes in itertools.combinations((2, 3, 4), k)]


@dataclass(frozen=True)
class PredictOptions:
    """How the network is run over a volume; none of these change what a voxel means.

    Args:
        sw_batch_size: windows per forward pass.
        overlap: sliding-window overlap in [0, 1); 0.5 is nnU-Net's.
        tta: mirroring test-time augmentation, one of ``TTA_MODES``.
        precision: ``fp32``, ``bf16`` or ``fp16`` (autocast; fp16 on CUDA only).
        aggregate_on_cpu: stitch the whole volume on the CPU while windows run on the GPU; None
            decides per case from the free GPU memory (``inference.aggregation_device``).
        transforms_on_device: on a GPU, run the preprocessing after reading (reorientation,
            resampling, crop, normalisation), the inverse onto the input's grid and the class map
            there, so the host only reads and writes files and receives one byte per voxel rather
            than four per class and voxel (``inference.case_prediction``). On by default: 4.6x the cases/s of
            the host's road on an H200 machine (docs/inference.md); False keeps them on the host.
            On a CPU it changes nothing.
    """

    sw_batch_size: int = 4
    overlap: float = 0.5
    tta: str = "none"
    precision: str = "fp32"
    aggregate_on_cpu: bool | None = None
    transforms_on_device: bool = True

    def __post_init__(self):
        if self.sw_batch_size < 1:
            raise ValueError(f"sw_batch_size must be at least 1, got {self.sw_batch_size}")
        if not 0 <= self.overlap < 1:
            raise ValueError(f"overlap must be in [0, 1), got {self.overlap}")
        mirror_axes(self.tta)  # raises for an unknown mode
        if unknown := unknown_precision(self.precision):
            raise ValueError(unknown)
        if not isinstance(self.transforms_on_device, bool):  # "no" would be true
            raise ValueError(f"transforms_on_device must be True or False, got {self.transforms_on_device!r}")
        if self.aggregate_on_cpu is not None and not isinstance(self.aggregate_on_cpu, bool):  # so would this one's
            raise ValueError(f"aggregate_on_cpu must be True, False or None (decided per case), got "
                             f"{self.aggregate_on_cpu!r}")


# The keyword arguments of prediction that its errors start with (PredictOptions', keep_largest's), by the flags
# that give them: "sw_batch_size must be at least 1, got 0" named a word the command's user never typed
_PREDICTION_FLAGS = {"sw_batch_size": "--sw-batch-size", "overlap": "--overlap", "keep_largest": "--keep-largest"}
_PREDICTION_KEYWORD_FIRST = re.compile(r"^(" + "|".join(_PREDICTION_FLAGS) + r")\b")


def in_flag_words(error: Exception) -> str:
    """An error of predict (or a benchmark's prediction) as the command says it: the keyword argument it starts
    with, if one of prediction's, as the flag (--overlap must be in [0, 1), got 1.5)."""
    return _PREDICTION_KEYWORD_FIRST.sub(lambda named: _PREDICTION_FLAGS[named[1]], str(error))
