"""``accelerated-seg benchmark train``: our training loop against a plain PyTorch loop, side by side.

    accelerated-seg benchmark train --model unet --patch 64 --batch 2 --precision fp32
    ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 --num_machines 1 \\
        --mixed_precision no --dynamo_backend no -m accelerated_seg.cli benchmark train --patch 64

For every model x patch x per-device batch x precision, in one process (or one per device under
``accelerate launch``):

- **ours**: ``train.run_loop`` over a ``Loop`` built as ``train``/``fit`` build it (``make_accelerator``,
  ``accelerator.prepare`` of the model, AdamW and a DataLoader, MONAI DiceCELoss), timed in blocks
  of ``steps`` optimizer steps by raising ``loop.settings.max_steps`` block by block;
- **plain**: another copy of the same network (same initial weights) with the same data, precision
  (``torch.autocast``, plus a GradScaler for fp16), AdamW hyper-parameters, loss and gradient
  clipping, in a bare ``forward/loss/backward/clip/step/zero_grad`` loop; under several processes
  wrapped in ``torch.nn.parallel.DistributedDataParallel`` with the DDP options our accelerator
  passes, so the ratio is the framework's overhead at equal parallelism;
- **plain_fsdp2** (under an FSDP2 profile only): the plain loop once more, with the network sharded
  by hand with torch's ``fully_shard`` into the same units as ours (``shard_like``). Against plain
  DDP, ours is what sharding costs in all (the issue's target); against this loop, it is what
  accelerate and our loop add to FSDP2 itself.

By default the data are random patches already on the device (a DataLoader over an in-memory
dataset, no workers): the point is the training framework's cost. With ``data="real"`` (``--data
real``) both loops read phantom volumes through the training data path (cache, foreground sampling,
augmentation, loader workers), and the share of each block spent waiting for data is the figure.
Levers (``LEVERS``: channels-last, fused AdamW, torch.compile, DDP options) are applied to both
loops alike, each as its own configuration. The two loops run in alternating timed blocks (the order
flipping every round) after untimed warm-up blocks, so drift in the machine's load hits both; the
median and every block are recorded.

Also reported: a step-time breakdown of the plain loop (data wait, forward+loss, backward, optimizer),
peak GPU memory, training FLOPs per sample (``torch.utils.flop_counter.FlopCounterMode``, counted
once), MFU against the device's dense peak, the time and cost of an epoch, and under several
processes the time of one all-reduce of a gradient-sized buffer. ``scaling.weak_scaling_projection``
turns a measured step into expected DDP efficiency on 2-8 GPUs for a given interconnect
(docs/performance.md). The plain loop is ``plain_loop``; FLOP counting and device peaks, ``flops``.

This module is the driver: the sweep (``benchmark_train``), one configuration built, warmed up, timed and
made a row (``_measure_case``, its steps one function each: the Accelerator, the networks, the patches, the
loops, then the row's parts), and the command (``run_from_cli``). Its pieces live beside it, one idea each:
``benchmark_train_settings`` (the configurations, levers and timing, and their refusals before any runs),
``benchmark_train_accelerator`` (each configuration's Accelerator, made and checked as training's is),
``benchmark_train_data`` (the patches both loops read), ``benchmark_train_blocks`` (our loop in blocks, and
the alternating timed blocks) and ``benchmark_train_results`` (each loop's figures, the table and the JSON's
name). ``_measure_case``'s steps look the loop builders and block runners up here at each call, so a script that
replaces them in this module (benchmarks/harness_checks.py, inside_blocks.py) replaces what runs.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from .benchmark_train_accelerator import (check_strategy, ddp_options, fresh_accelerator, is_fsdp2,
                                          lever_compile_settings, precision_not_in_effect, sharding_in_effect)
from .benchmark_train_blocks import (EPOCHS_IN_ONE_PASS, allreduce_timing, interleaved_blocks, our_loop, run_our_block,
                                     synchronize)
from .benchmark_train_data import SyntheticPatches, real_patches
from .benchmark_train_results import (blocks_recorded, format_table, loop_figures, loop_summary, measured_under,
                                      nonfinite_note, nonfinite_record, ours_against, plain_baseline, result_name,
                                      sweep_results)
from .benchmark_train_settings import (COMPILE_MODES, DATA_SOURCES, KITS19_EPOCH_SAMPLES, LEVERS, TimingSettings,
                                       TrainCase, case_flags, check_settings, parse_model_args)
from .compilation import compile_in_place
from .config import ConfigError, OptimConfig
from .data.gpu_augment import place_spatial_augmentation
from .flops import dense_peak_tflops, training_flops_per_sample
from .host_cpu import bf16_two_voxel_warning, load_average
from .launcher_report import say_the_error
from .losses import training_loss
from .norm_layout import instance_norms_as_group_norms
from .plain_loop import PlainLoop, make_plain_loop, run_block, shard_like, step_breakdown
from .results_so_far import out_of_memory_named

if TYPE_CHECKING:
    from .models import ModelSpec

# The names that moved to the benchmark_train_*.py modules beside this one are imported here as well:
# ``from accelerated_seg.benchmark_train import TimingSettings`` and the like keep working, as the same objects.
# The driver calls its pieces by these names, so a script replaces one here (our_loop, run_our_block, and
# plain_loop's make_plain_loop, run_block, step_breakdown); set in its home module, a replacement is ignored.
__all__ = ["benchmark_train", "run_from_cli",  # and, from where they now live:
           "COMPILE_MODES", "DATA_SOURCES", "KITS19_EPOCH_SAMPLES", "LEVERS", "TimingSettings", "TrainCase",
           "check_settings", "parse_model_args",  # benchmark_train_settings
           "fresh_accelerator", "lever_compile_settings", "precision_not_in_effect",
           "sharding_in_effect",  # benchmark_train_accelerator
           "SyntheticPatches",  # benchmark_train_data
           "EPOCHS_IN_ONE_PASS", "our_loop", "run_our_block", "synchronize",  # benchmark_train_blocks
           "format_table", "loop_summary", "measured_under", "nonfinite_note", "nonfinite_record",
           "result_name"]  # benchmark_train_results (loop_summary and nonfinite_record: imported here until
           # the hundred-and-fourteenth session's split of _measure_case, and kept for the scripts that took them)


def benchmark_train(models=("unet",), patches=(64,), batches=(2,), precisions=("fp32",), model_args: dict | None = None,
                    timing: TimingSettings = TimingSettings(), peak_tflops: float | None = None,
                    price_per_gpu_hour: float | None = None, epoch_samples: int = KITS19_EPOCH_SAMPLES,
                    levers=("none",), on_measured: Callable[[dict, int], None] | None = None,
                    measured_before: Sequence[dict] = ()) -> dict:
    """Samples/s of our loop and of a plain PyTorch loop for every configuration, side by side.

    Args:
        models: registry names (accelerated_seg.models).
        patches: cubic patch edges (or (x, y, z) tuples).
        batches: per-device batch sizes.
        precisions: "fp32", "bf16", "fp16" (fp16 on CUDA only).
        model_args: constructor overrides (``model.args``) for every model.
        timing: steps per block, blocks, warm-up blocks, channels, classes, seed.
        peak_tflops: the device's dense peak for MFU (default: the table for known GPUs; none on CPU).
        price_per_gpu_hour: price of one device for an hour, for the cost of an epoch and of 1000 samples.
        epoch_samples: samples in one epoch (default: 168, MLPerf KiTS19).
        levers: names from ``LEVERS``, each measured as its own configuration ("none" = defaults).
        on_measured: called on the main process after each configuration with the results so far
            (``complete`` False until the last) and the number of configurations, so that a run
            stopped by a time limit keeps what it measured.
        measured_before: rows of these configurations that a stopped run of the same settings measured
            (``results_so_far``): kept as they are, in the place of their configuration, not measured again.

    Returns:
        {"settings", "runs": [one dict per configuration], "load_average", "is_main_process"}; the
        same rates on every rank (global samples/s over all processes).

    Example:
        >>> results = benchmark_train(["unet"], [32], [2], ["fp32"], {"channels": [8, 16], "strides": [2]},
        ...                           TimingSettings(steps=2, blocks=2))  # doctest: +SKIP
        >>> results["runs"][0]["ratio_ours_to_plain"]  # doctest: +SKIP
    """
    cases = check_settings(models, patches, batches, precisions, model_args, timing, peak_tflops,
                           price_per_gpu_hour, epoch_samples, levers)
    load_before = load_average()
    runs, main = [], None  # whether this is the main process, as the first configuration measured here says
    kept = {_row_of(run): run for run in measured_before}
    for case in cases:
        if (row := (case.model, case.lever, tuple(case.patch), case.batch, case.precision)) in kept:
            runs.append(kept[row])
            continue
        # what lasts while the configuration is measured; out of memory, it stops the run unwritten (results_so_far)
        with contextlib.ExitStack() as case_scope, out_of_memory_named(case_flags(case), "lower --batch or --patch"):
            run = _measure_case(case, timing, peak_tflops, price_per_gpu_hour, epoch_samples, case_scope)
        main = run.pop("_is_main_process")
        runs.append(run)
        _release_memory()  # the configuration's models, optimizers and data, before the next one
        if on_measured is not None and main:
            on_measured(sweep_results(timing, price_per_gpu_hour, epoch_samples, peak_tflops, load_before, runs,
                                 complete=len(runs) == len(cases)), len(cases))
    from accelerate.state import PartialState

    if main is None:  # every configuration kept from a stopped run
        main = PartialState().is_main_process
    PartialState().destroy_process_group()  # a no-op in one process
    return {**sweep_results(timing, price_per_gpu_hour, epoch_samples, peak_tflops, load_before, runs, complete=True),
            "is_main_process": main}


def _row_of(run: dict) -> tuple:
    """The configuration a result's row measured, as ``benchmark_train`` names a case."""
    return run["model"], run["lever"], tuple(run["patch"]), run["batch_per_device"], run["precision"]


