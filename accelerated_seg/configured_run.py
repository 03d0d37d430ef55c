"""``train(cfg)``'s run from its Config: everything up to the first step (``configured_run``: the accelerator,
the batch plan, the data checked and cached, the network, ``accelerator.prepare``, a resume), what its validation
steps record, and its end (``finish_run``: the last save, the export, the summary). ``train`` (train.py) runs the
loop between the two. In train.py until the hundred-and-eleventh session, which left there the loop, its two entry
points (``train``, ``fit``) and fit's start from the pieces its caller built.

``configured_run`` names the phases of a run's start; each of the run's other ideas is a module of its own: the cases
across the ranks (training_data.py), the run folder across the ranks (run_folder_ranks.py), a checkpoint loaded into
the loop (resume.py), what the run records (run_records.py), whether a CPU run's step fits the host's memory
(cpu_step_fit.py), a validation's scores (validation.py), what a preempted run says (preempted_run.py) and what an
interrupted run says, from its setup to its export (interrupted_run.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from accelerate import Accelerator
from accelerate.utils import gather_object, set_seed
from tqdm.auto import tqdm

from .checkpoint import PREPROCESSING_FILE, SPLIT_FILE, PreemptionSignals, save_training_state
from .checkpoint_files import EXPORT_DESCRIPTION_FILE, gone_if_rotated_away
from .compilation import checked_settings, compile_prepared
from .config import Config, ConfigError, check_values, dump_config
from .cpu_step_fit import check_the_step_fits_host_memory
from .data.class_presence import class_presence_warnings, output_names
from .data.gpu_augment import place_spatial_augmentation
from .data.loader import VolumeDataset, patch_dataset, train_loader
from .data.manifest import Manifest
from .data.patch_fit import patch_padding_warning
from .data.prepare import cache_root, counts_before_writing, dataset_source
from .data.preprocess import PreprocessSettings
from .data.splits import unused_split_settings_warning, ways_to_validation_cases
from .data.workers import refuse_unguarded_main
from .exported_model import export_model
from .files import write_text_atomically
from .host_cpu import bf16_two_voxel_warning
from .initial_weights import (check_a_new_runs_initial_weights, check_head_only_steps, check_init_into,
                              class_order_warning, initial_weights_preparation_note)
from .interrupt_in_the_rendezvous import ending_on_an_interrupt_in_the_rendezvous
from .interrupted_run import RunSoFar
from .loop_state import Loop, LoopSettings
from .losses import segmentation_loss
from .model_folders import Names
from .models import (ModelSpec, check_model_settings, convolutions_over_two_voxels, network_takes_patch,
                     network_warnings)
from .network_checks import checked_network_and_loss, network_before_writing
from .optimizers import build_optimizer, continue_with_the_runs_settings, parameter_groups
from .preempted_run import say_where_a_preempted_run_goes_on
from .preparation import (channels_last_error, check_launch, end_run, keep_the_optimizer_under_offload, layer_seed,
                          make_accelerator, model_for_strategy, schedule_the_stepping_optimizer, start_trackers)
from .rank_figures import peak_memory_gb
from .ranks import on_main
from .resume import continue_the_data_stream, resume_the_loop
from .resume_config_changes import (another_length_note, check_resume_length, check_resume_settings,
                                    resumes_of_the_course, saved_max_steps)
from .resume_network_and_data import check_resume_data, check_resume_layout, check_resume_model_settings
from .run_folder import TRAIN_OUTPUTS, check_folder_path, check_reads_survive, paths_read, resume_or_replace
from .run_folder_ranks import (check_the_ranks_agree_on_the_start, choose_the_best_anew_where_its_export_is_gone,
                               delete_earlier_run, holding_run_folder, set_aside_later_course)
from .run_records import export_metadata, flat_hparams, write_metrics, write_run_info
from .schedule import BatchPlan, lr_multipliers, resolve_batch, warmup_warning, zero_lr_warning
from .strategy import configure_deepspeed, strategy_in_effect
from .training_data import cached_tables, checked_data, checked_epoch, epochs_per_pass
from .unused_settings import unused_settings_warnings
from .validation import empty_case_counts, empty_cases_note, validate, validation_means


@dataclass
class ConfiguredRun:
    """A run set up from its Config: its loop, and what its validation steps and its end (``finish_run``) read."""

    cfg: Config
    loop: Loop
    spec: ModelSpec
    plan: BatchPlan
    manifest: Manifest
    export_meta: dict
    out: Path
    aliases: dict[str, str]  # shared_tensor_names of the plain network (export_model)


def configured_run(cfg: Config, manifest: Manifest | None, run_scope: contextlib.ExitStack,
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
    manifest, settings, unit, median, checked = _checked_cases(cfg, as_given, accelerator, manifest, out, resume_from,
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
    run = ConfiguredRun(cfg, loop, spec, plan, manifest, export_metadata(cfg, manifest, settings, unit, median), out,
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
    """Check the cases against the overwrite, the resume and the settings; returns checked_data's five."""
    manifest, settings, unit, median, checked = checked_data(cfg, accelerator, manifest)
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
    return manifest, settings, unit, median, checked


def _check_the_validation_settings(cfg: Config, manifest: Manifest, names: Names) -> None:
    """Refuse validation asked of cases that hold none out (distances on labels annotated in part are measured
    on the cases annotated in full, since the ninety-third session: they were refused)."""
    if not manifest.validation and cfg.train.val_every:
        # Dataset.fit's in its keywords (validation_fraction, val_every=0) since the ninety-second session
        way = ways_to_validation_cases(manifest, names.setting("data.validation_fraction"),
                                       names.setting("data.num_folds"))
        raise ConfigError(f"the dataset has no validation cases ({manifest.split}), but "
                          f"{names.set_to('train.val_every', cfg.train.val_every)}: "
                          f"{names.to_set('train.val_every', 0)} to train without validation, or {way}")


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


def finish_run(run: ConfiguredRun, preempted: bool) -> dict:
    """Save the last state, export the final model, write the summary."""
    accelerator, progress, out = run.loop.accelerator, run.loop.progress, run.out
    if run.loop.last_saved != progress.step:
        save_training_state(accelerator, run.loop.checkpoints_dir, progress.step, run.cfg.train.keep_last,
                            run.loop.config_yaml, run.loop.records, run.loop.names)
    if preempted:  # the scheduler's grace period is short: the training state is what matters, no export
        say_where_a_preempted_run_goes_on(run.loop)
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
    if not preempted:
        # the run folder named: a finished run said nothing of where it wrote, and a folder given by its relative
        # name (the only way to a folder named in Latin-1 on the command line, until the hundred-and-twenty-third
        # session) was named only as given, in a resume's line. Last, once metrics.json is written: said after the
        # export, it came before a run that then failed to write it (a full disk), until that session's review.
        accelerator.print(f"trained to step {progress.step}: the model is in {Path(out).absolute() / 'model'}, its "
                          f"checkpoints, config.yaml and metrics.json in {Path(out).absolute()}")
    return {**summary, "losses": progress.losses, "is_main_process": accelerator.is_main_process}


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
