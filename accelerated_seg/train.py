"""The one training loop. The strategy (CPU, one GPU, DDP, FSDP, DeepSpeed) and mixed precision come
from the accelerate config the script was launched with; nothing below changes between them.

    accelerate launch --config_file configs/accelerate/cpu.yaml examples/train.py --config configs/demo.yaml

``run_loop`` is the loop: forward, loss, ``backward`` under ``accumulate``, and on each optimizer step
a single collective that lets every rank agree on whether the step is finite and whether to stop
(preemption); then clip, step, schedule, and every so often validate, checkpoint and log. Two entry
points drive it:

- ``train(cfg)``: everything from the config: resolve the batch, check and cache the data once,
  build the registry model, ``accelerator.prepare``, resume, loop, export the plain MONAI model.
- ``fit(model, loader, criterion, optimizer, ...)``: the same loop over pieces the user built.

The Accelerator and what each strategy needs of the network come from preparation.py, shared with the
training benchmark, so that it times this loop as training sets it up. ``_configured_run`` names the
phases of a run's start; each of the run's other ideas is a module of its own: the cases across the
ranks (training_data.py), the loader's batches as one stream (batch_stream.py), the step's one
collective (sum_over_ranks.py), the run folder across the ranks (run_folder_ranks.py), a checkpoint
loaded into the loop (resume.py), what the run records (run_records.py), fit's arguments
(fit_checks.py), whether a CPU run's step fits the host's memory (cpu_step_fit.py), the figures
every rank logs (rank_figures.py) and what an interrupted run says, from its setup to its export
(interrupted_run.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from accelerate import Accelerator
from accelerate.utils import DistributedType, gather_object, set_seed
from tqdm.auto import tqdm

from .batch_stream import BatchStream
from .checkpoint import PREPROCESSING_FILE, SPLIT_FILE, PreemptionSignals, complete_checkpoints, save_training_state
from .checkpoint_files import EXPORT_DESCRIPTION_FILE, gone_if_rotated_away
from .closed_output import surviving_a_closed_output
from .compilation import checked_settings, compile_prepared
from .config import CompileConfig, Config, ConfigError, check_values, dump_config
from .cpu_step_fit import check_the_step_fits_host_memory
from .data.class_presence import class_presence_warnings, output_names
from .data.gpu_augment import apply_affine, place_spatial_augmentation
from .data.loader import VolumeDataset, patch_dataset, train_loader
from .data.manifest import Manifest
from .data.patch_fit import patch_padding_warning
from .data.prepare import cache_root, counts_before_writing, dataset_source
from .data.preprocess import PreprocessSettings
from .data.splits import unused_split_settings_warning, ways_to_validation_cases
from .data.workers import refuse_unguarded_main, spare_the_workers
from .exported_model import expect_shared_tensors, export_model, shared_tensor_names
from .files import write_text_atomically
from .fit_checks import check_fit_arguments, check_the_schedule_length
from .host_cpu import bf16_two_voxel_warning
from .initial_weights import (check_a_new_runs_initial_weights, check_head_only_steps, check_init_into,
                              class_order_warning, initial_weights_preparation_note)
from .interrupt_in_the_rendezvous import ending_on_an_interrupt_in_the_rendezvous
from .interrupted_run import RunSoFar, saying_where_to_resume_after_ctrl_c
from .loop_clock import LoopClock
from .losses import segmentation_loss
from .model_folders import FIT_NAMES, Names, unreadable_folder
from .models import (ModelSpec, check_model_settings, convolutions_over_two_voxels, network_takes_patch,
                     network_warnings)
from .network_checks import checked_network_and_loss, network_before_writing
from .optimizers import build_optimizer, continue_with_the_runs_settings, param_group_settings, parameter_groups
from .preparation import (adapt_to_strategy, channels_last_error, check_launch, end_run,
                          keep_the_optimizer_under_offload, layer_seed, leaving_the_process_as_found, make_accelerator,
                          model_for_strategy, model_input_dtype, schedule_the_stepping_optimizer, seed_of_the_workers,
                          seed_the_shuffle, start_trackers)
from .rank_figures import peak_memory_gb, rank_figures
from .ranks import on_main
from .resume import continue_the_data_stream, loaded_optimizer_note, resume_the_loop
from .resume_config_changes import (FIT_SETTINGS_FILE, another_length_note, changed_settings_note,
                                    check_resume_length, check_resume_settings, fit_settings_changed,
                                    refuse_a_train_checkpoint_in_fit, resumes_of_the_course, saved_fit_settings,
                                    saved_max_steps)
from .resume_network_and_data import check_resume_data, check_resume_layout, check_resume_model_settings
from .run_folder import (FIT_OUTPUTS, TRAIN_OUTPUTS, check_folder_path, check_reads_survive, paths_read,
                         resume_or_replace)
from .run_folder_ranks import (check_the_ranks_agree_on_the_start, choose_the_best_anew_where_its_export_is_gone,
                               delete_earlier_run, holding_run_folder, set_aside_later_course)
from .run_records import export_metadata, fit_hparams, flat_hparams, write_metrics, write_run_info
from .schedule import BatchPlan, lr_multipliers, resolve_batch, warmup_warning, zero_lr_warning
from .strategy import configure_deepspeed, strategy_in_effect
from .sum_over_ranks import SumOverRanks
from .training_data import cached_tables, checked_data, checked_epoch, epochs_per_pass
from .unused_settings import unused_settings_warnings
from .validation import empty_case_counts, empty_cases_note, validate, validation_means
from .wording import counted


class TrainingDiverged(RuntimeError):
    """The loss stayed non-finite for ``train.max_nonfinite_steps`` optimizer steps in a row."""


@dataclass
class Progress:
    """Where the run is; saved in every checkpoint (registered with ``register_for_checkpointing``)."""

    step: int = 0  # optimizer steps taken
    batches_seen: int = 0  # per-rank micro-batches consumed: the position in the data stream
    best_dice: float = -1.0
    best_step: int = -1
    losses: list = field(default_factory=list)  # (step, mean training loss) every log_every steps
    speed: list = field(default_factory=list)  # (step, global samples/s, data wait % of the most starved rank)
    history: list = field(default_factory=list)  # validation results
    shuffle_seed: int | None = None  # fit(): the seed of a shuffling loader's orders (preparation.seed_the_shuffle)
    # fit(): the seed of every pass's loader workers (preparation.seed_this_pass_of_the_workers); a checkpoint
    # of a version that kept none leaves the resumed run its own (the loaded state has no such key)
    worker_seed: int | None = None
    # train(): global samples in one micro-batch (per-device batch x processes) while batches_seen was
    # counted, so that a resume under another batch or number of processes finds the same place
    batch_samples: int | None = None
    epoch_length: int | None = None  # train(): samples in one epoch while batches_seen was counted
    step_samples: int | None = None  # train(): global samples in one optimizer step, to which epochs were cut

    def state_dict(self) -> dict:
        return asdict(self)

    def load_state_dict(self, state: dict) -> None:
        # None: saved before the seventy-second session (batch_samples), the eighty-fifth (the others)
        self.__dict__.update({"batch_samples": None, "epoch_length": None, "step_samples": None, **state})
        for row in self.history:  # named "loss" before the seventy-second session: the step's training loss
            if "loss" in row:
                row["train_loss"] = row.pop("loss")


@dataclass
class LoopSettings:
    max_steps: int  # optimizer steps
    log_every: int = 10
    val_every: int = 0  # 0: never validate
    save_every: int = 0  # 0: the caller saves at the end only
    keep_last: int = 2
    max_grad_norm: float = 0.0  # 0: no clipping
    max_nonfinite_steps: int = 5
    progress_bar: bool = True


@dataclass
class Loop:
    """A prepared run: what ``run_loop`` reads and advances. Everything here went through
    ``accelerator.prepare`` except the schedule (stepped once per optimizer step, see schedule.py)."""

    accelerator: Accelerator
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    loss_fn: Callable
    train_dl: torch.utils.data.DataLoader
    settings: LoopSettings
    checkpoints_dir: Path
    scheduler: torch.optim.lr_scheduler.LRScheduler | None = None
    config_yaml: str = ""  # saved into every checkpoint
    # train's JSON files saved into every checkpoint, by name (checkpoint.save_training_state): its resolved
    # preprocessing, its split and its export's config.json less the step
    records: dict = field(default_factory=dict)
    progress: Progress = field(default_factory=Progress)
    # Called at validation steps with the step's mean training loss (validate, record, export best).
    on_validation: Callable[[float], None] | None = None
    last_saved: int = -1  # step of the newest training state this run wrote or resumed from
    clock: LoopClock = field(default_factory=LoopClock)
    # How the messages of a resume and a Ctrl-C name the caller's settings: FIT_NAMES for fit (until the
    # ninety-first session a fit was told of train.max_steps, train.save_every and --train.init_from)
    names: Names = field(default_factory=Names)
    # The batches from where the last run_loop call stopped, kept so that a further call (the
    # benchmark's blocks) goes on with the same loader workers instead of restarting them.
    stream: BatchStream | None = None


def train(cfg: Config, manifest: Manifest | None = None, *, names: Names = Names(),
          stopped_step_to: Path | None = None) -> dict:
    """Train, validate, checkpoint and export as configured; returns a summary (same on every rank).

    Args:
        cfg: the run configuration.
        manifest: cases given directly (the Python ``Dataset`` builder); default: read ``data.dataset``.
        names: how the messages of the run folder, a stop and a failed save name the caller's settings
            (``ESTIMATOR_NAMES`` for the estimator, which was told of train's until the ninety-second session).
        stopped_step_to: where the main process writes the step Ctrl-C stopped the run after, for the process that
            launched this one (the estimator's launch, ``stopped_step``); None: nowhere.

    Returns:
        what ``summary.json`` holds, plus ``losses`` ((step, mean training loss over the global batch)
        at log steps, as ``fit`` returns them) and ``is_main_process``.

    SIGTERM or SIGUSR1 to any rank (a scheduler's notice before it kills the job) makes every rank
    stop after the same optimizer step, save the training state and return with ``"preempted": True``
    (no ``model/`` export), so the launcher exits 0 and ``--resume latest`` continues.
    """
    # Ctrl-C anywhere, the setup and the final save and export too, ends every rank with one line (interrupted_run)
    with (leaving_the_process_as_found(), surviving_a_closed_output(), PreemptionSignals() as signals,
          contextlib.ExitStack() as run_scope,
          saying_where_to_resume_after_ctrl_c(Path(cfg.train.output_dir) / "checkpoints", names,
                                              stopped_step_to) as so_far):
        run = _configured_run(cfg, manifest, run_scope, names, so_far, signals)
        so_far.set_up(run.loop)
        try:
            preempted = run_loop(run.loop, signals)
        finally:
            _stop_loading(run.loop)
        return _finish(run, preempted)


def fit(model: torch.nn.Module, loader: torch.utils.data.DataLoader, criterion: Callable,
        optimizer: torch.optim.Optimizer, *, max_epochs: int | None = None, max_steps: int | None = None,
        checkpoint_dir: str | Path = "output", scheduler=None, grad_accum_steps: int = 1,
        max_grad_norm: float = 0.0, save_every: int = 0, keep_last: int = 2, log_every: int = 10,
        resume: str | None = None, trackers: str | list[str] | None = "none", progress_bar: bool = True,
        allow_strategy_fallback: bool = False, compile: bool = False, overwrite: bool = False) -> dict:
    """Train your own model, loader, loss and optimizer with the same loop as ``train``.

    Launch it like ``train`` (plain ``python``, or ``accelerate launch`` with any profile): the
    strategy and mixed precision come from the launch. Checkpoints, resume, preemption, gradient
    accumulation and non-finite-step handling behave exactly as in ``train``. There is no
    validation inside: score the exported weights with your own code or ``evaluate``.

    Args:
        model: any ``nn.Module`` mapping ``image`` batches to logits.
        loader: a ``torch.utils.data.DataLoader`` of known length (a map-style dataset, or an
            ``IterableDataset`` with ``__len__``) yielding ``{"image", "label"}`` dicts (MONAI style)
            or ``(image, label)`` pairs, a per-device batch each; accelerate shards it over the
            processes. Its batches are what is trained, unlike ``train``'s whole steps: with several
            processes and no ``drop_last``, accelerate pads the last batch with the epoch's first
            samples (``even_batches``), which then count twice, and a short last batch weighs each of
            its samples more in its accumulation window (``drop_last=True`` avoids both).
        criterion: ``criterion(logits, label)`` -> scalar loss.
        optimizer: built over ``model.parameters()``.
        max_epochs: passes over the loader (per process); or give ``max_steps`` (optimizer steps).
        checkpoint_dir: ``checkpoints/step_N`` training states and the final ``model/model.safetensors``.
        scheduler: an LR scheduler stepped once per optimizer step (not per micro-batch or process).
        grad_accum_steps: micro-batches per optimizer step.
        max_grad_norm: clip the global gradient norm to this (0: no clipping).
        save_every: also save the training state every this many optimizer steps.
        resume: ``"latest"`` or a ``checkpoints/step_N`` folder of an earlier ``fit`` with the same pieces.
        trackers: accelerate tracker names, as ``train.trackers`` (``"tensorboard"``, comma separated
            or a list): the loss, learning rate (with a ``scheduler``), gradient norm and speed every
            ``log_every`` steps, TensorBoard's in ``checkpoint_dir/train/``; ``"none"`` (or None, [])
            logs nothing.
        overwrite: delete an earlier run's checkpoints and export in ``checkpoint_dir`` first; without
            it (or ``resume``) a ``checkpoint_dir`` that holds them is an error, as for ``train``.
        allow_strategy_fallback: as ``train.allow_strategy_fallback``: run even where the launch's
            FSDP/DeepSpeed cannot take effect (an error otherwise).
        compile: ``torch.compile`` the prepared model in place with inductor (as ``train.compile``;
            the launch's ``--dynamo_backend`` also applies). Names and exports are unchanged.

    Returns:
        {"step", "preempted", "output_dir", "model", "losses", "speed", "is_main_process"}; ``speed``:
        (step, global samples/s, data-wait %) at log steps; ``model`` is the
        exported state dict file (full precision, unwrapped: loads into your network strictly).
    """
    check_fit_arguments(model, loader, optimizer, scheduler, max_epochs=max_epochs, max_steps=max_steps,
                        grad_accum_steps=grad_accum_steps, log_every=log_every, keep_last=keep_last,
                        save_every=save_every, max_grad_norm=max_grad_norm)
    out = Path(checkpoint_dir)
    with (leaving_the_process_as_found(), surviving_a_closed_output(), PreemptionSignals() as signals,
          contextlib.ExitStack() as run_scope,
          saying_where_to_resume_after_ctrl_c(out / "checkpoints", FIT_NAMES) as so_far):
        accelerator = _accelerator_holding_the_fit_folder(out, trackers, loader, grad_accum_steps, max_grad_norm,
                                                         allow_strategy_fallback, run_scope, signals, so_far)
        shuffle_seed = seed_the_shuffle(accelerator, loader)
        worker_seed = seed_of_the_workers()
        resume_from, replace = _where_the_fit_starts(accelerator, out, resume, overwrite)
        so_far.starts_from(resume_from)
        model, optimizer, train_dl, aliases = _prepared_for_the_launch(accelerator, model, optimizer, loader, compile)
        if max_steps is None:  # accumulation windows run across epochs (see preparation.make_accelerator)
            max_steps = max(1, max_epochs * len(train_dl) // grad_accum_steps)
        if resume_from is None:  # a resume's schedule is its checkpoint's, whatever was built: checked below
            check_the_schedule_length(scheduler, max_steps)
        delete_earlier_run(accelerator, out, FIT_OUTPUTS, replace)  # overwrite: once nothing can refuse the run
        settings = LoopSettings(max_steps=max_steps, log_every=log_every, save_every=save_every, keep_last=keep_last,
                                max_grad_norm=max_grad_norm, progress_bar=progress_bar)
        loop = _fit_loop(accelerator, model, optimizer, criterion, train_dl, scheduler, settings, out,
                         shuffle_seed, worker_seed)
        saved_settings = _resume_fit(loop, resume_from, out) if resume_from is not None else None
        # Once the resume can no longer be refused, as train() does: a refused resume of an older step
        # had moved the later course's checkpoints and exports aside already.
        set_aside_later_course(accelerator, resume_from, out, FIT_NAMES)
        schedule_the_stepping_optimizer(accelerator, scheduler)
        _start_trackers_with_the_fit_settings(loop, resume_from, saved_settings, grad_accum_steps)
        so_far.set_up(loop)
        try:
            preempted = run_loop(loop, signals)
        finally:
            _stop_loading(loop)
        return _finish_fit(loop, out, aliases, preempted)


def _accelerator_holding_the_fit_folder(out: Path, trackers, loader, grad_accum_steps: int, max_grad_norm: float,
                                        allow_strategy_fallback: bool, run_scope: contextlib.ExitStack,
                                        signals: PreemptionSignals, so_far: RunSoFar) -> Accelerator:
    """fit's Accelerator, holding ``out`` (the run folder's lock, released with ``run_scope``) and set up for
    the launch's strategy, or refused where that strategy cannot take effect; ``signals`` told that the launch's
    processes have met, as train's are; ``so_far`` says a Ctrl-C as they meet, as train's does."""
    check_folder_path(out, FIT_NAMES.folder)  # before the lock makes it
    with ending_on_an_interrupt_in_the_rendezvous(so_far.say_without_an_accelerator):  # it ends there, said
        accelerator = make_accelerator(out, trackers, trackers_setting="fit's trackers")
    signals.recording_from_here()  # SIGTERM is a notice to save from here, no longer an end (checkpoint.py)
    run_scope.enter_context(holding_run_folder(accelerator, out, FIT_NAMES.elsewhere))
    accelerator.gradient_accumulation_steps = grad_accum_steps
    if note := configure_deepspeed(accelerator, _loader_batch_size(loader), grad_accum_steps, max_grad_norm):
        accelerator.print(note.replace("Set those settings", "Give fit's grad_accum_steps and max_grad_norm"))
    check_launch(accelerator, allow_strategy_fallback, FIT_NAMES)
    return accelerator


def _where_the_fit_starts(accelerator: Accelerator, out: Path, resume: str | None,
                          overwrite: bool) -> tuple[Path | None, bool]:
    """(the checkpoint the fit resumes from, None for a new run; whether an earlier run in ``out`` is replaced),
    as every rank agrees. A checkpoint of train's, or one this launch cannot load, is refused here."""
    resume_from, replace = resume_or_replace(out, resume, overwrite, names=FIT_NAMES, marker=None,
                                             outputs=FIT_OUTPUTS)
    if resume_from is not None:  # before the preparation and the load, which refused it by its tensors' names
        with gone_if_rotated_away(resume_from, FIT_NAMES):
            refuse_a_train_checkpoint_in_fit(resume_from)
            check_resume_layout(resume_from, accelerator, FIT_NAMES)  # files this launch cannot load
    check_the_ranks_agree_on_the_start(accelerator, resume_from, replace, FIT_NAMES.folder)
    return resume_from, replace


def _prepared_for_the_launch(accelerator: Accelerator, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                             loader: torch.utils.data.DataLoader, compile: bool) -> tuple:
    """(the model, optimizer and loader as ``accelerator.prepare`` returns them, the model compiled where asked;
    the names of the model's shared tensors, taken while it was plain, for its export). A loader that yields no
    batch on each process is refused."""
    compiling = checked_settings(accelerator, CompileConfig(enabled=compile), FIT_NAMES)
    aliases = shared_tensor_names(model)  # while it is plain (export_model)
    expect_shared_tensors(aliases)
    adapt_to_strategy(accelerator, model)
    spare_the_workers(loader)  # a preemption signal to the process group must not end them
    keep_the_optimizer_under_offload(accelerator, optimizer)
    model, optimizer, train_dl = accelerator.prepare(model, optimizer, loader)
    if len(train_dl) == 0:  # here, before an overwritten run's outputs are deleted
        raise ConfigError(f"fit: the loader yields no batches on each of the {accelerator.num_processes} "
                          f"process(es): it holds fewer samples than one batch (with drop_last) per process")
    compile_prepared(accelerator, model, compiling)
    return model, optimizer, train_dl, aliases


def _fit_loop(accelerator: Accelerator, model: torch.nn.Module, optimizer: torch.optim.Optimizer, criterion: Callable,
              train_dl: torch.utils.data.DataLoader, scheduler, settings: LoopSettings, out: Path,
              shuffle_seed: int | None, worker_seed: int | None) -> Loop:
    """The Loop of the prepared pieces, its progress (with the seeds of the loader's orders and workers) and the
    scheduler saved in every checkpoint."""
    loop = Loop(accelerator, model, optimizer, criterion, train_dl, settings, out / "checkpoints", scheduler=scheduler,
                names=FIT_NAMES)
    loop.progress.shuffle_seed, loop.progress.worker_seed = shuffle_seed, worker_seed
    accelerator.register_for_checkpointing(*([scheduler] if scheduler is not None else []), loop.progress)
    return loop


def _resume_fit(loop: Loop, resume_from: Path, out: Path) -> dict | None:
    """Load fit's checkpoint into the loop and check its schedule; returns the settings it was saved with."""
    given = param_group_settings(loop.optimizer, scheduled=loop.scheduler is not None)
    saved_settings = saved_fit_settings(resume_from)  # before the load, after which it may go (keep_last)
    resume_the_loop(loop, resume_from)
    if loop.progress.shuffle_seed is not None:  # the orders the interrupted run drew
        loop.train_dl.get_sampler().initial_seed = loop.progress.shuffle_seed
    check_the_schedule_length(loop.scheduler, loop.settings.max_steps, resume_from)  # its state holds its own length
    if note := loaded_optimizer_note(loop, resume_from, given, out):
        loop.accelerator.print(note)
    return saved_settings


def _start_trackers_with_the_fit_settings(loop: Loop, resume_from: Path | None, saved_settings: dict | None,
                                          grad_accum_steps: int) -> None:
    """Keep fit's settings in its checkpoints, say which of them a resume changed, and start the trackers."""
    hparams = fit_hparams(loop.model, loop.optimizer, loop.accelerator, loop.settings, grad_accum_steps)
    # fit has no config.yaml: its checkpoints save these for a resume to compare its own with, as train's
    # config; until the ninetieth session fit's resumes said and noted no change
    loop.records[FIT_SETTINGS_FILE] = hparams
    changed = fit_settings_changed(saved_settings, hparams) if resume_from is not None else None
    if changed:  # fit.max_steps too: train says its length apart (with its schedule), fit nowhere else
        # by fit's keywords (max_steps), not the trackers' names (fit.max_steps) said until the ninety-second session
        loop.accelerator.print(changed_settings_note(resume_from, changed, FIT_NAMES))
    start_trackers(loop.accelerator, hparams, first_step=loop.progress.step + 1, resume_from=resume_from,
                   changed=changed)


def _finish_fit(loop: Loop, out: Path, aliases: dict[str, str], preempted: bool) -> dict:
    """Save the last state, export the final model (none after a preemption), close the trackers; fit's summary."""
    accelerator = loop.accelerator
    if loop.last_saved != loop.progress.step:
        save_training_state(accelerator, loop.checkpoints_dir, loop.progress.step, loop.settings.keep_last,
                            loop.config_yaml, loop.records, loop.names)
    if preempted:
        _say_where_a_preempted_run_goes_on(loop)
    else:
        export_model(accelerator, loop.model, None, {}, out / "model", aliases=aliases, step=loop.progress.step,
                     names=loop.names)
    end_run(accelerator)
    return {"step": loop.progress.step, "preempted": preempted, "output_dir": str(out),
            "model": str(out / "model" / "model.safetensors"), "losses": loop.progress.losses,
            "speed": loop.progress.speed,
            "is_main_process": accelerator.is_main_process}


def _stop_loading(loop: Loop) -> None:
    """The run has drawn its last batch: stop the loader's workers now rather than at exit (their
    queues would otherwise outlive the run: ``data.workers.stop_workers``)."""
    if loop.stream is not None:
        loop.stream.close()
        loop.stream = None


def run_loop(loop: Loop, signals: PreemptionSignals | None = None) -> bool:
    """Train until ``loop.settings.max_steps`` optimizer steps; returns True if stopped by preemption.

    Continues from ``loop.progress`` (a resumed run, or an earlier call with a lower ``max_steps``):
    the data stream is positioned by ``batches_seen``, and an earlier call's stream (``loop.stream``)
    goes on where it stopped, with the loader's workers still running.
    """
    accelerator, model, optimizer, progress, settings = (loop.accelerator, loop.model, loop.optimizer,
                                                         loop.progress, loop.settings)
    say = accelerator.print
    if signals is not None:
        signals.saving_from_here()
    if loop.stream is None or loop.stream.position != progress.batches_seen:
        loop.stream = BatchStream(accelerator, loop.train_dl, progress.batches_seen, progress.worker_seed)
    stream = loop.stream
    window_loss = torch.zeros((), device=accelerator.device)  # summed over the window's micro-batches
    step_lr = None  # the learning rate of the last optimizer step (with a scheduler)
    signalled = torch.zeros((), device=accelerator.device)  # 1 once this rank got SIGTERM/SIGUSR1
    samples_per_step = accelerator.gradient_accumulation_steps * accelerator.num_processes
    nonfinite_in_a_row, preempted = 0, False
    bar = tqdm(total=settings.max_steps, initial=progress.step,
               disable=not (accelerator.is_main_process and settings.progress_bar))
    clock = loop.clock
    clock.restart()  # time between calls (resume, a benchmark's other loop) is not this loop's
    input_dtype = model_input_dtype(accelerator, model)
    engine_steps_in_backward = accelerator.distributed_type == DistributedType.DEEPSPEED
    on_the_cpu = accelerator.device.type == "cpu"
    model.train()
    if progress.step < settings.max_steps:
        for batch in clock.timed(stream):
            progress.batches_seen += 1
            image, label = _image_and_label(batch)
            clock.count(image.shape[0])
            if input_dtype is not None:
                image = image.to(input_dtype)
            with accelerator.accumulate(model):
                # In float32, as accelerate's autocast returns logits. No name keeps the logits: held
                # until the next step's forward, they would add one logits tensor to its peak.
                loss = loop.loss_fn(model(image).float(), label)
                window_loss += loss.detach()  # a NaN or inf in any micro-batch leaves the sum non-finite
                if accelerator.sync_gradients:
                    # One collective per optimizer step: every rank learns whether any rank saw a
                    # non-finite loss, so all of them skip (or take) the same step and none waits
                    # forever, and whether any rank was signalled to stop, so all of them stop after
                    # the same step. Started before backward and read after it is queued (below).
                    signalled.fill_(signals is not None and signals.received is not None)  # fill_: no sync
                    totals = SumOverRanks(torch.stack([window_loss, signalled]))
                    window_loss.zero_()
                accelerator.backward(loss)  # divides by the accumulation steps; all-reduces on the last one
                if not accelerator.sync_gradients:
                    continue
                # The one host sync per optimizer step. It waits for the forward and the collective,
                # not for the backward just queued: the GPU works through the backward while the
                # host queues clipping, the optimizer and the next forward.
                loss_sum, ranks_signalled = totals.values()
                preempted = ranks_signalled > 0  # a skipped step below stops at the next one (the flag stays set)
                # Non-finite on any rank: the sum is too (finite fp32 losses of any sane size do not
                # overflow it), so one number carries both the loss and the verdict.
                if not math.isfinite(loss_sum):
                    nonfinite_in_a_row = _skip_step(loop, nonfinite_in_a_row, "non-finite loss on some rank")
                    continue
                # DeepSpeed clipped inside accelerator.backward (its engine steps there); its norm is
                # read at log steps only, since reading it is a host sync (_log_step).
                grad_norm = None if engine_steps_in_backward else accelerator.clip_grad_norm_(
                    model.parameters(), settings.max_grad_norm or math.inf)
                # Gradients NaN or infinite under a finite loss, checked where the read waits for nothing:
                # on the CPU. oneDNN's bf16 convolution gradient over 2-voxel volumes returned garbage (up
                # to 1e36, inf) in up to 18% of calls (cpu_bf16_two_voxels_2cpu.json), and one such step
                # made every weight NaN (sixty-eighth session). On a GPU the read would wait for the
                # backward every step; fp16 has its scaler.
                if on_the_cpu and grad_norm is not None and not math.isfinite(grad_norm):
                    nonfinite_in_a_row = _skip_step(loop, nonfinite_in_a_row,
                                                    f"gradient norm {float(grad_norm)} under a finite loss")
                    continue
                nonfinite_in_a_row = 0
                optimizer.step()
                if accelerator.optimizer_step_was_skipped:
                    # fp16: the gradients overflowed at this loss scale, so the scaler (DeepSpeed's
                    # engine, in its step) lowered the scale and left the weights as they were. Not a
                    # step: the schedule and the count wait for the next real one. (A host read of a
                    # flag the scaler's own sync already set.)
                    optimizer.zero_grad(set_to_none=True)
                    # the step tried, as _skip_step names it (docs/checkpoints.md, "What "step N" means")
                    say(f"step {progress.step + 1}: fp16 gradients overflowed at this loss scale; update skipped, "
                        f"scale lowered")
                    continue
                if loop.scheduler is not None:
                    # The rate this step trained at, for the log, read where the step read it (the
                    # scheduler's own record is stale just after a resume with a new optim.lr). The
                    # next line sets the next step's, which was logged until the seventieth session:
                    # the first warm-up rate never showed, and the last point was a rate no step used.
                    step_lr = loop.scheduler.optimizer.param_groups[0]["lr"]
                    loop.scheduler.step()
                optimizer.zero_grad(set_to_none=True)
            progress.step += 1
            bar.update(1)
            mean_loss = loss_sum / samples_per_step
            last_step = progress.step == settings.max_steps
            with clock.paused():  # not training time: logging, validation, checkpoints
                if progress.step % settings.log_every == 0 or last_step:
                    _log_step(loop, mean_loss, grad_norm, step_lr)
                    bar.set_postfix(loss=f"{mean_loss:.4f}")
                if loop.on_validation and settings.val_every and (progress.step % settings.val_every == 0 or last_step):
                    loop.on_validation(mean_loss)
                    model.train()
                if settings.save_every and progress.step % settings.save_every == 0:
                    save_training_state(accelerator, loop.checkpoints_dir, progress.step, settings.keep_last,
                                        loop.config_yaml, loop.records, loop.names)
                    loop.last_saved = progress.step
            if progress.step >= settings.max_steps or preempted:
                break
    bar.close()
    return preempted and progress.step < settings.max_steps  # signalled at the last step: just finish


def _skip_step(loop: Loop, in_a_row: int, why: str) -> int:
    """Drop this step's gradients and say so; ``in_a_row`` + 1, or ``TrainingDiverged`` at
    ``train.max_nonfinite_steps`` skipped steps in a row (fit's words, ``loop.names``, for fit: it was told of
    train.save_every and optim.lr until the ninety-first session)."""
    loop.optimizer.zero_grad(set_to_none=True)
    in_a_row += 1
    # The step tried, which the next window tries again: every other "step N" is the N-th optimizer step taken (the
    # interrupt's line, step_N, the trackers' and metrics.json's points). The one before it was named until the
    # hundred-and-seventh session: "step 2: ... skipped" beside step 2's logged loss and its checkpoint step_2.
    loop.accelerator.print(f"step {loop.progress.step + 1}: {why}, step skipped "
                           f"({in_a_row}/{loop.settings.max_nonfinite_steps} in a row)")
    if in_a_row >= loop.settings.max_nonfinite_steps:
        try:
            saved = complete_checkpoints(loop.checkpoints_dir)
        except OSError as error:  # said in place of a checkpoint, not raised over the divergence
            where = f"{unreadable_folder(loop.checkpoints_dir, error)}, so no checkpoint is named"
        else:
            where = (f"the last good checkpoint is kept in {saved[-1]}" if saved else
                     f"no checkpoint was saved before ({loop.names.setting('train.save_every')})")
        raise TrainingDiverged(f"the loss or the gradients were non-finite for {counted(in_a_row, 'optimizer step')} "
                               f"in a row; "
                               f"{where}. Lower {loop.names.rate} or check the data.")
    return in_a_row


def _image_and_label(batch):
    """A batch as (image, label): our loaders' dicts, or a user's (image, label) pairs.

    Anything else is the loader given to ``fit`` (a KeyError or an unpacking error from here before);
    every rank's loader yields the same structure, so every rank stops alike.
    """
    if isinstance(batch, dict) and "image" in batch and "label" in batch:
        if "affine" in batch:  # data.augment_on=gpu: the spatial augmentation runs here, on the device
            return apply_affine(batch["image"], batch["label"], batch["affine"])
        return batch["image"], batch["label"]
    if isinstance(batch, (list, tuple)) and len(batch) == 2:
        image, label = batch
        return image, label
    got = (f"dicts with the keys {sorted(map(str, batch))}" if isinstance(batch, dict) else
           f"{type(batch).__name__}s of {len(batch)} items" if isinstance(batch, (list, tuple)) else
           f"batches of type {type(batch).__name__}")
    raise ConfigError(f"fit: the loader yields {got}; each batch must be a dict with 'image' and 'label' (MONAI's "
                      f"keys; rename them, e.g. with monai.transforms.CopyItemsd) or an (image, label) pair")


def _log_step(loop: Loop, mean_loss: float, grad_norm, step_lr: float | None) -> None:
    progress = loop.progress
    if grad_norm is None and loop.accelerator.distributed_type == DistributedType.DEEPSPEED:
        grad_norm = loop.model.get_global_grad_norm()  # the engine's, before its clipping (None before a step)
    values = {"train/loss": mean_loss,
              **({"train/grad_norm": float(grad_norm)} if grad_norm is not None else {}),
              **({"train/lr": step_lr} if step_lr is not None else {}),
              **rank_figures(loop)}
    loop.accelerator.log(values, step=progress.step)
    progress.losses.append((progress.step, mean_loss))
    progress.speed.append((progress.step, values["train/samples_per_s"], values["train/data_wait_pct"]))


def _loader_batch_size(loader) -> int:
    return loader.batch_size or getattr(loader.batch_sampler, "batch_size", 1)


# --------------------------------------------------------------------------------------------------
# train(cfg): the run described by a Config
# --------------------------------------------------------------------------------------------------


@dataclass
class ConfiguredRun:
    cfg: Config
    loop: Loop
    spec: ModelSpec
    plan: BatchPlan
    manifest: Manifest
    export_meta: dict
    out: Path
    aliases: dict[str, str]  # shared_tensor_names of the plain network (export_model)


def _configured_run(cfg: Config, manifest: Manifest | None, run_scope: contextlib.ExitStack,
                    names: Names = Names(), so_far: RunSoFar | None = None,
                    signals: PreemptionSignals | None = None) -> ConfiguredRun:
    """Everything up to the first step: accelerator, batch plan, data, model, prepare, resume; the
    folder's lock goes into ``run_scope``, which train leaves when the run ends. ``names``: train's;
    ``so_far``: told where the run starts, for an interrupt's line; ``signals``: told when the launch's processes
    have met (SIGTERM's end until then: ``PreemptionSignals``)."""
    cfg = check_values(cfg)  # a Config built in Python (the estimator) has not been through load_config
    out = Path(cfg.train.output_dir)
    built = _checks_before_anything_is_written(cfg, manifest, out, names)
    # What the run reads must survive train.overwrite's deletion of an earlier run: the description's
    # path now, the case files it lists once they are known (_checked_cases).
    data = manifest.files() if manifest is not None else [dataset_source(cfg.data, out)]
    # The lock first, then what the folder holds, as fit does: a second run started while the first
    # was importing read the first one's checkpoints as "an earlier run" and was offered resume and
    # overwrite, not told the folder is in use (seventy-third session's probe)
    accelerator = _accelerator_holding_the_run_folder(cfg, out, built, run_scope, names, signals, so_far)
    resume_from, replace = _where_the_run_starts(cfg, accelerator, out, data, names)
    if so_far is not None:
        so_far.starts_from(resume_from)
    as_given = cfg  # what unused_settings_warnings judges: the settings the run resolves below were not given
    cfg = _with_the_augmentation_placed(cfg, accelerator, names)
    # The number of processes is known only now (the Accelerator reads the launch environment, e.g.
    # ACCELERATE_USE_CPU for gloo DDP); the batch plan and accumulation follow from it.
    num_processes = accelerator.num_processes
    plan, deepspeed_note = _batch_plan(cfg, accelerator, num_processes)
    compiling = _launch_settings_checked(cfg, accelerator, names)
    accelerator.print(plan.describe())
    for warning in (warmup_warning(cfg.optim, cfg.train.max_steps, plan.lr, names), zero_lr_warning(cfg.optim, names)):
        if warning:
            accelerator.print(warning)
    set_seed(cfg.train.seed)  # same initial weights on every rank

    # What the cases decide (channels, classes, split) is known once they are checked; everything
    # that can still refuse the run is checked then, before the preprocessing reads every volume.
    given = manifest is not None  # cases given in Python, which no config names (cached_tables' hint)
    manifest, settings, unit, checked = _checked_cases(cfg, as_given, accelerator, manifest, out, resume_from,
                                                       replace, names)
    _check_the_validation_settings(cfg, manifest, names)
    patches, cut = checked_epoch(cfg, accelerator, manifest, plan, num_processes, names)
    # the network for the data's channels and outputs, and its loss (a class weight per class), before the
    # preprocessing, as accelerated-seg check --config checks them. Its forward pass is here, not with the
    # constructor's check before anything is written: it needs the per-device batch (a batch norm over one
    # patch of a one-voxel bottleneck fails where two train), which needs the processes: the Accelerator
    # knows them, and once it is made the run folder's lock is taken, before the phantoms are written
    spec, loss_fn = checked_network_and_loss(
        cfg, manifest, plan.per_device * (num_processes if cfg.train.sync_batchnorm else 1), built, names)
    _network_notes(cfg, accelerator, spec, manifest, settings, plan, resume_from, names)
    starting = cfg if resume_from is None else dataclasses.replace(  # a resume's weights: the checkpoint's
        cfg, train=dataclasses.replace(cfg.train, init_from=None))
    model, aliases, trained_alone = model_for_strategy(starting, spec, accelerator, run_scope, names)
    train_table, val_table = cached_tables(cfg, accelerator, manifest, settings, run_scope, given=given, names=names)
    _table_warnings(cfg, accelerator, manifest, settings, train_table, val_table, names)
    train_set = patch_dataset(train_table, cfg.data, seed=cfg.train.seed, ignore_index=manifest.ignore_index)
    optimizer, scheduler = _optimizer_and_schedule(cfg, accelerator, model, trained_alone, plan)
    micro_batch = plan.per_device * num_processes
    epochs = epochs_per_pass(cfg, plan, patches, cut, micro_batch)
    model, optimizer, train_dl = accelerator.prepare(
        model, optimizer, train_loader(train_set, plan.per_device, cfg.data.num_workers, cfg.train.seed,
                                       epochs_per_pass=epochs, processes=num_processes,
                                       pin_memory=accelerator.device.type == "cuda", accumulation=cut // micro_batch))
    compile_prepared(accelerator, model, compiling)
    # The network is built (alike on every rank), so each rank's stochastic layers (dropout, drop path)
    # now draw from a stream of their own: seeded alike, every rank drew the same masks for its other
    # samples (eighty-fifth session's probe). A resume puts each rank's saved state back over this.
    torch.manual_seed(layer_seed(cfg.train.seed, accelerator.process_index))
    t = cfg.train
    loop = Loop(accelerator, model, optimizer, loss_fn.to(accelerator.device), train_dl,
                LoopSettings(max_steps=t.max_steps, log_every=t.log_every, val_every=t.val_every,
                             save_every=t.save_every, keep_last=t.keep_last, max_grad_norm=cfg.optim.max_grad_norm,
                             max_nonfinite_steps=t.max_nonfinite_steps, progress_bar=t.progress_bar),
                out / "checkpoints", scheduler=scheduler, config_yaml=dump_config(cfg),
                records={PREPROCESSING_FILE: settings.to_dict(), SPLIT_FILE: manifest.split_record()}, names=names)
    loop.progress.batch_samples, loop.progress.epoch_length = plan.per_device * num_processes, train_set.epoch_length
    loop.progress.step_samples = cut
    accelerator.register_for_checkpointing(scheduler, loop.progress)
    run = ConfiguredRun(cfg, loop, spec, plan, manifest, export_metadata(cfg, manifest, settings, unit), out,
                        aliases)
    loop.records[EXPORT_DESCRIPTION_FILE] = {"model": spec.to_dict(), **run.export_meta}
    if val_table is not None:
        _validating_on(run, val_table, run_scope)
    # read before the load: once loaded, the checkpoint may go (its run's rotation), and its length with it
    saved_length = saved_max_steps(resume_from) if resume_from is not None else None
    changed = resume_the_loop(loop, resume_from) if resume_from is not None else None
    if resume_from is not None:
        continue_the_data_stream(loop, train_set.epoch_length, micro_batch, cut)
    schedule_the_stepping_optimizer(accelerator, scheduler)
    if resume_from is not None:  # on the optimizer that steps, hence after the line above
        continue_with_the_runs_settings(scheduler, plan.lr)
        if note := another_length_note(saved_length, cfg, plan.lr, loop.progress.step, names):
            accelerator.print(note)
    # train.overwrite: only now, when nothing is left that could refuse the run.
    delete_earlier_run(accelerator, out, TRAIN_OUTPUTS, replace)
    on_main(accelerator, checked.keep_records)  # and the cases that passed the checks are recorded
    set_aside_later_course(accelerator, resume_from, out, names)
    if resume_from is not None:  # after the set-aside, which may take best_model/ away
        choose_the_best_anew_where_its_export_is_gone(accelerator, loop.progress, out, resume_from,
                                                       cfg.train.max_steps, names)
    if resume_from is not None and saved_length not in (None, cfg.train.max_steps):
        changed = {**changed, "train.max_steps": (saved_length, cfg.train.max_steps)}  # printed apart (the schedule)
    if accelerator.is_main_process:
        resumes = resumes_of_the_course(resume_from, loop.progress.step, changed) if resume_from is not None else []
        write_run_info(out, loop.config_yaml, plan, manifest, accelerator, deepspeed_note, resumes)
    start_trackers(accelerator, flat_hparams(cfg), first_step=loop.progress.step + 1, resume_from=resume_from,
                   changed=changed)
    return run


def _checks_before_anything_is_written(cfg: Config, manifest: Manifest | None, out: Path, names: Names):
    """Refuse what the settings alone refuse, before anything is written; returns network_before_writing's network."""
    refuse_unguarded_main(cfg.data.num_workers)  # first: in a loader worker, nothing of the run may start again
    check_model_settings(cfg.model.name, cfg.data.patch_size, cfg.model.args, names)  # not after the data work
    check_init_into(cfg.train, names)
    if not cfg.train.resume:  # a resume's checkpoint carries the weights on (resume_or_replace finds one or refuses)
        check_a_new_runs_initial_weights(cfg, names)  # before train.overwrite's deletion and the data work
    check_head_only_steps(cfg.train, names)
    check_folder_path(cache_root(cfg.data), names.setting("data.cache_dir"))  # the run folder's: below
    check_folder_path(out, names.folder)  # before the lock makes it
    # the data's channels and classes, where known before anything is written, against model.args and
    # train.loss_args, and MONAI's constructor on model.args: refused once the phantoms were written into
    # the new run folder, before (the counts until the ninety-second session, the constructor the ninety-third)
    return network_before_writing(cfg, counts_before_writing(cfg.data, out, manifest), names)


def _accelerator_holding_the_run_folder(cfg: Config, out: Path, built, run_scope: contextlib.ExitStack,
                                        names: Names, signals: PreemptionSignals | None,
                                        so_far: RunSoFar | None) -> Accelerator:
    """Make the Accelerator and take the run folder's lock (into ``run_scope``), the first thing written; ``signals``
    told, once it is made, that the launch's processes have met. A Ctrl-C as they meet, where no Python handler runs,
    ends the process, ``so_far`` saying its line (``interrupt_in_the_rendezvous``): it waited for the agent's SIGKILL,
    30 s, until the hundred-and-ninth session."""
    say = so_far.say_without_an_accelerator if so_far is not None else lambda: None
    with ending_on_an_interrupt_in_the_rendezvous(say):
        accelerator = make_accelerator(out, cfg.train.trackers, cfg.train.ddp, cfg.train.cudnn_benchmark)
    if signals is not None:  # SIGTERM is a notice to save from here, no longer an end (checkpoint.PreemptionSignals)
        signals.recording_from_here()
    for warning in network_warnings(built.spec, cfg.model.args, names):  # before the lock writes the folder
        accelerator.print(f"warning: {warning}")
    run_scope.enter_context(holding_run_folder(accelerator, out, names.elsewhere))
    return accelerator


def _where_the_run_starts(cfg: Config, accelerator: Accelerator, out: Path, data: list[Path],
                          names: Names) -> tuple[Path | None, bool]:
    """Decide whether the run resumes a checkpoint (refusing one its settings do not match, or whose files
    this launch cannot load) or replaces a run."""
    resume_from, replace = resume_or_replace(out, cfg.train.resume, cfg.train.overwrite, names=names,
                                             reads=paths_read(cfg.train.init_from, data, cache_root(cfg.data)))
    if resume_from is not None:  # before the data work; resume_the_loop checks them again
        with gone_if_rotated_away(resume_from, names):  # a checkpoint of another run that trains on
            check_resume_settings(resume_from, dump_config(cfg), names)  # first: it says a fit's checkpoint so
            check_resume_length(resume_from, cfg.train.max_steps, names)
            check_resume_model_settings(resume_from, cfg.model.name, cfg.data.patch_size, cfg.model.args, names)
            # files this launch cannot load (another strategy, ZeRO stage, world size, DeepSpeed's bf16):
            # refused after the preprocessing and accelerate's prepare until the ninety-sixth session
            check_resume_layout(resume_from, accelerator, names)
        if cfg.train.init_from:
            # The command that started a fine-tuning run, repeated with --resume latest (what every
            # message says after a stop, and what a requeued SLURM job runs), was refused until the
            # seventy-seventh session: the checkpoint carries on from those weights, not loaded again.
            accelerator.print(f"resuming {resume_from}: its weights carry on, and {names.setting('train.init_from')} "
                              f"{cfg.train.init_from} is not loaded again")
    check_the_ranks_agree_on_the_start(accelerator, resume_from, replace, names.folder)
    return resume_from, replace


def _with_the_augmentation_placed(cfg: Config, accelerator: Accelerator, names: Names) -> Config:
    """Decide where data.augment_on=auto resamples on this device; returns the Config that says it."""
    # data.augment_on=auto becomes what runs on this device, and the saved config.yaml says which.
    placed = place_spatial_augmentation(cfg.data.augment_on, accelerator.device)
    if placed == "gpu" and accelerator.device.type != "cuda" and cfg.data.augment != "none":
        # Asked for, so run as asked (tests and comparisons use it); said, since it moves the
        # resampling from the loader workers into the training process (a probe found it silent)
        accelerator.print(f"note: {names.setting('data.augment_on')}: gpu on a {accelerator.device.type} device "
                          f"resamples the patches in the training process, not in the loader workers (auto: cpu here)")
    return dataclasses.replace(cfg, data=dataclasses.replace(cfg.data, augment_on=placed))


def _batch_plan(cfg: Config, accelerator: Accelerator, num_processes: int) -> tuple[BatchPlan, str | None]:
    """Decide the batch plan and accumulation for these processes; returns it and DeepSpeed's note (said)."""
    plan = resolve_batch(cfg.train.batch_size, cfg.train.global_batch_size, cfg.train.grad_accum_steps,
                         num_processes, cfg.optim.lr, cfg.optim.base_batch_size, cfg.optim.lr_scaling)
    accelerator.gradient_accumulation_steps = plan.accum_steps
    if deepspeed_note := configure_deepspeed(accelerator, plan.per_device, plan.accum_steps,
                                             cfg.optim.max_grad_norm):
        accelerator.print(deepspeed_note)
    return plan, deepspeed_note


def _launch_settings_checked(cfg: Config, accelerator: Accelerator, names: Names):
    """Refuse a strategy, compile, layout or loss setting this launch cannot run; returns the compile settings."""
    check_launch(accelerator, cfg.train.allow_strategy_fallback, names)
    compiling = checked_settings(accelerator, cfg.train.compile, names)  # a bad setting fails here, before the data work
    # so does a layout it cannot shard, said by the caller's name for it (the estimator's channels_last=True)
    if cfg.train.channels_last and (error := channels_last_error(accelerator, names.setting("train.channels_last"))):
        raise ConfigError(error)
    segmentation_loss(cfg.train.loss, cfg.train.loss_args)  # so does a loss argument (losses.py)
    return compiling


def _checked_cases(cfg: Config, as_given: Config, accelerator: Accelerator, manifest: Manifest | None, out: Path,
                   resume_from: Path | None, replace: bool, names: Names):
    """Check the cases against the overwrite, the resume and the settings; returns checked_data's four."""
    manifest, settings, unit, checked = checked_data(cfg, accelerator, manifest)
    if replace:  # every rank decided `replace` before anything was deleted, so all raise alike
        check_reads_survive(out, manifest.files())
    if resume_from is not None:  # before the volumes are preprocessed under settings it would refuse
        check_resume_data(accelerator, resume_from, settings, manifest, out, names,
                          spacing_set=cfg.data.spacing is not None)
    if warning := unused_split_settings_warning(manifest):
        accelerator.print(warning)
    for warning in unused_settings_warnings(as_given, settings.normalization, manifest.ignore_value is not None,
                                            names):
        accelerator.print(warning)
    return manifest, settings, unit, checked


def _check_the_validation_settings(cfg: Config, manifest: Manifest, names: Names) -> None:
    """Refuse validation asked of cases that hold none out (distances on labels annotated in part are measured
    on the cases annotated in full, since the ninety-third session: they were refused)."""
    if not manifest.validation and cfg.train.val_every:
        # Dataset.fit's in its keywords (validation_fraction, val_every=0) since the ninety-second session
        way = ways_to_validation_cases(manifest, names.setting("data.validation_fraction"),
                                       names.setting("data.num_folds"))
        raise ConfigError(f"the dataset has no validation cases ({manifest.split}), but "
                          f"{names.set_to('train.val_every', cfg.train.val_every)}: set "
                          f"{names.set_to('train.val_every', 0)} to train without validation, or {way}")


def _network_notes(cfg: Config, accelerator: Accelerator, spec: ModelSpec, manifest: Manifest,
                   settings: PreprocessSettings, plan: BatchPlan, resume_from: Path | None, names: Names) -> None:
    """Warn of bf16 on CPU and of initial weights made for other data; refuse a CPU step host memory cannot hold."""
    if accelerator.device.type == "cpu" and accelerator.mixed_precision == "bf16":  # the meta pass only then
        thin = convolutions_over_two_voxels(spec, cfg.data.patch_size)
        if warning := bf16_two_voxel_warning("cpu", "bf16", thin, cfg.data.patch_size,
                                             names.setting("data.patch_size"), names.fp32):
            accelerator.print(f"warning: {warning}")
    if accelerator.device.type == "cpu":
        on_main(accelerator,
                lambda: check_the_step_fits_host_memory(cfg, accelerator, manifest, plan.per_device, names))
    if cfg.train.init_from and resume_from is None and (
            note := initial_weights_preparation_note(cfg.train.init_from, settings.to_dict(), manifest.channels,
                                                     names)):
        accelerator.print(note)
    if cfg.train.init_from and resume_from is None and (
            warning := class_order_warning(cfg.train.init_from, manifest.labels, manifest.regions is not None, names)):
        accelerator.print(warning)


def _table_warnings(cfg: Config, accelerator: Accelerator, manifest: Manifest, settings: PreprocessSettings,
                    train_table: dict, val_table: dict | None, names: Names) -> None:
    """Warn of what the preprocessed cases show: a patch longer than every case, outputs that no case holds."""
    if warning := patch_padding_warning(cfg.data.patch_size, train_table["shape"], settings.spacing,
                                        network_takes=network_takes_patch(cfg.model.name, cfg.model.args,
                                                                          manifest.num_channels,
                                                                          manifest.num_outputs),
                                        names=names):
        accelerator.print(warning)
    scored = val_table["class_voxels"] if val_table is not None and cfg.train.val_every else None
    for warning in class_presence_warnings(output_names(manifest), manifest.class_regions,
                                           train_table["class_voxels"], scored, settings.spacing):
        accelerator.print(warning)


def _optimizer_and_schedule(cfg: Config, accelerator: Accelerator, model: torch.nn.Module, trained_alone,
                            plan: BatchPlan):
    """Build the optimizer over the network's parameter groups, kept under offload, and its LR schedule."""
    optimizer = build_optimizer(parameter_groups(model, trained_alone), cfg.optim, plan.lr)
    keep_the_optimizer_under_offload(accelerator, optimizer)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_multipliers(cfg.optim, cfg.train.max_steps,
                                                                            cfg.train.head_only_steps))
    return optimizer, scheduler


def _validating_on(run: ConfiguredRun, val_table: dict, run_scope: contextlib.ExitStack) -> None:
    """Have the loop validate on these validation cases, and let go of the run when ``run_scope`` ends."""
    val_set = VolumeDataset(val_table)
    loop = run.loop
    loop.on_validation = lambda mean_loss: _validate_and_record(run, val_set, mean_loss)
    # The lambda holds the run, which holds the loop: a cycle that kept each finished run's
    # Accelerator, network and optimizer (on a GPU, their memory) until the garbage collector's
    # next pass, so a notebook's next fit could start beside them (seventy-eighth session's probe).
    run_scope.callback(setattr, loop, "on_validation", None)


def _finish(run: ConfiguredRun, preempted: bool) -> dict:
    """Save the last state, export the final model, write the summary."""
    accelerator, progress, out = run.loop.accelerator, run.loop.progress, run.out
    if run.loop.last_saved != progress.step:
        save_training_state(accelerator, run.loop.checkpoints_dir, progress.step, run.cfg.train.keep_last,
                            run.loop.config_yaml, run.loop.records, run.loop.names)
    if preempted:  # the scheduler's grace period is short: the training state is what matters, no export
        _say_where_a_preempted_run_goes_on(run.loop)
    else:
        export_model(accelerator, run.loop.model, run.spec, run.export_meta, out / "model", aliases=run.aliases,
                     step=run.loop.progress.step, names=run.loop.names)
    validated = progress.best_step >= 0  # null, not the -1 the loop compares against, when it never validated
    summary = {"step": progress.step, "preempted": preempted, "best_dice": progress.best_dice if validated else None,
               "best_step": progress.best_step if validated else None,
               "global_batch": run.plan.global_batch, "lr": run.plan.lr,
               "strategy": strategy_in_effect(accelerator), "output_dir": os.path.abspath(out),  # as config.yaml
               # medians over the log windows (the first includes warm-up or compilation)
               "samples_per_s": _median([rate for _, rate, _ in progress.speed]),
               "data_wait_pct": _median([wait for _, _, wait in progress.speed]),
               # every rank's peak, so an unbalanced rank shows (a collective: gathered on all ranks)
               "peak_memory_gb": gather_object([peak_memory_gb(accelerator.device)])}
    if accelerator.is_main_process:
        write_text_atomically(out / "summary.json", json.dumps(summary, indent=1))
    write_metrics(accelerator, out, progress)
    end_run(accelerator)  # closes the trackers; the process group stays for a next run
    return {**summary, "losses": progress.losses, "is_main_process": accelerator.is_main_process}


def _say_where_a_preempted_run_goes_on(loop: Loop) -> None:
    """What a run stopped by a scheduler's signal says once its state is saved: where, and the ways on in the
    caller's words (``loop.names``). Until the ninety-second session a fit said nothing, and the estimator
    was told to run the same command with --train.resume=latest."""
    step, names = loop.progress.step, loop.names
    model = names.model_of_the_state.format(folder=loop.checkpoints_dir.parent, step=step)
    loop.accelerator.print(
        f"preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step {step} and the training state "
        f"is saved in {loop.checkpoints_dir / f'step_{step}'}: {names.resume_again} to continue, or {model}.")


def _median(values: list) -> float | None:
    return float(np.median(values)) if values else None


# --------------------------------------------------------------------------------------------------
# Validation steps: the scores (validation.py) recorded, logged, and the best model exported
# --------------------------------------------------------------------------------------------------


def _validate_and_record(run: ConfiguredRun, val_set: VolumeDataset, train_loss: float) -> None:
    cfg, loop = run.cfg, run.loop
    accelerator, progress = loop.accelerator, loop.progress
    regions = run.manifest.class_regions
    scores = validate(accelerator, loop.model, val_set, cfg.data.patch_size, run.manifest.num_classes,
                      sw_batch_size=cfg.train.sw_batch_size, overlap=cfg.train.sw_overlap,
                      distances=cfg.train.val_distances, tolerance_mm=cfg.train.val_tolerance_mm, regions=regions,
                      ignore_index=run.manifest.ignore_index)
    names = (regions.names if regions is not None
             else [run.manifest.labels[c] for c in range(1, run.manifest.num_classes)])
    mean, per_class = validation_means(scores, names)  # HD95 and surface Dice with train.val_distances
    empty_cases = empty_case_counts(names, scores, sparse=run.manifest.ignore_index is not None)
    if mean > progress.best_dice:
        progress.best_dice, progress.best_step = mean, progress.step
    progress.history.append({"step": progress.step, "train_loss": train_loss, "mean_dice": mean,
                             "cases": len(scores["dice"]),
                             **per_class, **empty_cases})
    # A tracker plots numbers; a metric with no finite case is in metrics.json (null) and the line below.
    accelerator.log({"val/mean_dice": mean, **{f"val/{k}": v for k, v in per_class.items() if v is not None}},
                    step=progress.step)
    if accelerator.is_local_main_process:  # as accelerator.print; tqdm.write, or it joined the bar's line
        tqdm.write(f"step {progress.step}: validation mean Dice {mean:.4f} "
                   + " ".join(f"{k}={'n/a' if v is None else f'{v:.4f}'}" for k, v in per_class.items())
                   + empty_cases_note(names, empty_cases, len(scores["dice"])))
    write_metrics(accelerator, run.out, progress)
    if progress.best_step == progress.step:
        export_model(accelerator, loop.model, run.spec, run.export_meta, run.out / "best_model",
                     aliases=run.aliases, step=progress.step, names=loop.names)