def _measure_case(case: TrainCase, timing: TimingSettings, peak_tflops, price, epoch_samples,
                  case_scope: contextlib.ExitStack) -> dict:
    """Both loops on one configuration: build, warm up, time in alternating blocks, then the plain
    loop's phases and (under several processes) the all-reduce, each measured apart."""
    accelerator = _case_accelerator(case, timing)
    networks = _networks(case, timing, accelerator, case_scope)
    patches = _patches(case, timing, accelerator)
    loops = _loops(case, timing, accelerator, networks, patches)
    # untimed warm-up rounds, then timed ones, the loops' order flipping every round
    timeline, warmup = interleaved_blocks(accelerator, _one_block_of_each(loops, timing.steps), timing.warmup_blocks,
                                          timing.blocks)
    result = {**_configuration(case, timing, accelerator, networks, patches, loops),
              **blocks_recorded(timeline, warmup)}
    peak = dense_peak_tflops(accelerator.device, case.precision, peak_tflops)
    result.update(loop_figures(loops.by_name(), accelerator, timeline, patches.samples_per_block, networks.flops,
                               peak, price, epoch_samples))
    samples_per_step = case.batch * accelerator.num_processes
    result.update(ours_against(result["ours"], result["plain"], samples_per_step, "ratio_ours_to_plain"))
    result.setdefault("plain_fsdp2", None)  # its place in the row, under FSDP2 taken by its figures above
    result["against_plain_fsdp2"] = (None if loops.plain_fsdp2 is None
                                     else _against_plain_fsdp2(result, loops, samples_per_step))
    result.update(_flops_counted(networks, peak))
    result.update(_measured_apart(loops, accelerator, networks.gradient_numel, result["against_plain_fsdp2"]))
    _remove_phantoms(accelerator, patches.workdir)
    result["_is_main_process"] = accelerator.is_main_process
    return result


