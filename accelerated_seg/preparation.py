"""The Accelerator and the network as each strategy needs them, for ``train``, ``fit`` and the
training benchmark alike, so that the benchmark measures the loop training really runs.

- ``make_accelerator``: the project's Accelerator settings (accumulation across epochs, non-blocking
  copies, the DDP options, no compilation by accelerate, trackers checked by name).
- ``check_launch``: refuse a launch whose strategy cannot take effect here, before anything is written.
- ``channels_last_error``: ``train.channels_last`` under a strategy that cannot shard such weights.
- ``seed_the_shuffle``: ``fit``'s shuffling loaders get an order a resume can repeat.
- ``layer_seed``: each rank's stochastic layers (dropout, drop path) draw from a stream of their own.
- ``model_for_strategy`` / ``adapt_to_strategy``: the registry network's starting weights and the
  changes FSDP and DeepSpeed need before ``prepare`` (wrapping.py does each of them); under FSDP
  without a sync from rank 0, ``check_the_ranks_start_alike``.
- ``keep_the_optimizer_under_offload``: ZeRO's optimizer offload steps the optimizer the run built.
- ``schedule_the_stepping_optimizer``: after ``prepare``, the scheduler drives the optimizer that steps.
- ``model_input_dtype``: the dtype a prepared DeepSpeed engine needs its input in.
- ``start_trackers``: a run's trackers started with its settings, a resumed run's TensorBoard curve
  without doubled points.
- ``end_run``: a run's trackers closed, its process group kept for the next run of the process.
- ``leaving_the_process_as_found``: what a run changes for the whole process, put back after it.

The network code (models.py) knows nothing of processes; what a strategy needs is added here.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
import random
import weakref
from pathlib import Path

import numpy as np
import torch
from accelerate import Accelerator
from accelerate.utils import (DataLoaderConfiguration, DistributedDataParallelKwargs, DistributedType,
                               GradientAccumulationPlugin, LoggerType, broadcast_object_list)

from .accelerate_workarounds import (look_up_lomo_once, quiet_deepspeeds_cpu_guess,
                                     quiet_deepspeeds_deprecated_collectives, replay_cpu_adams_step_count,
                                     skip_deepspeeds_shared_memory_op)
from .config import Config, ConfigError, DDPConfig, tracker_names
from .exported_model import expect_shared_tensors, shared_tensor_names
from .files import by_a_utf8_name, is_utf8
from .fsdp2_views import check_fsdp2_units, quiet_view_warnings
from .host_cpu import emulated_bf16_warning
from .initial_weights import load_initial_weights
from .model_folders import Names
from .models import ModelSpec, build_from_spec, output_layer_names
from .norm_layout import instance_norms_as_group_norms
from .strategy import (construction_error, fallback_warning, forget_the_last_accelerator,
                       honour_fsdp1_sharding, join_deepspeed_ranks_over_gloo, json_switching_on,
                       lone_process_warning, requested_strategy, strategy_in_effect)
from .tensorboard_settings import (record_changed_settings, record_settings, set_aside_earlier_run,
                                   start_in_a_later_second)
from .weights_file import PartLoaded, check_part, load_weights_into, outside_part
from .wrapping import (check_fsdp1_wrappable, checkpoint_blocks, convert_sync_batchnorm, fill_fsdp_wrap_classes,
                       fsdp2_valid_units_only, fsdp_mixed_precision, mark_zero3_leaf_blocks, size_deepspeed_buckets)
from .wording import counted


def make_accelerator(out: Path, trackers, ddp: DDPConfig | None = None, cudnn_benchmark: bool = True,
                     trackers_setting: str = "train.trackers") -> Accelerator:
    """The Accelerator of ``train``, ``fit`` and the training benchmark alike; ``trackers`` as
    ``_trackers`` reads them, ``trackers_setting`` how the caller's user names them (fit: ``trackers``)."""
    if error := construction_error():  # one clear error instead of accelerate's traceback
        raise ConfigError(error)
    forget_the_last_accelerator()  # this run's precision, not the previous fit's in the same process
    if requested_strategy() == "DeepSpeed":  # before accelerate starts DeepSpeed's process group
        skip_deepspeeds_shared_memory_op()  # an op for inference only, compiled for minutes on a CPU
        quiet_deepspeeds_deprecated_collectives()  # not torch's deprecation notice at every ZeRO-3 step
    join_deepspeed_ranks_over_gloo()  # several DeepSpeed ranks on CPUs, as on GPUs
    look_up_lomo_once()  # not a sys.path search in every optimizer step
    quiet_deepspeeds_cpu_guess()  # not a "no GPU found" WARNING in a CPU run's progress bar
    ddp = ddp or DDPConfig()
    log_with = _trackers(trackers, trackers_setting)
    accelerator = Accelerator(
        # Accumulation windows run across epoch boundaries, so no window is ever cut short and every
        # sample weighs the same (accelerate's default forces a step at the end of each epoch).
        gradient_accumulation_plugin=GradientAccumulationPlugin(num_steps=1, sync_with_dataloader=False),
        # Host-to-GPU copies of pinned batches overlap with compute (a no-op on the CPU).
        dataloader_config=DataLoaderConfiguration(non_blocking=True),
        kwargs_handlers=[DistributedDataParallelKwargs(
            bucket_cap_mb=ddp.bucket_cap_mb if ddp.bucket_cap_mb is not None else 25,
            gradient_as_bucket_view=ddp.gradient_as_bucket_view, static_graph=ddp.static_graph)],
        log_with=log_with, project_dir=str(out),
        # accelerate's own compile renames the state dict; compilation.py compiles in place instead
        # and takes the launch's dynamo settings over.
        dynamo_backend="no",
    )
    if accelerator.device.type == "cuda":  # cuDNN autotuning pays off with a fixed patch shape
        torch.backends.cudnn.benchmark = cudnn_benchmark
        # The peak memory logged and in summary.json is this run's: a second run in the process (a
        # notebook, folds one after another) reported the first one's until the seventy-seventh session.
        torch.cuda.reset_peak_memory_stats(accelerator.device)
    if missing := _uninstalled_trackers(log_with):
        which, it = ("which is", "it") if len(missing) == 1 else ("which are", "them")
        accelerator.print(f"warning: {trackers_setting} names {', '.join(missing)}, {which} not installed here, "
                          f"so nothing is logged to {it} ({tracker_install_hint(missing)})")
    return accelerator


