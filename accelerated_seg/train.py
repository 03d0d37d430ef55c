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
training benchmark, so that it times this loop as training sets it up. ``train``'s start from its Config, phase by
phase, and its end are configured_run.py's; what the loop reads and advances (``Loop``, its settings, its
``Progress``) is loop_state.py's. Each of the loop's other ideas is a module of its own: the loader's batches as one
stream (batch_stream.py), the step's one collective (sum_over_ranks.py), the run folder across the ranks
(run_folder_ranks.py), a checkpoint loaded into the loop (resume.py), what the run records (run_records.py), fit's
arguments (fit_checks.py), the figures every rank logs (rank_figures.py), what a preempted run says
(preempted_run.py) and what an interrupted run says, from its setup to its export (interrupted_run.py).
"""

from __future__ import annotations

import contextlib
import math
from pathlib import Path
from typing import Callable

import torch
from accelerate import Accelerator
from accelerate.utils import DistributedType
from tqdm.auto import tqdm

from .batch_stream import BatchStream
from .checkpoint import PreemptionSignals, complete_checkpoints, save_training_state
from .checkpoint_files import gone_if_rotated_away
from .closed_output import surviving_a_closed_output
from .compilation import checked_settings, compile_prepared
from .config import CompileConfig, Config, ConfigError
from .configured_run import ConfiguredRun, configured_run, finish_run
from .data.gpu_augment import apply_affine
from .data.manifest import Manifest
from .data.workers import spare_the_workers
from .dropped_interrupts import interrupts_kept
from .exported_model import expect_shared_tensors, export_model, shared_tensor_names
from .fit_checks import check_fit_arguments, check_the_schedule_length
from .interrupt_in_the_rendezvous import ending_on_an_interrupt_in_the_rendezvous
from .interrupted_run import RunSoFar, saying_where_to_resume_after_ctrl_c
from .loop_state import Loop, LoopSettings, Progress
from .model_folders import FIT_NAMES, Names, callers_names, unreadable_folder
from .optimizers import param_group_settings
from .preempted_run import say_where_a_preempted_run_goes_on
from .preparation import (adapt_to_strategy, check_launch, end_run, keep_the_optimizer_under_offload,
                          leaving_the_process_as_found, make_accelerator, model_input_dtype,
                          schedule_the_stepping_optimizer, seed_of_the_workers, seed_the_shuffle, start_trackers)
from .rank_figures import rank_figures
from .resume import loaded_optimizer_note, resume_the_loop
from .resume_config_changes import (FIT_SETTINGS_FILE, changed_settings_note, fit_settings_changed,
                                    refuse_a_train_checkpoint_in_fit, saved_fit_settings)
from .resume_network_and_data import check_resume_layout
from .run_folder import FIT_OUTPUTS, check_folder_path, resume_or_replace
from .run_folder_ranks import (check_the_ranks_agree_on_the_start, delete_earlier_run, holding_run_folder,
                               set_aside_later_course)
from .run_records import fit_hparams
from .strategy import configure_deepspeed
from .sum_over_ranks import SumOverRanks
from .wording import counted

# Every public class and function defined here before the hundred-and-eleventh session moved train's setup from its
# Config into configured_run.py and the loop's state into loop_state.py is still importable from here; the private
# phases and what they imported (cached_tables, checked_data, ...) are configured_run's, where a test patches them.
__all__ = ["TrainingDiverged", "Progress", "LoopSettings", "Loop", "ConfiguredRun", "train", "fit", "run_loop"]


class TrainingDiverged(RuntimeError):
    """The loss stayed non-finite for ``train.max_nonfinite_steps`` optimizer steps in a row."""


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
        # The setup, from the settings' checks through the processes' meeting to the first step: a Ctrl-C that a
        # finalizer drops there (importlib's module-lock callback as a module imports) is kept and raised, where it
        # was lost, the rank going on (dropped_interrupts.py); the loop, and what it says of a stop, are its own
        with interrupts_kept():
            run = configured_run(cfg, manifest, run_scope, names, so_far, signals)
        so_far.set_up(run.loop)
        try:
            preempted = run_loop(run.loop, signals)
        finally:
            _stop_loading(run.loop)
        return finish_run(run, preempted)


def fit(model: torch.nn.Module, loader: torch.utils.data.DataLoader, criterion: Callable,
        optimizer: torch.optim.Optimizer, *, max_epochs: int | None = None, max_steps: int | None = None,
        checkpoint_dir: str | Path = "output", scheduler=None, grad_accum_steps: int = 1,
        max_grad_norm: float = 0.0, save_every: int = 0, keep_last: int = 2, log_every: int = 10,
        resume: str | None = None, trackers: str | list[str] | None = "none", progress_bar: bool = True,
        allow_strategy_fallback: bool = False, compile: bool = False, overwrite: bool = False,
        names: Names | dict | None = None) -> dict:
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
        names: the words fit's messages (a stop's line, the run folder's refusals) say its ways on in, where a
            script's user does not write fit's keywords: a dict of ``model_folders.Names``' fields over fit's
            own (``{"resume_again": "run the same command with --resume latest"}``, as
            ``examples/fit_your_own.py`` gives), or a ``Names``; None: fit's keywords (``resume='latest'``).

    Returns:
        {"step", "preempted", "output_dir", "model", "losses", "speed", "is_main_process"}; ``speed``:
        (step, global samples/s, data-wait %) at log steps; ``model`` is the
        exported state dict file (full precision, unwrapped: loads into your network strictly).
    """
    check_fit_arguments(model, loader, optimizer, scheduler, max_epochs=max_epochs, max_steps=max_steps,
                        grad_accum_steps=grad_accum_steps, log_every=log_every, keep_last=keep_last,
                        save_every=save_every, max_grad_norm=max_grad_norm)
    names = callers_names(names, FIT_NAMES, "fit")
    out = Path(checkpoint_dir)
    with (leaving_the_process_as_found(), surviving_a_closed_output(), PreemptionSignals() as signals,
          contextlib.ExitStack() as run_scope,
          saying_where_to_resume_after_ctrl_c(out / "checkpoints", names) as so_far):
        accelerator = _accelerator_holding_the_fit_folder(out, trackers, loader, grad_accum_steps, max_grad_norm,
                                                         allow_strategy_fallback, run_scope, signals, so_far)
        shuffle_seed = seed_the_shuffle(accelerator, loader)
        worker_seed = seed_of_the_workers()
        resume_from, replace = _where_the_fit_starts(accelerator, out, resume, overwrite, names)
        so_far.starts_from(resume_from)
        model, optimizer, train_dl, aliases = _prepared_for_the_launch(accelerator, model, optimizer, loader, compile,
                                                                       names)
        if max_steps is None:  # accumulation windows run across epochs (see preparation.make_accelerator)
            max_steps = max(1, max_epochs * len(train_dl) // grad_accum_steps)
        if resume_from is None:  # a resume's schedule is its checkpoint's, whatever was built: checked below
            check_the_schedule_length(scheduler, max_steps)
        delete_earlier_run(accelerator, out, FIT_OUTPUTS, replace)  # overwrite: once nothing can refuse the run
        settings = LoopSettings(max_steps=max_steps, log_every=log_every, save_every=save_every, keep_last=keep_last,
                                max_grad_norm=max_grad_norm, progress_bar=progress_bar)
        loop = _fit_loop(accelerator, model, optimizer, criterion, train_dl, scheduler, settings, out,
                         shuffle_seed, worker_seed, names)
        saved_settings = _resume_fit(loop, resume_from, out) if resume_from is not None else None
        # Once the resume can no longer be refused, as train() does: a refused resume of an older step
        # had moved the later course's checkpoints and exports aside already.
        set_aside_later_course(accelerator, resume_from, out, names)
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
    check_folder_path(out, so_far.names.folder)  # before the lock makes it; so_far's names are fit's names=
    with ending_on_an_interrupt_in_the_rendezvous(so_far.say_without_an_accelerator):  # it ends there, said
        accelerator = make_accelerator(out, trackers, trackers_setting="fit's trackers")
    signals.recording_from_here()  # SIGTERM is a notice to save from here, no longer an end (checkpoint.py)
    run_scope.enter_context(holding_run_folder(accelerator, out, so_far.names.elsewhere))
    accelerator.gradient_accumulation_steps = grad_accum_steps
    if note := configure_deepspeed(accelerator, _loader_batch_size(loader), grad_accum_steps, max_grad_norm):
        accelerator.print(note.replace("Set those settings", "Give fit's grad_accum_steps and max_grad_norm"))
    check_launch(accelerator, allow_strategy_fallback, so_far.names)
    return accelerator


def _where_the_fit_starts(accelerator: Accelerator, out: Path, resume: str | None, overwrite: bool,
                          names: Names) -> tuple[Path | None, bool]:
    """(the checkpoint the fit resumes from, None for a new run; whether an earlier run in ``out`` is replaced),
    as every rank agrees. A checkpoint of train's, or one this launch cannot load, is refused here, in ``names``."""
    resume_from, replace = resume_or_replace(out, resume, overwrite, names=names, marker=None, outputs=FIT_OUTPUTS)
    if resume_from is not None:  # before the preparation and the load, which refused it by its tensors' names
        with gone_if_rotated_away(resume_from, names):
            refuse_a_train_checkpoint_in_fit(resume_from)
            check_resume_layout(resume_from, accelerator, names)  # files this launch cannot load
    check_the_ranks_agree_on_the_start(accelerator, resume_from, replace, names.folder)
    return resume_from, replace


def _prepared_for_the_launch(accelerator: Accelerator, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                             loader: torch.utils.data.DataLoader, compile: bool, names: Names) -> tuple:
    """(the model, optimizer and loader as ``accelerator.prepare`` returns them, the model compiled where asked;
    the names of the model's shared tensors, taken while it was plain, for its export). A loader that yields no
    batch on each process is refused."""
    compiling = checked_settings(accelerator, CompileConfig(enabled=compile), names)
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
              shuffle_seed: int | None, worker_seed: int | None, names: Names) -> Loop:
    """The Loop of the prepared pieces, its progress (with the seeds of the loader's orders and workers) and the
    scheduler saved in every checkpoint; its messages in ``names``."""
    loop = Loop(accelerator, model, optimizer, criterion, train_dl, settings, out / "checkpoints", scheduler=scheduler,
                names=names)
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
        loop.accelerator.print(changed_settings_note(resume_from, changed, loop.names))
    start_trackers(loop.accelerator, hparams, first_step=loop.progress.step + 1, resume_from=resume_from,
                   changed=changed)


def _finish_fit(loop: Loop, out: Path, aliases: dict[str, str], preempted: bool) -> dict:
    """Save the last state, export the final model (none after a preemption), close the trackers; fit's summary."""
    accelerator = loop.accelerator
    if loop.last_saved != loop.progress.step:
        save_training_state(accelerator, loop.checkpoints_dir, loop.progress.step, loop.settings.keep_last,
                            loop.config_yaml, loop.records, loop.names)
    if preempted:
        say_where_a_preempted_run_goes_on(loop)
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