def _case_accelerator(case: TrainCase, timing: TimingSettings):
    """The configuration's Accelerator, checked for the strategy it asks, and told what training tells it."""
    from .strategy import configure_deepspeed, honour_fsdp1_sharding

    # cuDNN autotuning is set by preparation.make_accelerator, as in training, for both loops.
    accelerator = fresh_accelerator(case.precision, ddp_options(case, timing),
                                     cudnn_benchmark=not case.uses("no_cudnn_benchmark"))
    check_strategy(accelerator, case)
    if note := honour_fsdp1_sharding(accelerator):  # an accelerate config profile's FSDP1 sharding, as train's
        accelerator.print(f"note: {note}")
    # Per-device batch, no accumulation, training's clipping: what train() writes into a DeepSpeed config.
    configure_deepspeed(accelerator, case.batch, 1, OptimConfig().max_grad_norm)
    return accelerator


@dataclass
class _Networks:
    """One configuration's network, a copy of it for each loop, and what is counted on it once."""
    spec: ModelSpec
    model: torch.nn.Module  # as built: its FLOPs counted, its parameters the row's
    ours: torch.nn.Module
    plain: torch.nn.Module
    by_hand: torch.nn.Module | None  # under FSDP2: the plain loop's third copy, to be sharded by hand
    norms_swapped: int | None  # InstanceNorms the channels_last_norm lever changed in each copy (0: a no-op)
    zero3_leaves: list[str]  # what adapt_to_strategy told DeepSpeed ZeRO-3 to keep whole
    loss_fn: Callable
    flops: int  # training FLOPs per sample
    counted_on: str  # the device they were counted on
    gradient_bytes: int
    gradient_numel: int


