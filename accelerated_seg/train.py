"""The one training loop. The strategy (CPU, one GPU, DDP, FSDP, DeepSpeed) and mixed precision come
from the accelerate config the script was launched with; nothing below changes between them.

    accelerate launch --config_file configs/accelerate/cpu.yaml examples/train.py --config configs/demo.yaml

Read ``train`` top-down: resolve the batch, check the data once, build model/optimizer/loaders,
``accelerator.prepare`` them, resume if asked, then the loop: forward, loss, ``backward`` under
``accumulate``, and on each optimizer step a single collective that lets every rank agree on whether
the step is finite and whether to stop (preemption); then clip, step, schedule, and every so often
validate, checkpoint and log.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from accelerate import Accelerator
from accelerate.utils import DistributedType, GradientAccumulationPlugin, broadcast_object_list, gather_object, set_seed
from monai.losses import DiceCELoss
from tqdm.auto import tqdm

from . import __version__
from .checkpoint import PreemptionSignals, export_model, resolve_resume, save_training_state
from .config import Config, ConfigError, dump_config
from .data.cache import PreprocessedCache
from .data.gpu_augment import apply_affine
from .data.loader import VolumeDataset, patch_dataset, train_loader, val_loader
from .data.manifest import Manifest
from .data.prepare import cache_root, prepare_manifest, preprocess_settings
from .data.preprocess import ORIENTATION, PreprocessSettings
from .evaluate import dice_per_class
from .inference import sliding_window_logits
from .models import build_from_spec, model_spec
from .schedule import resolve_batch, warmup_cosine
from .strategy import configure_deepspeed, fallback_warning, launch_error, strategy_in_effect


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
    history: list = field(default_factory=list)  # validation results

    def state_dict(self) -> dict:
        return asdict(self)

    def load_state_dict(self, state: dict) -> None:
        self.__dict__.update(state)


def train(cfg: Config, manifest: Manifest | None = None) -> dict:
    """Train, validate, checkpoint and export as configured; returns a summary (same on every rank).

    Args:
        cfg: the run configuration.
        manifest: cases given directly (the Python ``Dataset`` builder); default: read ``data.dataset``.

    SIGTERM or SIGUSR1 to any rank (a scheduler's notice before it kills the job) makes every rank
    stop after the same optimizer step, save the training state and return with ``"preempted": True``
    (no ``model/`` export), so the launcher exits 0 and ``--resume latest`` continues.
    """
    with PreemptionSignals() as signals:
        return _train(cfg, manifest, signals)


def _train(cfg: Config, manifest: Manifest | None, signals: PreemptionSignals) -> dict:
    out = Path(cfg.train.output_dir)
    accelerator = Accelerator(
        # Accumulation windows run across epoch boundaries, so no window is ever cut short and every
        # sample weighs the same (accelerate's default forces a step at the end of each epoch).
        gradient_accumulation_plugin=GradientAccumulationPlugin(num_steps=1, sync_with_dataloader=False),
        log_with=_trackers(cfg.train.trackers), project_dir=str(out),
    )
    # The number of processes is known only now (the Accelerator reads the launch environment, e.g.
    # ACCELERATE_USE_CPU for gloo DDP); the batch plan and accumulation follow from it.
    num_processes = accelerator.num_processes
    plan = resolve_batch(cfg.train.batch_size, cfg.train.global_batch_size, cfg.train.grad_accum_steps,
                         num_processes, cfg.optim.lr, cfg.optim.base_batch_size, cfg.optim.lr_scaling)
    accelerator.gradient_accumulation_steps = plan.accum_steps
    configure_deepspeed(accelerator, plan.per_device, plan.accum_steps, cfg.optim.max_grad_norm)
    if error := launch_error(accelerator):
        raise ConfigError(error)
    say = accelerator.print
    say(f"strategy: {strategy_in_effect(accelerator)}")
    if warning := fallback_warning(accelerator):
        if not cfg.train.allow_strategy_fallback:
            raise ConfigError(f"{warning} Use a profile that works here (configs/accelerate/cpu.yaml, or ddp.yaml "
                              f"with ACCELERATE_USE_CPU=true), or set train.allow_strategy_fallback=true to run anyway.")
        say(warning)
    say(plan.describe())
    set_seed(cfg.train.seed)  # same initial weights on every rank

    manifest, settings, train_table, val_table = _prepared_data(cfg, accelerator, manifest)
    spec = model_spec(cfg.model.name, manifest.num_channels, manifest.num_classes, cfg.data.patch_size, cfg.model.args)
    model = build_from_spec(spec)
    train_set = patch_dataset(train_table, cfg.data, seed=cfg.train.seed)
    if train_set.epoch_length < plan.per_device * num_processes:
        raise ConfigError(f"one epoch has {train_set.epoch_length} patches, fewer than one step's "
                          f"{plan.per_device * num_processes}: raise data.samples_per_volume or lower the batch")
    val_set = VolumeDataset(val_table)
    optimizer = torch.optim.AdamW(model.parameters(), lr=plan.lr, weight_decay=cfg.optim.weight_decay)
    # Stepped once per optimizer step below and not prepared: accelerate's wrapper would step it
    # once per process, changing the schedule with the number of GPUs.
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: warmup_cosine(
        s, cfg.optim.warmup_steps, cfg.train.max_steps, cfg.optim.min_lr_ratio))
    loss_fn = DiceCELoss(to_onehot_y=True, softmax=True)

    model, optimizer, train_dl, val_dl = accelerator.prepare(
        model, optimizer, train_loader(train_set, plan.per_device, cfg.data.num_workers, cfg.train.seed),
        val_loader(val_set))
    progress = Progress()
    accelerator.register_for_checkpointing(scheduler, progress)
    config_yaml = dump_config(cfg)
    if cfg.train.resume:
        checkpoint = resolve_resume(cfg.train.resume, out / "checkpoints")
        accelerator.load_state(str(checkpoint))
        say(f"resumed from {checkpoint} at step {progress.step}")
    export_meta = _export_metadata(cfg, manifest, settings)
    if accelerator.is_main_process:
        _write_run_info(out, cfg, config_yaml, plan, manifest, accelerator)
    accelerator.init_trackers("train", config=_flat_hparams(cfg))

    # Position in the data stream: whole epochs done, and batches to skip in the current one.
    epoch, skip = divmod(progress.batches_seen, len(train_dl))
    window_loss = torch.zeros((), device=accelerator.device)
    window_nonfinite = torch.zeros((), device=accelerator.device)
    signalled = torch.zeros((), device=accelerator.device)  # 1 once this rank got SIGTERM/SIGUSR1
    nonfinite_in_a_row, last_saved = 0, progress.step if cfg.train.resume else -1
    preempted = False
    bar = tqdm(total=cfg.train.max_steps, initial=progress.step, disable=not (accelerator.is_main_process
                                                                               and cfg.train.progress_bar))
    model.train()
    while progress.step < cfg.train.max_steps and not preempted:
        train_dl.set_epoch(epoch)
        batches = accelerator.skip_first_batches(train_dl, skip) if skip else train_dl
        skip = 0
        for batch in batches:
            progress.batches_seen += 1
            if "affine" in batch:  # data.augment_on=gpu: the spatial augmentation runs here, on the device
                batch["image"], batch["label"] = apply_affine(batch["image"], batch["label"], batch["affine"])
            with accelerator.accumulate(model):
                logits = model(batch["image"])
                loss = loss_fn(logits, batch["label"])
                accelerator.backward(loss)  # divides by the accumulation steps; all-reduces on the last one
                window_loss += loss.detach()
                window_nonfinite += (~torch.isfinite(loss.detach())).float()
                if not accelerator.sync_gradients:
                    continue
                # One collective per optimizer step: every rank learns whether any rank saw a
                # non-finite loss, so all of them skip (or take) the same step and none waits forever,
                # and whether any rank was signalled to stop, so all of them stop after the same step.
                signalled.fill_(signals.received is not None)  # fill_, not a host->device copy: no sync
                totals = accelerator.reduce(torch.stack([window_loss, window_nonfinite, signalled]), reduction="sum")
                loss_sum, nonfinite, ranks_signalled = totals.tolist()  # the one host sync per optimizer step
                preempted = ranks_signalled > 0  # a skipped step below stops at the next one (the flag stays set)
                window_loss.zero_(), window_nonfinite.zero_()
                if nonfinite > 0:
                    optimizer.zero_grad(set_to_none=True)
                    nonfinite_in_a_row += 1
                    say(f"step {progress.step}: non-finite loss on some rank, step skipped "
                        f"({nonfinite_in_a_row}/{cfg.train.max_nonfinite_steps} in a row)")
                    if nonfinite_in_a_row >= cfg.train.max_nonfinite_steps:
                        raise TrainingDiverged(
                            f"loss was non-finite for {nonfinite_in_a_row} optimizer steps in a row; the last "
                            f"good checkpoint is kept in {out / 'checkpoints'}. Lower optim.lr or check the data.")
                    continue
                nonfinite_in_a_row = 0
                grad_norm = accelerator.clip_grad_norm_(model.parameters(), cfg.optim.max_grad_norm or math.inf)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
            progress.step += 1
            bar.update(1)
            mean_loss = loss_sum / (plan.accum_steps * num_processes)
            if progress.step % cfg.train.log_every == 0 or progress.step == cfg.train.max_steps:
                accelerator.log({"train/loss": mean_loss, "train/lr": scheduler.get_last_lr()[0],
                                 # None where DeepSpeed clips by itself and reports no norm
                                 **({"train/grad_norm": float(grad_norm)} if grad_norm is not None else {})},
                                step=progress.step)
                bar.set_postfix(loss=f"{mean_loss:.4f}")
                progress.losses.append((progress.step, mean_loss))
            if cfg.train.val_every and (progress.step % cfg.train.val_every == 0 or progress.step == cfg.train.max_steps):
                dice = validate(accelerator, model, val_dl, cfg, manifest.num_classes)
                _record_validation(accelerator, progress, dice, mean_loss, manifest, out)
                if progress.best_step == progress.step:
                    export_model(accelerator, model, spec, export_meta, out / "best_model")
                model.train()
            if cfg.train.save_every and progress.step % cfg.train.save_every == 0:
                save_training_state(accelerator, out / "checkpoints", progress.step, cfg.train.keep_last, config_yaml)
                last_saved = progress.step
            if progress.step >= cfg.train.max_steps or preempted:
                break
        epoch += 1
    bar.close()
    preempted = preempted and progress.step < cfg.train.max_steps  # signalled at the last step: just finish

    if last_saved != progress.step:
        save_training_state(accelerator, out / "checkpoints", progress.step, cfg.train.keep_last, config_yaml)
    if preempted:  # the scheduler's grace period is short: the training state is what matters, no export
        say(f"preempted: SIGTERM/SIGUSR1 reached a rank; every rank stopped after step {progress.step} and the "
            f"training state is saved in {out / 'checkpoints' / f'step_{progress.step}'}. Run the same command "
            f"with --train.resume=latest (or --resume latest) to continue.")
    else:
        export_model(accelerator, model, spec, export_meta, out / "model")
    summary = {"step": progress.step, "preempted": preempted, "best_dice": progress.best_dice,
               "best_step": progress.best_step, "global_batch": plan.global_batch, "lr": plan.lr,
               "strategy": strategy_in_effect(accelerator), "output_dir": str(out),
               # every rank's peak, so an unbalanced rank shows (a collective: gathered on all ranks)
               "peak_memory_gb": gather_object([_peak_memory_gb()])}
    if accelerator.is_main_process:
        (out / "summary.json").write_text(json.dumps(summary, indent=1))
    accelerator.end_training()  # closes trackers, destroys the process group
    return {**summary, "is_main_process": accelerator.is_main_process}


def _peak_memory_gb() -> float | None:
    return round(torch.cuda.max_memory_allocated() / 2**30, 3) if torch.cuda.is_available() else None


@torch.no_grad()
def validate(accelerator: Accelerator, model, val_dl, cfg: Config, num_classes: int) -> torch.Tensor:
    """Dice per case and foreground class, (cases, classes - 1), each case counted exactly once.

    The prepared loader gives each rank its share of cases (padding the last share with repeats);
    ``gather_for_metrics`` collects the per-case scores and drops those repeats.
    """
    model.eval()
    # DDP and ZeRO-1/2 hold full weights on every rank: run the bare module so no collective runs in
    # forward and ranks with different volume sizes (window counts) never wait on each other.
    sharded = accelerator.distributed_type == DistributedType.FSDP or (
        accelerator.distributed_type == DistributedType.DEEPSPEED and accelerator.state.deepspeed_plugin.zero_stage == 3)
    net = model if sharded else accelerator.unwrap_model(model)
    scores = []
    for batch in val_dl:
        with accelerator.autocast():
            logits = sliding_window_logits(net, batch["image"], cfg.data.patch_size, cfg.train.sw_batch_size,
                                           cfg.train.sw_overlap)
        dice = dice_per_class(logits.argmax(1, keepdim=True), batch["label"], num_classes)
        scores.append(accelerator.gather_for_metrics(dice))
    return torch.cat(scores).cpu()


def _prepared_data(cfg: Config, accelerator: Accelerator, manifest: Manifest | None):
    """Cases checked once on the main process, preprocessed once (each rank builds its share of the
    cache), then the case tables that every rank reads memory-mapped."""
    manifest, settings = _on_main(accelerator, lambda: _checked_data(cfg, accelerator, manifest))
    cache = PreprocessedCache(cache_root(cfg.data), manifest.root, settings, manifest.num_classes)
    cases = manifest.training + manifest.validation
    built = _on_every_rank(accelerator, lambda: cache.build(
        cases, shard=(accelerator.process_index, accelerator.num_processes), workers=cfg.data.num_workers))
    accelerator.print(f"preprocessed cache {cache.dir}: {sum(built)} case(s) built, {len(cases) - sum(built)} reused")
    tables = _on_main(accelerator, lambda: (cache.write_table(manifest.training), cache.write_table(manifest.validation)))
    return manifest, settings, cache.load_table(tables[0]), cache.load_table(tables[1])


def _checked_data(cfg: Config, accelerator: Accelerator, manifest: Manifest | None):
    """Synthesise/read/check the cases and resolve the preprocessing (median spacing)."""
    manifest, warnings = prepare_manifest(cfg.data, cfg.train.output_dir, manifest)
    for warning in warnings:
        accelerator.print(f"data warning: {warning}")
    return manifest, preprocess_settings(cfg.data, manifest)


def _on_main(accelerator: Accelerator, work):
    """Run ``work`` on the main process only and give its result (or its error) to every rank.

    The other ranks wait in the broadcast; an error on the main process is raised on every rank,
    so none of them is left waiting for a process that has died.
    """
    outcome = [None, None]
    if accelerator.is_main_process:
        try:
            outcome = [work(), None]
        except Exception as error:  # noqa: BLE001 - re-raised below, on every rank
            outcome = [None, error]
    outcome = broadcast_object_list(outcome)
    if outcome[1] is not None:
        raise outcome[1]
    return outcome[0]


def _on_every_rank(accelerator: Accelerator, work) -> list:
    """Run ``work`` on every rank; returns every rank's result, or raises the first error on all ranks."""
    try:
        outcome = (work(), None)
    except Exception as error:  # noqa: BLE001 - re-raised below, on every rank
        outcome = (None, error)
    outcomes = gather_object([outcome])
    errors = [error for _, error in outcomes if error is not None]
    if errors:
        raise errors[0]
    return [result for result, _ in outcomes]


def _record_validation(accelerator, progress: Progress, per_case: torch.Tensor, loss: float, manifest: Manifest,
                       out: Path):
    mean = float(per_case.mean())
    per_class = {manifest.labels[c + 1]: float(d) for c, d in enumerate(per_case.mean(0))}
    if mean > progress.best_dice:
        progress.best_dice, progress.best_step = mean, progress.step
    progress.history.append({"step": progress.step, "loss": loss, "mean_dice": mean, "cases": len(per_case),
                             **per_class})
    accelerator.log({"val/mean_dice": mean, **{f"val/dice_{k}": v for k, v in per_class.items()}}, step=progress.step)
    accelerator.print(f"step {progress.step}: validation mean Dice {mean:.4f} "
                      + " ".join(f"{k}={v:.4f}" for k, v in per_class.items()))
    if accelerator.is_main_process:
        (out / "metrics.json").write_text(json.dumps({"loss": progress.losses, "validation": progress.history}))


def _export_metadata(cfg: Config, manifest: Manifest, settings: PreprocessSettings) -> dict:
    """What inference needs besides the weights (stored in config.json next to model.safetensors)."""
    return {
        "labels": {str(k): v for k, v in manifest.labels.items()},
        "channels": {str(k): v for k, v in manifest.channels.items()},
        "in_channels": manifest.num_channels,
        "num_classes": manifest.num_classes,
        "patch_size": list(cfg.data.patch_size),
        "spacing": list(settings.spacing) if settings.spacing else None,
        "orientation": ORIENTATION,
        "preprocessing": settings.to_dict(),
        "accelerated_seg_version": __version__,
    }


def _write_run_info(out: Path, cfg: Config, config_yaml: str, plan, manifest: Manifest, accelerator) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(config_yaml)
    info = {"strategy": strategy_in_effect(accelerator), "strategy_warning": fallback_warning(accelerator),
            "batch": {"per_device": plan.per_device, "num_processes": plan.num_processes,
                      "accum_steps": plan.accum_steps, "global": plan.global_batch, "lr": plan.lr},
            "split": {"how": manifest.split, "training": [c.id for c in manifest.training],
                      "validation": [c.id for c in manifest.validation]},
            "accelerated_seg_version": __version__, "torch_version": torch.__version__}
    (out / "run_info.json").write_text(json.dumps(info, indent=1))


def _trackers(names: str):
    names = [n.strip() for n in names.split(",") if n.strip() and n.strip() != "none"]
    return names or None


def _flat_hparams(cfg: Config) -> dict:
    """TensorBoard hparams take scalars only."""
    flat = {}
    for section, values in cfg.to_dict().items():
        for key, value in values.items():
            flat[f"{section}.{key}"] = value if isinstance(value, (int, float, str, bool)) else str(value)
    return flat