def start_trackers(accelerator: Accelerator, hparams: dict, first_step: int, resume_from: Path | None = None,
                   changed: dict | None = None) -> None:
    """Start the trackers ``make_accelerator`` was given (their logs under ``<out>/train/``), for a run
    whose first logged step is ``first_step``, resumed from the checkpoint ``resume_from`` if any, and
    give them the run's settings, ``hparams``; a resume's settings ``changed`` from its checkpoint's
    (``{key: (saved, now)}``) are noted too.

    A run killed after its last checkpoint had logged the steps beyond it, and its resume logs them
    again: TensorBoard drew those steps twice, the killed course's points beside the resumed ones
    (sixty-ninth session). ``purge_step`` starts the new log with a restart marker that hides every
    earlier point from ``first_step`` on, as TensorBoard's readers apply it; nothing is deleted. (A run
    that does not continue its folder's log, a new one among them, finds no earlier points there: that
    log is set aside first.) Other trackers keep their own runs: a resume is a new run in them.

    The project is "train" for every tracker (TensorBoard's folder under the run's); W&B and MLflow
    runs are named after the run's folder, and W&B keeps its local files in that folder, unless the
    environment says otherwise (WANDB_NAME, WANDB_DIR), which explicit arguments would override.
    Without them they were W&B's generated names, and its files went into the working directory
    (seventy-sixth session's probe). MLflow's experiment is "train" unless MLFLOW_EXPERIMENT_NAME
    names another, in the store MLFLOW_TRACKING_URI names (MLflow's default store otherwise).

    TensorBoard takes the settings in the run's own log, beside its metrics, rather than in runs of
    their own as accelerate writes them (tensorboard_settings, which also says why a run that does not
    continue its folder's log, any but a resume of this folder's checkpoint, first sets it aside).
    """
    folder = Path(accelerator.project_dir)
    name = folder.resolve().name  # resolved: "." has no name
    wandb = {key: value for key, value, variable in (("name", name, "WANDB_NAME"), ("dir", str(folder), "WANDB_DIR"))
             if not os.environ.get(variable)}
    continues_the_log = (resume_from is not None  # a checkpoint of this folder's run: its log goes on
                         and Path(resume_from).resolve().parent == (folder / "checkpoints").resolve())
    writes_tensorboard = LoggerType.TENSORBOARD in accelerator.log_with and accelerator.is_main_process
    if not continues_the_log and writes_tensorboard and (aside := set_aside_earlier_run(folder / "train")):
        # TensorBoard keeps what it read of a run: a server left running cannot be told the log moved
        accelerator.print(f"the TensorBoard log of an earlier run in {folder}, which this run does not continue, "
                          f"is kept in {aside}; a TensorBoard server started before this run shows that run's "
                          f"settings for {folder / 'train'} until it is restarted")
    if writes_tensorboard:
        start_in_a_later_second(folder / "train")  # its event file is read after those already there
    logging_dir = accelerator.project_configuration.logging_dir
    if writes_tensorboard and not is_utf8(str(logging_dir)):
        # TensorBoard takes a path in UTF-8 alone: a run folder named in Latin-1 ended in its UnicodeEncodeError
        # traceback here until the hundred-and-twenty-third session. Its writer opens the log by the folder's
        # /proc/self/fd name (files.by_a_utf8_name), held open while the accelerator lives; the path is put back.
        held = contextlib.ExitStack()
        accelerator.project_configuration.logging_dir = held.enter_context(by_a_utf8_name(logging_dir))
        weakref.finalize(accelerator, held.close)
    try:
        accelerator.init_trackers("train", init_kwargs={
            "tensorboard": {"purge_step": first_step}, "wandb": wandb, "mlflow": {"run_name": name}})
    finally:
        accelerator.project_configuration.logging_dir = logging_dir
    for tracker in accelerator.trackers:  # what init_trackers(config=hparams) does, but for TensorBoard
        if tracker.name != "tensorboard":
            tracker.store_init_configuration(hparams)
        elif accelerator.is_main_process:  # the only process with a writer
            record_settings(tracker.writer, hparams, first_step)
            if changed:
                record_changed_settings(tracker.writer, changed, first_step)


