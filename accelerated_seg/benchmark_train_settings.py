"""``benchmark train``'s settings: the configurations a sweep measures (``TrainCase``, one per model x patch x
batch x precision x lever), how each is timed (``TimingSettings``), the speed levers (``LEVERS``), and the
refusals of all of them before any configuration runs (``check_settings``).

``benchmark_train_checks.py`` holds the checks of numbers and names the command line runs before torch and
MONAI import; ``check_settings`` runs them again for a caller of ``benchmark_train`` itself, then checks what
needs the device, the launch or a network: fp16 on a CPU, a lever that cannot take effect, a patch the network
cannot halve, a step too large for this machine's memory. The driver, ``benchmark_train.py``, measures only
what passed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
from monai.utils import ensure_tuple_rep

from .benchmark_train_checks import check_augment_used, check_numbers
from .config import ConfigError, OptimConfig, check_network_name
from .launch_env import launched_processes
from . import plan

# MLPerf Training's image segmentation benchmark (KiTS19): 168 training cases, one patch per case
# per epoch. The default "epoch" of the cost estimate.
KITS19_EPOCH_SAMPLES = 168

# Speed levers a run can switch on for both loops, to measure each against "none" in one session.
# Levers combine with "+" ("compile+channels_last"): one with another can pay where neither does alone
# (inductor generates its own instance norm, so channels-last no longer pays cuDNN's price for it).
LEVERS = {
    "none": "the defaults training uses",
    "channels_last": "both models' weights channels-last 3D (train.channels_last)",
    "channels_last_norm": "with channels_last: both models' InstanceNorms as the identical GroupNorm with one group "
                          "per channel, which keeps channels-last (train.channels_last_norm)",
    "fused_adamw": "AdamW with fused=True in both loops (optim.fused); with sgd, torch's fused SGD",
    "sgd": "SGD with Nesterov momentum 0.99, nnU-Net's optimizer, in both loops instead of AdamW (optim.optimizer)",
    "compile": "torch.compile (inductor) of both prepared models, in place (train.compile); compiled in the warm-up",
    "compile_cudagraphs": "as compile, mode reduce-overhead: forward and backward replayed as CUDA graphs "
                          "(train.compile.mode; CUDA only)",
    "compile_autotune": "as compile, mode max-autotune-no-cudagraphs: inductor times kernel choices in the warm-up "
                        "(train.compile.mode)",
    "no_cudnn_benchmark": "cuDNN autotuning off in both loops (train.cudnn_benchmark: false; training's default is on)",
    "ddp_static_graph": "DDP static_graph=True in both loops (train.ddp.static_graph; several processes)",
    "ddp_bucket_view": "DDP gradient_as_bucket_view=True in both loops (train.ddp.gradient_as_bucket_view)",
}
# The compile levers and the train.compile.mode each one is.
COMPILE_MODES = {"compile": "default", "compile_cudagraphs": "reduce-overhead",
                 "compile_autotune": "max-autotune-no-cudagraphs"}
DATA_SOURCES = ("synthetic", "real")


@dataclass(frozen=True)
class TrainCase:
    """One measured configuration."""

    model: str
    model_args: dict
    patch: tuple[int, int, int]
    batch: int  # per device
    precision: str
    lever: str = "none"  # LEVERS joined by "+", applied to both loops alike

    def uses(self, lever: str) -> bool:
        return lever in self.lever.split("+")

    @property
    def optim(self) -> OptimConfig:
        """Both loops' optimizer settings: training's defaults, with the case's optimizer levers."""
        return OptimConfig(optimizer="sgd" if self.uses("sgd") else "adamw", fused=self.uses("fused_adamw"))

    @property
    def compile_mode(self) -> str | None:
        """train.compile.mode of the case's compile lever; None where it does not compile."""
        return next((COMPILE_MODES[p] for p in self.lever.split("+") if p in COMPILE_MODES), None)


@dataclass(frozen=True)
class TimingSettings:
    steps: int = 5  # optimizer steps per timed block (one pass over the synthetic dataset)
    blocks: int = 5  # timed blocks per loop, alternating
    warmup_blocks: int = 1  # untimed blocks per loop before the first timed one
    in_channels: int = 1
    classes: int = 3  # output classes including background (KiTS19: kidney, tumour)
    seed: int = 0
    # "synthetic": random patches already on the device (the framework's cost alone); "real": phantom
    # volumes through the training data path (cache, sampling, augmentation, workers), one epoch per block.
    data: str = "synthetic"
    num_workers: int = 2  # loader worker processes per rank with data="real"
    augment_on: str = "auto"  # with data="real": data.augment_on, where the spatial augmentation runs
    ddp_bucket_mb: int | None = None  # DDP gradient bucket size for both loops (None: PyTorch's 25 MB)
    compile_backend: str = "inductor"  # of the compile lever ("aot_eager" in tests: no code generation)


