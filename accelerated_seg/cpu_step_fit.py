"""Before a run on the CPU: can one training step fit in this machine's memory?

On the CPU nothing stops a step too large politely: the kernel's out-of-memory killer ends the run
with SIGKILL in its first step, without a word (a GPU says "CUDA out of memory" itself). So the peak
of one step's forward and backward, measured on the ``meta`` device (``plan.measure_peak``, a lower
bound of what the step needs), is set against what this process can still take
(``host_memory.memory_available``) before the first step: ``train`` and the estimator refuse their
run in their settings' words (``check_the_step_fits_host_memory``), ``benchmark train`` each of its
configurations in its options' (``step_memory_shortfall``, from benchmark_train_settings.py). The prediction
benchmarks' ``benchmark.check_host_memory`` counts the bytes of their volumes instead: another bound.

Until the ninety-fifth session the run's check was in train.py and the rest in plan.py, whose
estimates are of GPUs.
"""

from __future__ import annotations

import os

from accelerate import Accelerator
from accelerate.utils import DistributedType

from .config import Config, ConfigError
from .data.cases import Manifest
from .host_memory import memory_available
from .model_folders import Names
from .plan import GIB, PRECISIONS, measure_peak
from .strategy import PRECISION_OF_MIXED


def check_the_step_fits_host_memory(cfg: Config, accelerator: Accelerator, manifest: Manifest, per_device: int,
                                    names: Names = Names()) -> None:
    """Refuse a CPU run whose steps cannot fit in this machine's memory (``check_step_fits_host_memory``):
    the out-of-memory killer would end it without a word. A GPU says "CUDA out of memory" itself.
    Activation checkpointing (ours or FSDP's) keeps less than the estimate counts: not checked then."""
    fsdp = accelerator.state.fsdp_plugin if accelerator.distributed_type == DistributedType.FSDP else None
    precision = PRECISION_OF_MIXED.get(accelerator.mixed_precision)  # None for fp8: not measured
    if cfg.train.activation_checkpointing or (fsdp is not None and fsdp.activation_checkpointing) \
            or precision not in PRECISIONS:
        return
    processes_here = int(os.environ.get("LOCAL_WORLD_SIZE", accelerator.num_processes))
    check_step_fits_host_memory(cfg.model.name, cfg.data.patch_size, precision, manifest.num_channels,
                                manifest.num_outputs, cfg.model.args, per_device, processes_here, names)


def check_step_fits_host_memory(name: str, patch, precision: str, in_channels: int, classes: int,
                                model_args: dict | None, batch: int, processes: int, names: Names = Names()) -> None:
    """A ConfigError when the tensors alive at the peak of one training step's forward and backward,
    in every training process on this machine, exceed the memory the machine has available.

    On the CPU nothing stops such a run politely: the kernel's out-of-memory killer ends it with
    SIGKILL in its first step, without a word (a 400³ patch at batch 2 on a 24 GiB machine, forty-third
    session). That peak is a lower bound of what a step needs (parameters, optimizer state, the
    loader and the cache come on top), so the check refuses only runs that cannot fit; one within the
    bound may still not fit (``accelerated-seg plan`` counts the rest). ``names``: how the caller names the
    patch, batch and activation checkpointing (the estimator's block_shape, batch_size, activation_checkpointing=True
    since the ninety-second session; examples/estimator.py's --patch and its Segmentation call since the
    hundred-and-twenty-eighth).
    """
    if (shortfall := step_memory_shortfall(name, patch, precision, in_channels, classes, model_args, batch,
                                           processes)) is None:
        return
    peak, available = shortfall
    need = f"{_gib(peak)} at their peak"
    if processes > 1:
        need += f" in each process, {_gib(peak * processes)} in the {processes} on this machine,"
    patch_setting, batch_setting = names.setting("data.patch_size"), names.setting("train.batch_size")
    raise ConfigError(f"{patch_setting} {list(patch)} at {batch_setting} {batch} cannot train in this machine's "
                      f"memory: the forward and backward pass of {name} at {precision} hold at least {need} "
                      f"and {_gib(available)} is available, so the out-of-memory killer would end the "
                      f"run in its first step. Lower {patch_setting} or {batch_setting}, or "
                      f"{names.to_set('train.activation_checkpointing', True)} (`accelerated-seg plan` estimates a "
                      f"patch and batch)")


def step_memory_shortfall(name: str, patch, precision: str, in_channels: int, classes: int, model_args: dict | None,
                          batch: int, processes: int) -> tuple[int, int] | None:
    """(the peak of one training step's forward and backward in one process, the bytes available) where that
    peak in every one of ``processes`` exceeds the memory the machine has available; None where it fits,
    or where nothing says what is available (``check_step_fits_host_memory``)."""
    available = host_memory_available()
    if available is None:
        return None
    # measured at the run's batch: a BatchNorm network whose deepest stage is one voxel trains at 8 but not at 1,
    # and measured at 1 it refused such a run in plan's words (--patch) until the ninety-fourth session
    peak = measure_peak(name, patch, precision, in_channels, classes, model_args, batch)
    return None if peak * processes <= available else (peak, available)


def host_memory_available() -> int | None:
    """Bytes this process can still take without swapping or meeting its job's memory limit
    (``host_memory.memory_available``), or None where nothing says."""
    return memory_available()


def _gib(nbytes: float) -> str:
    return f"{nbytes / GIB:.2f} GiB"