def end_run(accelerator: Accelerator) -> None:
    """The end of one run (``train``, ``fit``): its trackers are closed; the process group is kept.

    accelerate's ``end_training`` also destroys the process group, while accelerate's state goes on
    saying that there is one, so the next run in the same launched process (the next fold of a
    k-fold script, a second ``fit`` under one ``accelerate launch``) failed in its first collective
    with torch's "Default process group has not been initialized". The group is destroyed when the
    process exits instead (a launched rank that ``cli.end_process`` ends skips that, as it skips the
    rest of the interpreter's shutdown).
    """
    for tracker in accelerator.trackers:
        tracker.finish()
    _destroy_the_process_group_at_exit()


@contextlib.contextmanager
def leaving_the_process_as_found():
    """Put back what a run (``train``, ``fit``) changes for the whole process once it ends, returned,
    raised or interrupted, for the code that runs after it in the same process (a notebook, a search
    over settings, a k-fold script):

    - the global random generators (Python's, NumPy's, torch's CPU one, and CUDA's where CUDA was in
      use before the run), which the run seeds with ``train.seed`` so that every rank builds the same
      weights, and a resume sets to the checkpoint's: a random search that drew its next learning
      rate after each fit drew the same one every time (seventy-eighth session's probe);
    - ``torch.backends.cudnn.benchmark``, which ``make_accelerator`` sets for the run;
    - accelerate's state as it was before the run (every Accelerator object shares it): none, where
      the caller had made no Accelerator, so that one made after a bf16 fit takes its own precision
      (``Accelerator(mixed_precision="no")`` raised "AcceleratorState has already been initialized and
      cannot be changed"); the caller's own, where it had, so that its ``accelerator.device`` still
      answers (the run empties that state as it starts; the process group, in PartialState, is kept).
    """
    from accelerate.state import AcceleratorState, GradientState

    python_state, numpy_state, torch_state = random.getstate(), np.random.get_state(), torch.get_rng_state()
    cuda_states = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    cudnn_benchmark = torch.backends.cudnn.benchmark
    accelerate_states = dict(AcceleratorState._shared_state), dict(GradientState._shared_state)
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)
        torch.set_rng_state(torch_state)
        if cuda_states is not None:
            torch.cuda.set_rng_state_all(cuda_states)
        torch.backends.cudnn.benchmark = cudnn_benchmark
        forget_the_last_accelerator()
        AcceleratorState._shared_state.update(accelerate_states[0])
        GradientState._shared_state.update(accelerate_states[1])


@functools.cache  # registered once, however many runs the process makes
def _destroy_the_process_group_at_exit() -> None:
    atexit.register(destroy_process_group)


def destroy_process_group() -> None:
    """Destroy the default process group if there is one."""
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


def _trackers(names, setting: str = "train.trackers") -> list[str] | None:
    """The accelerate trackers that ``names`` gives (``config.tracker_names``), None for none, checked by the
    installed accelerate's own ``LoggerType``: config's list is one release's, and an older accelerate's lacking a
    name there was its bare ValueError, a newer one's tracker refused, until review r116."""
    return tracker_names(names, setting, LoggerType.list()) or None


def tracker_install_hint(missing: list[str]) -> str:
    """How to install the missing trackers: tensorboard through our extra, the others by their names (a
    missing wandb was told to install accelerated-seg[tensorboard] before the seventy-third session)."""
    return "pip install " + " ".join("accelerated-seg[tensorboard]" if name == "tensorboard" else name
                                     for name in missing)


def _uninstalled_trackers(names: list[str] | None) -> list[str]:
    """Named trackers whose package is missing: accelerate leaves them out, and warns only when no
    tracker at all is left (a Python warning, which a launch's output easily hides)."""
    from accelerate.tracking import get_available_trackers

    available = {str(tracker) for tracker in get_available_trackers()}
    return [name for name in names or () if name != "all" and name not in available]


# accelerate trains fp16 on a CPU (autocast and a gradient scaler there), but torch's CPU fp16
# convolutions are a slow path: measured on an x86 CPU without fp16 instructions; the x86 CPUs that
# have them (AVX512-FP16, AMX-FP16) have bf16 ones too. bf16 is the CPU's reduced precision, without
# loss scaling. predict and benchmark train refuse fp16 off CUDA likewise.
CPU_FP16_REFUSAL = (
    "mixed precision fp16 on the CPU: torch has no fast fp16 convolutions there (a training step of the "
    "default U-Net took 15-24x fp32's time on an AVX-512 CPU, benchmarks/results/cpu_fp16_2cpu.json), and "
    "bf16 is the CPU's reduced precision, with no loss scaling to tune. Launch with --mixed_precision bf16 "
    "(native on CPUs with AVX512-BF16 or AMX) or --mixed_precision no; in a notebook, "
    "Segmentation(precision='bf16') or 'fp32' (fit's own precision is the launch's); "
    "under DeepSpeed with a json (deepspeed_config_file), its fp16.enabled decides, whatever the launch says. "
    "fp16 is for GPUs.")