def check_settings(models, patches, batches, precisions, model_args: dict | None = None,
                   timing: TimingSettings = TimingSettings(), peak_tflops: float | None = None,
                   price_per_gpu_hour: float | None = None, epoch_samples: int = KITS19_EPOCH_SAMPLES,
                   levers=("none",)) -> list[TrainCase]:
    """The configurations to measure, or a ConfigError naming the first bad setting (before any work)."""
    from .models import check_trainable, model_spec

    for name, values in (("--model", models), ("--patch", patches), ("--batch", batches), ("--precision", precisions)):
        if not values:
            raise ConfigError(f"{name}: give at least one value")
    # the command line ran these before torch imported; a caller of benchmark_train meets them here
    check_numbers(patches, batches, precisions, timing.steps, timing.blocks, timing.warmup_blocks, timing.classes,
                  epoch_samples, timing.num_workers, timing.ddp_bucket_mb, peak_tflops, price_per_gpu_hour)
    _check_no_value_twice(models, patches, batches, precisions, levers)
    for name in models:
        check_network_name(name, "--model")
    for lever in levers:
        _check_lever(lever, timing)
    if timing.data not in DATA_SOURCES:
        raise ConfigError(f"--data {timing.data!r} is not known; choose one of: {', '.join(DATA_SOURCES)}")
    check_augment_used(timing.augment_on, timing.data)
    _check_ddp_options(levers, timing)
    if timing.data == "real" and (timing.classes, timing.in_channels) != (3, 1):
        raise ConfigError("--data real trains on the phantoms (1 channel; background, ventricles, lesion): "
                          f"use --classes 3 (got {timing.classes})")
    if "fp16" in precisions and _device_type() != "cuda":
        raise ConfigError("--precision fp16 needs a CUDA device (fp16 autocast with a gradient scaler); "
                          "on the CPU use bf16 or fp32")
    _check_precisions_against_the_json(precisions)
    for name in models:
        for patch in patches:
            try:  # divisibility, and a forward pass of shapes only, as training checks them before any data
                spec = model_spec(name, timing.in_channels, timing.classes, ensure_tuple_rep(patch, 3), model_args)
                for batch in batches:
                    check_trainable(spec, ensure_tuple_rep(patch, 3), batch)
            except ConfigError as error:
                raise ConfigError(f"--model {name} --patch {patch}: {error}") from None
    cases = [TrainCase(name, dict(model_args or {}), ensure_tuple_rep(patch, 3), batch, precision, lever)
             for name in models for patch in patches for batch in batches for precision in precisions
             for lever in levers]
    _check_host_memory(cases, timing)
    return cases


def _check_precisions_against_the_json(precisions) -> None:
    """Each --precision must be the one that runs: a DeepSpeed json that switches bf16 or fp16 on decides the
    precision over --precision (accelerate's DeepSpeed state reads its blocks), and --precision fp32 beside one
    measured bf16 in a row labelled fp32, against a plain loop in fp32 (a probe of the ninety-seventh session).
    Refused with the json's field named, before any configuration is measured."""
    from .strategy import precision_against_the_launched_json

    for precision in precisions:
        if problem := precision_against_the_launched_json(precision, "benchmark train's --precision {precision}"):
            raise ConfigError(f"{problem}. A row labelled {precision} would measure another precision")


def _check_no_value_twice(models, patches, batches, precisions, levers) -> None:
    """Each value of a sweep's option is a configuration of its own: one given twice measured the same
    configurations twice over, in twice the time, as rows of the table that differ only by noise."""
    for name, given, keys in (("--model", models, list(models)),
                              ("--patch", patches, [ensure_tuple_rep(patch, 3) for patch in patches]),
                              ("--batch", batches, list(batches)), ("--precision", precisions, list(precisions)),
                              ("--lever", levers, [frozenset(lever.split("+")) for lever in levers])):  # a+b is b+a
        for number, key in enumerate(keys):
            if key in keys[:number]:
                first = given[keys.index(key)]
                again = "is given twice" if given[number] == first else f"is {first} again"
                raise ConfigError(f"{name} {given[number]} {again}: each value is one configuration, which would be "
                                  f"measured twice over; give it once (more --blocks measure a configuration longer)")


