"""``benchmark train``'s checks of the numbers and names it is given, apart from benchmark_train_settings.py,
which checks the rest with torch and MONAI imported.

The command line runs them on its options before those imports, as ``plan`` runs plan_checks.py: a
``--steps 0`` waited 3.1-3.4 s for them on a 2-core machine before being refused (ninety-third session's
probe). ``benchmark_train_settings.check_settings`` runs them again for a caller of ``benchmark_train`` itself.
"""

from __future__ import annotations

import math

from .config import ConfigError, did_you_mean

PRECISIONS = ("fp32", "bf16", "fp16")


def check_numbers(patches, batches, precisions, steps: int, blocks: int, warmup_blocks: int, classes: int,
                  epoch_samples: int, num_workers: int, ddp_bucket_mb: int | None, peak_tflops: float | None,
                  price_per_gpu_hour: float | None) -> None:
    """A ConfigError naming the first setting that cannot be measured; what needs the device (fp16 on a
    CPU) or a network (a patch it cannot halve) is checked by ``benchmark_train_settings.check_settings``."""
    if num_workers < 0:
        raise ConfigError(f"--num-workers must not be negative (got {num_workers})")
    if ddp_bucket_mb is not None and ddp_bucket_mb < 1:
        raise ConfigError(f"--ddp-bucket-mb must be at least 1 (got {ddp_bucket_mb})")
    for batch in batches:
        if batch < 1:
            raise ConfigError(f"--batch must be at least 1 sample per device (got {batch})")
    for patch in patches:  # else a meta forward's "negative dimension", said as a patch too small for the network
        if min(patch if isinstance(patch, (tuple, list)) else (patch,)) < 1:
            raise ConfigError(f"--patch must be at least 1 voxel along each axis (got {patch})")
    for precision in precisions:
        if precision not in PRECISIONS:
            raise ConfigError(f"--precision {precision!r} is not known; choose one of: {', '.join(PRECISIONS)}"
                              + did_you_mean(precision, PRECISIONS))
    for name, value, least in (("--steps", steps, 1), ("--blocks", blocks, 1), ("--warmup-blocks", warmup_blocks, 0),
                               ("--classes", classes, 2), ("--epoch-samples", epoch_samples, 1)):
        if value < least:
            raise ConfigError(f"{name} must be at least {least} (got {value})")
    # `not 0 < x < inf` rather than `x <= 0`: NaN compares false both ways and came out as an MFU of nan
    if peak_tflops is not None and not 0 < peak_tflops < math.inf:
        raise ConfigError(f"--peak-tflops must be a finite number > 0 (got {peak_tflops})")
    if price_per_gpu_hour is not None and not 0 <= price_per_gpu_hour < math.inf:
        raise ConfigError(f"--price-per-gpu-hour must be a finite number >= 0 (got {price_per_gpu_hour})")


def check_workers_used(num_workers: int | None, data: str) -> None:
    """A ConfigError for --num-workers given (None: not given) without --data real: the synthetic patches are
    read without a loader, so the workers went unused while the JSON's settings recorded them."""
    if num_workers is not None and data != "real":
        raise ConfigError(f"--num-workers {num_workers} are the real loader's workers (the synthetic patches "
                          f"are on the device already, read without workers): add --data real")


def check_augment_used(augment_on: str, data: str) -> None:
    """A ConfigError for an --augment-on not known, or cpu or gpu without --data real: the synthetic patches
    are not augmented, so cpu was measured as if not given while the JSON's settings recorded it."""
    if augment_on not in ("auto", "cpu", "gpu"):
        raise ConfigError(f"--augment-on {augment_on!r} is not known; choose auto, cpu or gpu")
    if augment_on != "auto" and data != "real":
        raise ConfigError(f"--augment-on {augment_on} augments the real loader's patches (the synthetic ones "
                          f"are not augmented): add --data real")