def check_launch(accelerator: Accelerator, allow_fallback: bool, names: Names = Names()) -> None:
    """Refuse a launch that cannot work as asked (or only many times slower: fp16 on a CPU), before
    anything is written; state the strategy in effect, and warn of what works but not as the user
    would expect (a strategy fallen back, bf16 emulated). Processes accelerate did not join are
    refused before this, where the run folder's lock would be taken (``run_folder_ranks.holding_run_folder``).
    ``names``: how the caller sets allow_strategy_fallback (the config's key, fit's and the estimator's keyword)."""
    if accelerator.device.type == "cpu" and accelerator.mixed_precision == "fp16":
        # a DeepSpeed json's fp16 block named as its own field, not as a precision the launch asked for
        json_file = json_switching_on("fp16")
        raise ConfigError(CPU_FP16_REFUSAL if json_file is None else
                          f"fp16.enabled is true in the DeepSpeed json {json_file}, which asks for {CPU_FP16_REFUSAL} "
                          f"Set it false (or \"auto\", to take the launch's precision), or switch bf16 on there")
    sharding_note = honour_fsdp1_sharding(accelerator)  # before the line that says what runs
    accelerator.print(f"strategy: {strategy_in_effect(accelerator)}")
    if sharding_note:
        accelerator.print(f"note: {sharding_note}")
    if warning := lone_process_warning(accelerator):
        accelerator.print(f"warning: {warning}")
    if warning := fallback_warning(accelerator):
        if not allow_fallback:
            # the command line's words name fit's keyword too, said to both until the ninety-second session; a script
            # with no flag for it names its own call (set_in), told the estimator's keyword until the 128th session
            allowed = names.to_set("train.allow_strategy_fallback", True) + (
                " (fit: allow_strategy_fallback=True)" if names.prefix else "")
            raise ConfigError(f"{warning} Use a profile that works here (configs/accelerate/cpu.yaml, or ddp.yaml "
                              f"with ACCELERATE_USE_CPU=true), or {allowed} to run anyway.")
        accelerator.print(f"warning: {warning}")
    if warning := emulated_bf16_warning(accelerator.device.type, accelerator.mixed_precision,
                                        fp32="; ".join(filter(None, (names.fp32, names.predict_fp32)))):
        accelerator.print(f"warning: {warning}")  # slow, not wrong: the user may be checking bf16's numerics


def seed_the_shuffle(accelerator: Accelerator, loader) -> int | None:
    """fit(): a shuffling loader (a RandomSampler, ``shuffle=True``) gets accelerate's seedable
    sampler, whose order is a function of (seed, epoch); returns that seed, None for other loaders.

    Otherwise each epoch's order comes from a generator whose state no checkpoint holds, and a resume
    mid-epoch would skip other batches than the interrupted run had seen. The seed is the main
    process's torch seed (every rank shuffles alike, whatever the script seeds on each), and the
    checkpoint keeps it (``Progress.shuffle_seed``): an unseeded script's next process has another.
    Other random samplers (weighted, subset) keep accelerate's default, which synchronises their
    generator over the ranks but does not resume their order exactly.
    """
    from accelerate.data_loader import get_sampler
    from torch.utils.data import RandomSampler

    if not isinstance(get_sampler(loader), RandomSampler):
        return None
    seed = broadcast_object_list([torch.initial_seed()])[0]
    accelerator.dataloader_config.use_seedable_sampler = True  # read by prepare, for this loader
    accelerator.dataloader_config.data_seed = seed
    return seed


def seed_of_the_workers() -> int:
    """fit(): the seed from which every pass over a user's loader seeds its workers
    (``seed_this_pass_of_the_workers``): the main process's torch seed, as for the shuffle, and the
    checkpoint keeps it (``Progress.worker_seed``)."""
    return broadcast_object_list([torch.initial_seed()])[0]


def seed_this_pass_of_the_workers(loader, seed: int, rank: int, number: int) -> None:
    """Before pass ``number`` over a prepared loader: a generator of its own, seeded by (seed, rank,
    pass), from which the pass draws its workers' seed (torch's ``base_seed``: torch, numpy and
    ``random`` in each worker).

    Otherwise the pass draws it from the loader's generator, or torch's where it has none. A resumed
    run's loader is a new one: a generator of the user's own started again at the first pass's seed,
    so a run resumed at an epoch's end drew other augmentations in its workers (weights 0.024 apart
    after 6 more steps with 2 workers, eighty-seventh session); torch's, restored from the
    checkpoint, gave a pass resumed mid-way one draw more than the uninterrupted run had made, and
    every later dropout mask was the next one. The rank: each rank's workers draw augmentations of
    their own, not the same.
    Set on the DataLoader that accelerate's adapter iterates (``base_dataloader``), whose attributes
    it reads through: the skipping loader of a resumed pass is built from them, generator included.
    """
    state = np.random.SeedSequence(seed, spawn_key=(rank, number)).generate_state(1, np.uint64)
    # On the default device: torch draws the base seed into a tensor there, and a CPU generator for a
    # CUDA default (torch.set_default_device("cuda")) fails that draw, as accelerate's own do not
    generator = torch.Generator(device=torch.get_default_device())
    getattr(loader, "base_dataloader", loader).generator = generator.manual_seed(int(state[0]))