def _networks(case: TrainCase, timing: TimingSettings, accelerator, case_scope: contextlib.ExitStack) -> _Networks:
    """The network, from the same seed on every rank, copied for each loop the same way, so that nothing but
    the loops differs; ours adapted to the strategy as training adapts it; the FLOPs of a training step counted."""
    from accelerate.utils import set_seed

    from .models import build_from_spec, convolutions_over_two_voxels, model_spec
    from .preparation import adapt_to_strategy

    set_seed(timing.seed)  # the same initial weights on every rank
    spec = model_spec(case.model, timing.in_channels, timing.classes, case.patch, case.model_args)
    if accelerator.device.type == "cpu" and case.precision == "bf16":  # training warns of it too; both loops meet it
        thin = convolutions_over_two_voxels(spec, case.patch)
        if warning := bf16_two_voxel_warning("cpu", "bf16", thin, case.patch):
            accelerator.print(f"warning: {warning} Steps it spoils are counted in the result: ours skips them "
                              f"(ours.skipped_steps), the plain loop steps them (plain.nonfinite_steps).")
    model = build_from_spec(spec)
    copies, norms_swapped = _copies_for_the_loops(model, case, 3 if is_fsdp2(accelerator) else 2)
    ours, plain, *by_hand = copies
    # What FSDP (wrap classes, precision policy) and DeepSpeed (buckets) are told, as in training.
    zero3_leaves = adapt_to_strategy(accelerator, ours, (1, timing.in_channels, *case.patch), run_scope=case_scope)
    loss_fn = training_loss(spec)  # both loops and the FLOP count: training's loss for this network
    flops, counted_on = training_flops_per_sample(model, timing.in_channels, case.patch, loss_fn)
    trainable = [p for p in model.parameters() if p.requires_grad]
    return _Networks(spec, model, ours, plain, by_hand[0] if by_hand else None, norms_swapped, zero3_leaves,
                     loss_fn, flops, counted_on, gradient_bytes=sum(p.numel() * p.element_size() for p in trainable),
                     gradient_numel=sum(p.numel() for p in trainable))


def _copies_for_the_loops(model: torch.nn.Module, case: TrainCase, count: int) -> tuple[list, int | None]:
    """``count`` copies of ``model`` with the configuration's layout levers applied to each; and how many
    InstanceNorms the channels_last_norm lever changed in each (None without that lever)."""
    copies = [copy.deepcopy(model) for _ in range(count)]
    norms_swapped = None
    if case.uses("channels_last_norm"):
        for copied in copies:
            norms_swapped = instance_norms_as_group_norms(copied)
    if case.uses("channels_last"):
        copies = [m.to(memory_format=torch.channels_last_3d) for m in copies]
    return copies, norms_swapped