def _check_host_memory(cases: list[TrainCase], timing: TimingSettings) -> None:
    """On the CPU, refuse a configuration whose training step cannot fit in this machine's memory, as
    training refuses it (``cpu_step_fit.step_memory_shortfall``): the out-of-memory killer ends such a run in its
    first step with SIGKILL, without a word and with nothing written. A GPU says "CUDA out of memory" itself.
    The largest --batch of each model, patch and precision is the one checked: the peak grows with it."""
    from .cpu_step_fit import step_memory_shortfall

    if _device_type() != "cpu":
        return
    processes = int(os.environ.get("LOCAL_WORLD_SIZE", launched_processes()))  # on this machine
    largest: dict[tuple, int] = {}
    for case in cases:
        key = (case.model, case.patch, case.precision)
        largest[key] = max(largest.get(key, 0), case.batch)
    for (name, patch, precision), batch in largest.items():
        shortfall = step_memory_shortfall(name, patch, precision, timing.in_channels, timing.classes,
                                          cases[0].model_args, batch, processes)
        if shortfall is None:
            continue
        peak, available = shortfall
        each = f" in each of the {processes} processes on this machine" if processes > 1 else ""
        raise ConfigError(f"--model {name} --patch {'x'.join(map(str, patch))} --batch {batch} --precision {precision} "
                          f"cannot be measured in this machine's memory: a training step holds at least "
                          f"{peak / 2**30:.2f} GiB at its peak{each} and {available / 2**30:.2f} GiB is available, so "
                          f"the out-of-memory killer would end the benchmark in its first step, without a word. Lower "
                          f"--patch or --batch (`accelerated-seg plan` estimates what fits)")


def _check_lever(lever: str, timing: TimingSettings) -> None:
    parts = lever.split("+")
    for part in parts:
        if part not in LEVERS:
            raise ConfigError(f"--lever {part!r} is not known; choose from: {', '.join(LEVERS)} "
                              f"(several joined by '+', e.g. compile+channels_last)")
    if len(parts) > 1 and "none" in parts:
        raise ConfigError(f"--lever {lever}: 'none' is the defaults alone and combines with nothing")
    if len(set(parts)) < len(parts):
        raise ConfigError(f"--lever {lever}: a lever is named twice")
    if "channels_last_norm" in parts and "channels_last" not in parts:  # as train.channels_last_norm needs
        raise ConfigError(f"--lever {lever}: channels_last_norm keeps the channels-last layout through the norms; "
                          f"give it with channels_last (channels_last+channels_last_norm)")
    compiles = [part for part in parts if part in COMPILE_MODES]
    if len(compiles) > 1:
        raise ConfigError(f"--lever {lever}: one compile mode at a time ({', '.join(compiles)})")
    if compiles and timing.warmup_blocks < 1:  # the compilation, seconds to minutes, was timed as a block
        raise ConfigError(f"--lever {lever} compiles both loops in their warm-up blocks; with --warmup-blocks 0 "
                          f"the first timed block would time the compilation: give --warmup-blocks 1 or more")
    if compiles and COMPILE_MODES[compiles[0]] != "default" and timing.compile_backend != "inductor":
        raise ConfigError(f"--lever {compiles[0]} is an inductor mode; the compile backend here is "
                          f"{timing.compile_backend}")
    if "compile_cudagraphs" in parts and _device_type() != "cuda":
        raise ConfigError("--lever compile_cudagraphs needs a CUDA device: elsewhere inductor skips the CUDA graphs "
                          "and the figure would be plain compile's; use --lever compile")


def _check_ddp_options(levers, timing: TimingSettings) -> None:
    """A DDP option needs DDP: in one process neither loop is wrapped in it, and such a lever measured the
    defaults again under its name while the JSON's ddp_options said the option was in effect."""
    if launched_processes() > 1:  # several processes: the plain loop is DDP (ours too, or sharded)
        return
    given = [f"--lever {lever}" for lever in levers if {"ddp_static_graph", "ddp_bucket_view"} & set(lever.split("+"))]
    if timing.ddp_bucket_mb is not None:
        given.append(f"--ddp-bucket-mb {timing.ddp_bucket_mb}")
    if given:
        raise ConfigError(f"{given[0]} sets an option of DDP, and one process trains without DDP in both loops: "
                          f"launch several processes (accelerate launch --num_processes 2 ...), or drop it")


def _device_type() -> str:
    """The device accelerate will pick: CUDA when present, unless ACCELERATE_USE_CPU forces the CPU."""
    forced_cpu = os.environ.get("ACCELERATE_USE_CPU", "false").lower() in ("1", "true", "yes")
    return "cuda" if torch.cuda.is_available() and not forced_cpu else "cpu"


def case_flags(case: TrainCase) -> str:
    """The configuration as the flags that choose it, for a line about it."""
    lever = "" if case.lever == "none" else f" --lever {case.lever}"
    return (f"--model {case.model} --patch {'x'.join(map(str, case.patch))} --batch {case.batch} "
            f"--precision {case.precision}{lever}")


#: benchmark train's ``--model-args``, read as plan's: a copy of its own said it as ``--model-args``, with another
#: example, and took ``''`` as none, until review r113
parse_model_args = plan.parse_model_args