def layer_seed(seed: int, rank: int) -> int:
    """The seed of ``rank``'s torch generator while it trains: a stream of its own for each (seed, rank),
    apart from the one the initial weights drew (``seed`` itself) and from another seed's ranks (seed
    + rank would give rank 1 of seed s the stream of rank 0 of seed s + 1)."""
    return int(np.random.SeedSequence(seed, spawn_key=(rank,)).generate_state(1)[0])


def model_for_strategy(cfg: Config, spec: ModelSpec, accelerator: Accelerator, run_scope: contextlib.ExitStack
                       | None = None, names: Names = Names()) -> tuple[torch.nn.Module, dict, list[torch.nn.Parameter]]:
    """The registry network, its starting weights, and the adaptations the strategy asks for
    (wrapping.py), applied before ``prepare`` wraps it; with the network's shared tensor names,
    read while it is still plain (``export_model``), and the parameters that ``train.head_only_steps``
    trains alone (none when it is 0). ``run_scope``: as for ``adapt_to_strategy``; ``names``: how its messages
    name the settings (the estimator's keywords since the ninety-second session)."""
    model = build_from_spec(spec)
    aliases = shared_tensor_names(model)
    expect_shared_tensors(aliases)  # accelerate's notice of them at every checkpoint: expected
    if cfg.train.init_from and cfg.train.init_into:
        loaded = load_weights_into(model, spec, cfg.train.init_from, cfg.train.init_into, names)
        accelerator.print(_part_loaded_line(cfg, spec, model, loaded, names))
    elif cfg.train.init_from:
        fresh, spread = load_initial_weights(model, spec, cfg.train.init_from, names)
        accelerator.print(_initial_weights_line(cfg, spec, fresh, spread, names))
        if cfg.train.head_only_steps and not fresh:
            raise ConfigError(f"{names.set_to('train.head_only_steps', cfg.train.head_only_steps)} trains the output "
                              f"layers that start afresh alone, but every layer of {cfg.train.init_from} fits this "
                              f"run's network (the same {spec.args['out_channels']} outputs): "
                              f"{names.to_set('train.head_only_steps', 0)}")
    trained_alone = _layers_trained_alone(cfg, spec, model, accelerator, names)
    if cfg.train.channels_last_norm:  # the same function, in modules that keep channels-last (norm_layout.py)
        swapped = instance_norms_as_group_norms(model)
        accelerator.print(f"channels-last norms: {swapped} InstanceNorm(s) run as GroupNorm with one group per channel"
                          if swapped else f"{names.setting('train.channels_last_norm')}: this network has no "
                          f"InstanceNorm (without running statistics) to change")
    fsdp = accelerator.state.fsdp_plugin if accelerator.distributed_type == DistributedType.FSDP else None
    if trained_alone:
        check_groups_apart(fsdp, names)
    if cfg.train.sync_batchnorm:
        model = convert_sync_batchnorm(model, accelerator.device, accelerator.num_processes)
    if cfg.train.activation_checkpointing:
        if fsdp is not None and fsdp.activation_checkpointing:
            raise ConfigError(f"activation checkpointing is asked twice: by "
                              f"{names.setting('train.activation_checkpointing')} and by the accelerate config's "
                              f"fsdp_activation_checkpointing; keep one of them")
        accelerator.print(f"activation checkpointing: {checkpoint_blocks(model)} block(s)")
    if cfg.train.channels_last:  # convolutions then run channels-last; inputs follow the weights' layout
        model = model.to(memory_format=torch.channels_last_3d)
    adapt_to_strategy(accelerator, model, (1, spec.args["in_channels"], *cfg.data.patch_size),
                       cfg.train.zero3_leaf_blocks, run_scope, names)
    return model, aliases, trained_alone