@dataclass
class _Patches:
    """What both loops read, and the samples of one timed block (``steps`` optimizer steps on every rank)."""
    dataset: torch.utils.data.Dataset
    workers: int  # loader workers: none for the random patches already on the device
    workdir: str | None  # with --data real: the phantoms and their cache, removed once both loops are done
    samples_per_block: int


def _patches(case: TrainCase, timing: TimingSettings, accelerator) -> _Patches:
    """Random patches already on the device (the default), or phantoms through the training data path."""
    from .ranks import on_main

    samples_per_block = timing.steps * case.batch * accelerator.num_processes
    if timing.data != "real":
        return _Patches(SyntheticPatches(samples_per_block, case.batch, timing.in_channels, case.patch,
                                         timing.classes, accelerator.device, timing.seed),
                        workers=0, workdir=None, samples_per_block=samples_per_block)
    workdir = on_main(accelerator, lambda: tempfile.mkdtemp(prefix="accelerated_seg_benchmark_"))
    return _Patches(real_patches(case, timing, samples_per_block, accelerator, Path(workdir)),
                    workers=timing.num_workers, workdir=workdir, samples_per_block=samples_per_block)


@dataclass
class _Loops:
    """The loops timed on one configuration, each over its copy of the network and the same patches."""
    ours: object  # train.Loop, run by train.run_loop
    plain: PlainLoop
    plain_fsdp2: PlainLoop | None  # under FSDP2: the plain loop over a copy sharded by hand into ours' units
    units: list[str] | None  # those units
    compiled: dict | None  # torch.compile's settings under the compile lever

    def by_name(self) -> dict:
        """The loops by the names the row gives them, in the order of their blocks."""
        named = {"ours": self.ours, "plain": self.plain, "plain_fsdp2": self.plain_fsdp2}
        return {name: loop for name, loop in named.items() if loop is not None}


def _loops(case: TrainCase, timing: TimingSettings, accelerator, networks: _Networks, patches: _Patches) -> _Loops:
    """Our loop and the plain one, under FSDP2 a third (the plain one sharded by hand exactly as ours was), each
    built by the builder this module holds at the time; compiled alike under the compile lever."""
    ours = our_loop(accelerator, networks.ours, patches.dataset, case.batch, case.optim, patches.workers, timing.seed,
                    networks.loss_fn)
    plain = make_plain_loop(networks.plain, patches.dataset, case.batch, case.precision, accelerator, case.optim,
                            patches.workers, loss_fn=networks.loss_fn)
    plain_fsdp2 = units = None
    if networks.by_hand is not None:
        by_hand = networks.by_hand.to(accelerator.device)
        units = shard_like(by_hand, ours.model, accelerator.state.fsdp_plugin)
        plain_fsdp2 = make_plain_loop(by_hand, patches.dataset, case.batch, case.precision, accelerator, case.optim,
                                      patches.workers, sharded=True, loss_fn=networks.loss_fn)
    compiled = lever_compile_settings(accelerator, case, timing)
    if compiled is not None:  # as train.compile does it: in place, after prepare (or the DDP wrapper)
        compile_in_place(accelerator, ours.model, compiled)
        for other in filter(None, (plain, plain_fsdp2)):
            other.model.compile(**compiled)
    return _Loops(ours, plain, plain_fsdp2, units, compiled)


def _one_block_of_each(loops: _Loops, steps: int) -> dict:
    """A block of each loop to run, by the block runners this module holds when it runs (a script's replacement
    among them: a function of the module, not a method, so that the test of what the driver calls sees them)."""
    blocks = {"ours": lambda: run_our_block(loops.ours, steps), "plain": lambda: run_block(loops.plain)}
    if loops.plain_fsdp2 is not None:
        blocks["plain_fsdp2"] = lambda: run_block(loops.plain_fsdp2)
    return blocks


