"""``plan``'s checks of its settings, apart from plan.py, which imports torch and MONAI to measure.

The command line runs them on the options it is given before those imports: a ``--batch 0`` waited 5-13 s
for them on a busy 2-core machine before being refused (ninety-third session's probe). ``plan.measure_model``,
``estimate`` and ``propose`` run them again on the settings resolved with an experiment config's.
"""

from __future__ import annotations

import math

from .config import ConfigError, did_you_mean
from .schedule import resolve_batch


def check_settings(batch: int = 1, gpus: int = 1, gpu_memory_gib: float = 1.0, global_batch: int | None = None) -> None:
    """One clear error for a setting that cannot work, before anything is measured."""
    check_at_least_one("train.batch_size (--batch)", batch)
    check_at_least_one("number of GPUs (--gpus)", gpus)
    # not (x > 0) rather than x <= 0: NaN compares false both ways, and inf fits every batch
    if not isinstance(gpu_memory_gib, (int, float)) or not 0 < gpu_memory_gib < math.inf:
        raise ConfigError(f"GPU memory (--gpu-memory) must be a finite number of GiB > 0, got {gpu_memory_gib!r}")
    if global_batch is not None:  # the same rule and message as at launch, naming plan's flag as --batch is named
        try:
            resolve_batch(None, global_batch, None, gpus, lr=1.0, base_batch_size=1, lr_scaling="none")
        except ConfigError as error:
            raise ConfigError(str(error).replace("train.global_batch_size", "train.global_batch_size (--global-batch)",
                                                 1)) from None


def check_network_inputs(patch=None, in_channels: int | None = None, classes: int | None = None) -> None:
    """The patch, image channels and outputs of the network to measure, each where given (not None)."""
    # a patch of 0 was told it "trains on 32x32x32" by the forward check, and -8 to use (32, 64, 64)
    if patch is not None and (len(patch) != 3 or min(patch) < 1):
        raise ConfigError(f"data.patch_size (--patch) needs three sizes of at least 1 voxel, got {tuple(patch)}")
    if in_channels is not None:
        check_at_least_one("image channels (--in-channels)", in_channels)
    # the outputs: one region is a network of one output (a sigmoid), which training on the CPU was refused
    # by its memory check as "classes including background (--classes) must be an integer >= 2"
    if classes is not None:
        check_at_least_one("the network's outputs (--classes: classes including background, or regions)", classes)


def check_at_least_one(setting: str, value: int) -> None:
    if not isinstance(value, int) or value < 1:
        raise ConfigError(f"{setting} must be an integer >= 1, got {value!r}")


def check_choice(setting: str, value: str, choices) -> None:
    if value not in choices:
        raise ConfigError(f"{setting} must be one of {', '.join(choices)}, got {value!r}" + did_you_mean(value, choices))