def _initial_weights_line(cfg: Config, spec: ModelSpec, fresh: list[str], spread: list[str],
                          names: Names = Names()) -> str:
    """What train.init_from loaded, for the run's log: where from, and what was not loaded as saved."""
    clauses = [f"initial weights from {cfg.train.init_from} (new optimizer and schedule)"]
    if Path(cfg.train.init_from).is_file():  # no export: nothing known of its network or preprocessing
        clauses[0] += (", a weights file matched to this run's network by name and shape; it records no "
                       f"preprocessing: prepare the volumes as its training did ({_preprocessing_settings(names)})")
    if fresh:
        clauses.append(f"its output layers start afresh for this run's {spec.args['out_channels']} outputs "
                       f"({len(fresh)} tensors: {', '.join(fresh)})")
        # 50, or a third of a shorter run: holding the rest for up to a third of the run only helped
        # where docs/checkpoints.md measured it, and 50 of a 40-step run would be refused.
        if not cfg.train.head_only_steps and (suggested := min(50, cfg.train.max_steps // 3)):
            clauses.append(f"{names.give('train.head_only_steps', suggested)} would train them alone first (better "
                           f"on the phantoms measured in docs/checkpoints.md)")
    if spread:
        clauses.append(_spread_clause(spec, spread))
    return "; ".join(clauses)


def _spread_clause(spec: ModelSpec, spread: list[str]) -> str:
    channels = spec.args["in_channels"]
    return (f"its input layers spread its one channel's weights over this run's {channels} channels, each copy "
            f"divided by {channels} ({len(spread)} tensors: {', '.join(spread)})")


def _preprocessing_settings(names: Names) -> str:
    """The settings that prepare the volumes, as the caller names them (Dataset.from_files' spacing, normalization
    to the estimator: data.spacing, data.normalization until the ninety-second session)."""
    return ", ".join(map(names.setting, ("data.spacing", "data.normalization")))


def _part_loaded_line(cfg: Config, spec: ModelSpec, model: torch.nn.Module, loaded: PartLoaded,
                      names: Names = Names()) -> str:
    """What train.init_into loaded, for the run's log: which part, under which names, and what starts as built."""
    part = cfg.train.init_into
    renamed = (f" (its names under {loaded.read_as_part} read as {part}'s)" if loaded.read_as_part else "")
    depth, as_built = part.count(".") + 1, set(loaded.as_built)  # named at the part's level: its siblings
    others = dict.fromkeys(".".join(name.split(".")[:depth]) for name in model.state_dict() if name in as_built)
    clauses = [f"initial weights from {cfg.train.init_from} (new optimizer and schedule), a weights file loaded into "
               f"{part}{renamed}: {len(loaded.loaded)} tensors; the network's {len(loaded.as_built)} others start as "
               f"built ({', '.join(others)}); it records no preprocessing: prepare the volumes as its training did "
               f"({_preprocessing_settings(names)})"]
    if loaded.spread:
        clauses.append(_spread_clause(spec, loaded.spread))
    return "; ".join(clauses)


def _layers_trained_alone(cfg: Config, spec: ModelSpec, model: torch.nn.Module,
                          accelerator: Accelerator, names: Names = Names()) -> list[torch.nn.Parameter]:
    """The parameters train.head_only_steps trains alone (none when it is 0): the output layers, or with
    train.init_into every layer outside that part. Picked by name while the network is plain (wrappers
    rename it); the objects stay the network's through ``prepare``. A resume finds the same ones from
    the network and its settings alone (it has no weights file to compare)."""
    if not cfg.train.head_only_steps:
        return []
    part = cfg.train.init_into
    if part:
        check_part(model, spec, part, names)
    alone = outside_part(model, part) if part else output_layer_names(spec)
    trained_alone = [parameter for name, parameter in model.named_parameters() if name in alone]
    if not trained_alone:  # MONAI's UNet keeps every layer in its one part, `model`
        raise ConfigError(f"{names.set_to('train.head_only_steps', cfg.train.head_only_steps)} trains the layers "
                          f"outside {names.set_to('train.init_into', part)} alone, but {part} holds every parameter of "
                          f"this run's {spec.name}: name a smaller part, or "
                          f"{names.to_set('train.head_only_steps', 0)}")
    warmup = cfg.optim.warmup_steps
    first = ("the first step trains" if cfg.train.head_only_steps == 1 else
             f"the first {cfg.train.head_only_steps} steps train")
    accelerator.print(f"{first} "
                      + (f"the layers outside {part}" if part else "the output layers")
                      + f" alone ({len(trained_alone)} tensors); the rest of the network then joins them"
                      + (f", its rate warmed up over {counted(warmup, 'step')}" if warmup else "")
                      + f" ({names.setting('train.head_only_steps')})")
    return trained_alone


def check_groups_apart(fsdp_plugin, names: Names = Names()) -> None:
    """Refuse ``train.head_only_steps`` where the output layers and the rest cannot be two param groups:
    FSDP1 without ``use_orig_params`` flattens each unit's parameters into one, stepped at one rate
    (torch's FSDP: the original parameters are what enable "per-original-parameter hyperparameters").
    ``names``: the caller's (the estimator's keyword since the ninety-second session)."""
    if fsdp_plugin is not None and fsdp_plugin.fsdp_version == 1 and not fsdp_plugin.use_orig_params:
        raise ConfigError(f"{names.setting('train.head_only_steps')} under FSDP1 needs fsdp_use_orig_params: true in "
                          f"the accelerate config (as the shipped FSDP1 profiles set it): FSDP1 otherwise flattens the "
                          f"output layers and the rest into one parameter, with one rate. Set it, use an FSDP2 "
                          f"profile, or {names.to_set('train.head_only_steps', 0)}")


def adapt_to_strategy(accelerator: Accelerator, model: torch.nn.Module,
                       example_shape: tuple[int, ...] | None = None, zero3_leaf_blocks: bool = True,
                       run_scope: contextlib.ExitStack | None = None, names: Names = Names()) -> list[str]:
    """What FSDP and DeepSpeed need to know about this network before ``prepare`` (train and fit alike).

    ``example_shape`` (batch, channels, *patch) lets ZeRO-3 gather blocks whole
    (``wrapping.mark_zero3_leaf_blocks``) and FSDP2 check its units' outputs (``fsdp2_views``): a unit
    whose output is changed in place is refused, and when none is, torch's warnings about units that
    return views are silenced for as long as ``run_scope`` lasts. ``fit`` has no shape and leaves
    ZeRO-3 as DeepSpeed sets it up, and torch's warning as it is. ``names``: how the caller names
    zero3_leaf_blocks (the estimator's keyword since the ninety-second session).
    Returns the names of the blocks ZeRO-3 gathers whole (empty under any other strategy)."""
    if accelerator.distributed_type == DistributedType.FSDP:
        fsdp = accelerator.state.fsdp_plugin
        if not (fsdp.sync_module_states or fsdp.cpu_ram_efficient_loading):  # else rank 0's weights go to all
            check_the_ranks_start_alike(accelerator, model)
        check_fsdp1_wrappable(fsdp, model)
        if fsdp.fsdp_version == 2:
            fsdp2_valid_units_only()
        if names := fill_fsdp_wrap_classes(fsdp, model):
            accelerator.print(f"FSDP units: every {', '.join(names)}")
        fsdp_mixed_precision(fsdp, accelerator.mixed_precision)
        if fsdp.fsdp_version == 2 and example_shape is not None and check_fsdp2_units(fsdp, model, example_shape) \
                and run_scope is not None:
            run_scope.enter_context(quiet_view_warnings())
    elif accelerator.distributed_type == DistributedType.DEEPSPEED:
        plugin = accelerator.state.deepspeed_plugin
        if chosen := size_deepspeed_buckets(plugin.deepspeed_config, model):
            accelerator.print(f"DeepSpeed buckets sized to the model: {chosen}")
        if plugin.zero_stage == 3 and zero3_leaf_blocks and example_shape is not None:
            leaves = mark_zero3_leaf_blocks(model, example_shape)
            setting = names.setting("train.zero3_leaf_blocks")
            accelerator.print(f"ZeRO-3 gathers {len(leaves)} block(s) whole ({setting})")
            return leaves
    return []


def channels_last_error(accelerator: Accelerator, setting: str = "train.channels_last") -> str | None:
    """Why ``setting`` (channels-last weights) cannot run under this launch's strategy; None where it can.

    FSDP2's ``fully_shard`` refuses non-contiguous parameters (a NotImplementedError), and DeepSpeed's
    engine broadcasts and partitions them as flat buffers (a RuntimeError about strides in
    ``prepare``): both failed only after the data work, with torch's or DeepSpeed's traceback (a
    probe, seventy-seventh session). DDP keeps the layout; FSDP1 flattens the weights and restores
    their strides.
    """
    if accelerator.distributed_type == DistributedType.FSDP and accelerator.state.fsdp_plugin.fsdp_version == 2:
        strategy = "FSDP2 shards only contiguous parameters"
    elif accelerator.distributed_type == DistributedType.DEEPSPEED:
        strategy = "DeepSpeed broadcasts and partitions parameters as contiguous buffers"
    else:
        return None
    # FSDP1 as its profiles are named: "fsdp.yaml's fsdp_version: 1 profiles" named the FSDP2 profile (walk of the
    # hundred-and-twenty-eighth session)
    return (f"{setting} makes the weights channels-last, but {strategy}; leave it off under this "
            f"accelerate config, or train with DDP (configs/accelerate/ddp.yaml) or FSDP1 (a profile of "
            f"fsdp_version: 1, e.g. configs/accelerate/fsdp_full_shard.yaml), which keep it")


def check_the_ranks_start_alike(accelerator: Accelerator, model: torch.nn.Module) -> None:
    """Refuse, on every rank, a network whose ranks hold different starting weights.

    DDP and DeepSpeed copy rank 0's weights to every rank; FSDP without ``sync_module_states`` (our
    FSDP2 profiles) keeps each rank's own shards, so ranks that built their networks from different
    random states train a mix of initialisations, and nothing fails. SwinUNETR did so on the CPU
    until the seventieth session (models.meta_network), and a ``fit`` script that seeds no rank
    alike would. One gather compares a digest of every parameter's bytes (``weights_digest``).
    """
    if accelerator.num_processes == 1:
        return
    with torch.no_grad():
        values = [p.detach() for p in model.parameters() if p.device.type != "meta"]
        digest = torch.frombuffer(bytearray(weights_digest(values)), dtype=torch.int64)
        every = accelerator.gather(digest[None].to(accelerator.device)).tolist()
        if all(row == every[0] for row in every):
            return
        # Every rank is here (each saw the same gathered digests): one more gather, for the message.
        mine = torch.tensor([[float(sum(v.to("cpu", torch.float64).sum() for v in values))]], dtype=torch.float64)
        sums = accelerator.gather(mine.to(accelerator.device)).flatten().tolist()
    differ = ", ".join(f"rank {rank}: {total:.9g}" for rank, total in enumerate(sums))
    raise ConfigError(f"the ranks hold different starting weights (the sums of their parameters: {differ}), and "
                      f"FSDP without fsdp_sync_module_states keeps each rank's own shards, so the network would "
                      f"start as a mix of them: build it on every rank from the same seed "
                      f"(accelerate.utils.set_seed before the network is made) or load the same weights on every "
                      f"rank")


def weights_digest(tensors) -> bytes:
    """SHA-256 of the tensors' values, byte for byte in their logical order (32 bytes).

    Equal weights give equal digests on every rank whatever their memory layout or thread count.
    Until the seventy-seventh session the ranks compared float64 sums, whose last bit depends on
    how many threads share the reduction: ranks of the same weights under other OMP_NUM_THREADS
    (nodes of other sizes) would have been refused as different.
    """
    digest = hashlib.sha256()
    for tensor in tensors:
        digest.update(tensor.to("cpu").contiguous().reshape(-1).view(torch.uint8).numpy())
    return digest.digest()


# The optimizers that accelerate's ZeRO-offload path maps onto a DeepSpeed CPU optimizer of the same
# algorithm (accelerate.utils.deepspeed.map_pytorch_optim_to_deepspeed).
_MAPPED_TO_DEEPSPEED_CPU_OPTIMIZERS = (torch.optim.Adam, torch.optim.AdamW, torch.optim.Adagrad)


def keep_the_optimizer_under_offload(accelerator: Accelerator, optimizer: torch.optim.Optimizer) -> None:
    """Make ZeRO's optimizer offload step this optimizer, not an Adam put in its place.

    With the optimizer offloaded (deepspeed_zero3_offload.yaml), accelerate replaces a torch
    optimizer by a DeepSpeed CPU optimizer, and any it has no match for (SGD among them) by
    DeepSpeedCPUAdam: a run asking for nnU-Net's SGD trained with Adam and said nothing. DeepSpeed
    takes a torch optimizer for its offloaded partitions once ``zero_force_ds_cpu_optimizer`` is
    off; SGD's step on the CPU is a few multiply-adds per parameter, so the Adam kernel is not missed.
    """
    if accelerator.distributed_type != DistributedType.DEEPSPEED:
        return
    config = accelerator.state.deepspeed_plugin.deepspeed_config
    offload = config.get("zero_optimization", {}).get("offload_optimizer", {}).get("device", "none")
    if offload in (None, "none") or isinstance(optimizer, _MAPPED_TO_DEEPSPEED_CPU_OPTIMIZERS):
        return
    config["zero_force_ds_cpu_optimizer"] = False
    accelerator.print(f"ZeRO offload steps {type(optimizer).__name__} on the {offload} "
                      f"(DeepSpeed's CPU optimizers are Adam's and Adagrad's)")


def schedule_the_stepping_optimizer(accelerator: Accelerator, scheduler) -> None:
    """Make the learning-rate scheduler set the rate of the optimizer that really steps.

    With ZeRO's optimizer offload, accelerate replaces our AdamW by DeepSpeedCPUAdam built on the
    same param-group dicts, so a scheduler built on our AdamW still reaches it, until a resume loads
    DeepSpeed's optimizer state and puts new dicts in place. The rate then stayed at its value of the
    resumed step (seen on ZeRO-3 offload: 0.00075 at steps 5 and 6 where the schedule gives 0.0009
    at step 6), while train/lr, read from the scheduler, logged the schedule.
    """
    if scheduler is None or accelerator.distributed_type != DistributedType.DEEPSPEED:
        return
    stepping = accelerator.deepspeed_engine_wrapped.engine.basic_optimizer
    if stepping is scheduler.optimizer:
        return
    groups = zip(scheduler.optimizer.param_groups, stepping.param_groups, strict=True)
    if any(ours is not theirs for ours, theirs in groups):
        scheduler.optimizer = stepping
    else:
        # Ours never steps, its groups are stepped by the other: torch's scheduler, which looks for a call of
        # ours (the flag its wrapper of ours.step sets), warned at every offloaded run's first step that the
        # schedule was stepped before the optimizer and would skip its first value, neither of which was so.
        scheduler.optimizer._opt_called = True


def complete_the_loaded_optimizer(accelerator: Accelerator) -> None:
    """After a resume under DeepSpeed: give the stepping optimizer's param groups the settings its
    class keeps there that the saved groups lack, and its step count where it keeps one outside
    them.

    A ZeRO checkpoint holds the param groups of the optimizer that saved it: torch's AdamW's when
    written without offload. Resumed under ``deepspeed_zero3_offload.yaml``, DeepSpeedCPUAdam steps
    them and reads ``bias_correction``, which AdamW's groups lack: a KeyError at the first step, after
    "resumed from" (seventy-second session's probe). Its default (True) is what AdamW does. Its bias
    correction then follows the uninterrupted run's to the bit (``replay_cpu_adams_step_count``).
    """
    if accelerator.distributed_type != DistributedType.DEEPSPEED:
        return
    stepping = accelerator.deepspeed_engine_wrapped.engine.basic_optimizer
    for group in stepping.param_groups:
        for key, value in stepping.defaults.items():
            group.setdefault(key, value)
    replay_cpu_adams_step_count(stepping)


def model_input_dtype(accelerator: Accelerator, model) -> torch.dtype | None:
    """The dtype a prepared model needs its input in, where a float32 batch would fail (else None).

    DeepSpeed's bf16 and fp16 modes convert the network's weights themselves, and only its fp16 mode
    casts the inputs of the engine's forward (accelerate sets ``auto_cast`` there); a float32 batch
    then meets bf16 weights in the first convolution. The HF Trainer casts DeepSpeed inputs the same
    way. Everywhere else accelerate's autocast takes float32 inputs.
    """
    if accelerator.distributed_type != DistributedType.DEEPSPEED:
        return None
    if model.bfloat16_enabled():
        return torch.bfloat16
    return torch.float16 if model.fp16_enabled() else None