def _configuration(case: TrainCase, timing: TimingSettings, accelerator, networks: _Networks, patches: _Patches,
                   loops: _Loops) -> dict:
    """What the row measured: the network, the precision and levers, the data, the launch and strategy in effect."""
    from .strategy import strategy_in_effect

    device, processes = accelerator.device, accelerator.num_processes
    spec = networks.spec
    return {"model": case.model, "monai_class": spec.monai_class, "model_args": spec.args,
            "parameters": sum(p.numel() for p in networks.model.parameters()),
            "gradient_bytes": networks.gradient_bytes, "patch": list(case.patch), "batch_per_device": case.batch,
            "precision": case.precision, "lever": case.lever, "compile": loops.compiled, "data": timing.data,
            "augment_on": place_spatial_augmentation(timing.augment_on, device) if timing.data == "real" else None,
            "num_workers": patches.workers, "processes": processes, "global_batch": case.batch * processes,
            "strategy": strategy_in_effect(accelerator), "distributed_type": accelerator.distributed_type.value,
            "sharding": sharding_in_effect(accelerator, networks.zero3_leaves),
            "plain_baseline": plain_baseline(accelerator), "steps_per_block": timing.steps,
            "norms_as_group_norms": networks.norms_swapped,
            "cudnn_benchmark": torch.backends.cudnn.benchmark if device.type == "cuda" else None,
            "ddp_options": accelerator.ddp_handler.to_kwargs() if accelerator.ddp_handler is not None else {}}


def _against_plain_fsdp2(result: dict, loops: _Loops, samples_per_step: int) -> dict:
    """Whose cost ours against plain DDP is: FSDP2's own, or accelerate's and our loop's."""
    return {
        "baseline": (f"the plain loop with torch's fully_shard applied by hand to the same {len(loops.units)} units "
                     "as ours (same reshard_after_forward, precision and offload policies, activation "
                     "checkpointing mirrored), over this rank's share of the data (EndlessShare)"),
        "units": loops.units,
        # Really sharded: the share of the parameters each rank holds (1/processes, up to padding).
        "local_parameter_share": round(sum(p.to_local().numel() for p in loops.plain_fsdp2.model.parameters())
                                       / result["parameters"], 4),
        **ours_against(result["ours"], result["plain_fsdp2"], samples_per_step, "ratio_ours_to_plain_fsdp2"),
        # FSDP2 itself against DDP, both bare: what sharding costs before any framework.
        "ratio_plain_fsdp2_to_plain_ddp": round(result["plain_fsdp2"]["samples_per_s"]
                                                / result["plain"]["samples_per_s"], 4),
    }


def _flops_counted(networks: _Networks, peak) -> dict:
    """The training FLOPs of one sample, how they were counted, and the peak the MFU divides them by."""
    return {"flops_per_sample": networks.flops,
            "flops_counted": (f"FlopCounterMode, forward + DiceCE loss + backward of one sample on "
                              f"{networks.counted_on}: convolutions and matrix products only (norms and activations "
                              "are not counted)"),
            "peak_tflops_per_device": peak}


def _measured_apart(loops: _Loops, accelerator, gradient_numel: int, against_plain_fsdp2: dict | None) -> dict:
    """After the timed blocks, each on its own: the plain loop's step in its phases (under FSDP2 the hand-sharded
    loop's too, added to ``against_plain_fsdp2``) and, under several processes, one all-reduce of the gradients."""
    apart = {"plain_step_breakdown_ms": step_breakdown(loops.plain, accelerator)}
    if loops.plain_fsdp2 is not None:  # where FSDP2's own cost falls: forward (all-gathers), backward, optimizer
        against_plain_fsdp2["plain_fsdp2_step_breakdown_ms"] = step_breakdown(loops.plain_fsdp2, accelerator)
    apart["ours_step_breakdown_ms"] = None
    apart["ours_step_breakdown_note"] = ("run_loop is timed whole; the difference between the loops' step times is "
                                         "its overhead (instrumenting inside it would need hooks in train.py)")
    apart["allreduce"] = (allreduce_timing(gradient_numel, accelerator) if accelerator.num_processes > 1
                          else None)
    return apart


def _remove_phantoms(accelerator, workdir: str | None) -> None:
    """The phantoms and their cache (--data real), once every rank's loops are done with them."""
    if workdir is not None:
        accelerator.wait_for_everyone()
        if accelerator.is_main_process:
            shutil.rmtree(workdir, ignore_errors=True)


def _release_memory() -> None:
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def run_from_cli(args) -> int:
    """``accelerated-seg benchmark train``: measure, print the table, write the JSON (main process only)."""
    from .ranks_stop_together import stopping_together
    from .results_so_far import OutOfMemory, ResultsSoFar
    from .train import TrainingDiverged

    workers = TimingSettings.num_workers if args.num_workers is None else args.num_workers
    timing = TimingSettings(steps=args.steps, blocks=args.blocks, warmup_blocks=args.warmup_blocks,
                            classes=args.classes, data=args.data, num_workers=workers,
                            augment_on=args.augment_on,
                            ddp_bucket_mb=args.ddp_bucket_mb)
    so_far = ResultsSoFar(args.output, args.command_line)  # beside --output, which only a complete result replaces
    main_process = os.environ.get("RANK", "0") == "0"  # before accelerate starts: the launcher's rank

    writing = contextlib.nullcontext()  # the lock of ranks_stop_together, once the process group has started

    def measured(partial: dict, total: int) -> None:  # after each configuration: its row, and the JSON so far
        if partial["complete"]:
            return  # the whole table and the JSON follow
        with writing:  # written whole before a stop on another rank says where
            path = so_far.write(result_name(partial), partial)
        if args.output:
            path = f"{path}; {args.output} {'is replaced ' if Path(args.output).exists() else ''}once all are measured"
        # the configuration's row: the header's next line (the lines under it, all-reduce and FSDP2, wait for the end)
        row = format_table({"runs": partial["runs"][-1:]}).splitlines()[1].strip()
        print(f"[{len(partial['runs'])}/{total}] {row}  (so far in {path})", flush=True)
        if note := nonfinite_note(partial["runs"][-1]):
            print(note, flush=True)

    try:
        # every process reads the stopped run's file, so all skip the same configurations (on several nodes,
        # in a folder all of them see), before the first configuration, whose collectives none passes before
        # all have started it: the main process cannot have rewritten it yet
        kept = so_far.pick_up(measured_under(timing, args.price_per_gpu_hour, args.epoch_samples, args.peak_tflops))
        if kept and main_process:
            print(f"picked up {len(kept)} configuration(s) from {so_far.picked_up_from}, measured by a stopped run of "
                  f"this command on {so_far.picked_up['date']} with this machine, code and settings; measuring the "
                  f"others (move the file away to measure all anew)", flush=True)
        # one rank out of memory stops all at once, the main process saying where the rows before it are kept: the
        # others waited for it in a collective, and it said no rows were kept, until the ninety-sixth session
        with stopping_together((OutOfMemory,), lambda message: f"{message} ({so_far.kept_before_it()})") as writing:
            results = benchmark_train(args.model, args.patch, args.batch, args.precision,
                                      parse_model_args(args.model_args), timing, args.peak_tflops,
                                      args.price_per_gpu_hour, args.epoch_samples, args.lever, on_measured=measured,
                                      measured_before=kept)
    except ConfigError as error:  # the same settings on every rank: one message is enough
        say_the_error(str(error))
        return 2
    # a traceback before (an out of memory until the ninety-fifth session); the configurations measured are kept
    except (TrainingDiverged, OutOfMemory) as error:
        say_the_error(f"{error} ({so_far.kept_before_it()})")
        return 1
    if results.pop("is_main_process"):
        print(format_table(results))
        for run in results["runs"]:
            if note := nonfinite_note(run):
                print(note)
        print(f"wrote {so_far.finish(result_name(results), results)}")
    return 0
