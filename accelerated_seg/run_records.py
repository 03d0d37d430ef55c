"""What a run records of itself besides its weights: ``run_info.json`` and ``config.yaml`` as it
starts (the strategy, batch, split, versions and resumes; the marker that makes the folder a run's,
run_folder.py), the description its exports carry in ``config.json`` (what inference needs besides
the weights), the settings its trackers are given as hyperparameters (scalars only), and its curves
so far in ``metrics.json`` (the loss, the speed, the validations).
"""

from __future__ import annotations

import json
import platform
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from accelerate import Accelerator

from . import __version__
from .code_commit import run_commit
from .config import Config
from .data.manifest import Manifest
from .data.preprocess import ORIENTATION, PreprocessSettings
from .data.preprocess_settings import (CASES_MEDIAN_KEY, CODE_VERSION_KEY, PREPROCESS_VERSION, SPACING_SET_KEY,
                                       SPACING_UNIT_KEY)
from .files import write_text_atomically
from .installed_versions import installed_version
from .strategy import fallback_warning, strategy_in_effect

if TYPE_CHECKING:
    from .loop_state import LoopSettings, Progress


def export_metadata(cfg: Config, manifest: Manifest, settings: PreprocessSettings, spacing_unit: str | None,
                    cases_median: tuple[float, float, float] | None = None) -> dict:
    """What inference needs besides the weights (stored in config.json next to model.safetensors); ``spacing_unit``:
    the unit the training cases' headers declared, ``cases_median``: their median voxel size where data.spacing is
    set (``prepare.settings_and_unit``'s)."""
    return {
        "labels": {str(k): v for k, v in manifest.labels.items()},
        "channels": {str(k): v for k, v in manifest.channels.items()},
        "in_channels": manifest.num_channels,
        "num_classes": manifest.num_classes,
        "patch_size": list(cfg.data.patch_size),
        "spacing": list(settings.spacing) if settings.spacing else None,
        # whether data.spacing set it (false: the training cases' median), which predict judges a scan's voxels
        # 100 times finer by, as training did (spacing_was_set); recorded since the hundred-and-fifth session
        SPACING_SET_KEY: cfg.data.spacing is not None,
        # the unit its training cases' headers declared, which the spacing's numbers are in and predict refuses a scan
        # declaring another by (its numbers are read as they are); recorded since the hundred-and-sixth session
        SPACING_UNIT_KEY: spacing_unit,
        # the cases' median voxel size (data.spacing set; null where the spacing is that median), which predict refuses
        # a scan declaring mm 100 times finer than, as training refused such a case; since the hundred-and-nineteenth
        CASES_MEDIAN_KEY: list(cases_median) if cases_median is not None else None,
        "orientation": ORIENTATION,
        "preprocessing": settings.to_dict(),
        CODE_VERSION_KEY: PREPROCESS_VERSION,  # the code that prepared the volumes (code_version_difference)
        # region-based: the network's outputs are these regions (label values), painted in their order
        **({"regions": manifest.regions.to_dict()} if manifest.regions is not None else {}),
        # what turns the network's outputs into probabilities, for who loads it into plain MONAI: one
        # class per voxel (softmax over the channels, argmax), or overlapping regions (each channel's
        # sigmoid, above 0.5). It was to be guessed from "regions" (eighty-fourth session's probe).
        "output_activation": "softmax" if manifest.regions is None else "sigmoid",
        # the files' ending an nnU-Net dataset.json declares: predict names the label maps with it, as nnU-Net's
        # users expect beside their labelsTs (they were .nii.gz whatever it said until the ninety-seventh session)
        **({"file_ending": manifest.file_ending} if manifest.file_ending is not None else {}),
        # sparse annotation: the labels' value of unannotated voxels, which evaluate --labels leaves out
        **({"ignore_value": manifest.ignore_value} if manifest.ignore_value is not None else {}),
        "accelerated_seg_version": __version__,
        # the version names a release, the commit the code (code_commit.py): what a refusal names
        "accelerated_seg_commit": run_commit(),
        # args holds only what was set: MONAI's defaults for the rest (a norm, an activation) are its
        # release's
        "monai_version": installed_version("monai"),
    }


def write_run_info(out: Path, config_yaml: str, plan, manifest: Manifest, accelerator,
                    deepspeed_note: str | None = None, resumes: list[dict] | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    info = {"strategy": strategy_in_effect(accelerator), "strategy_warning": fallback_warning(accelerator),
            # which of the profile's DeepSpeed values the run replaced: printed once, lost with the log before
            "strategy_note": deepspeed_note,
            "batch": {"per_device": plan.per_device, "num_processes": plan.num_processes,
                      "accum_steps": plan.accum_steps, "global": plan.global_batch, "lr": plan.lr},
            "split": manifest.split_record(),
            "accelerated_seg_version": __version__, "accelerated_seg_commit": run_commit(),
            "torch_version": torch.__version__,
            # what else decides the numbers: MONAI's networks and transforms, accelerate's wrapping
            "monai_version": installed_version("monai"), "accelerate_version": installed_version("accelerate"),
            "python_version": platform.python_version(),
            # each resume of the run, and the settings it changed: printed once, lost with the log before
            "resumes": resumes or [],
            # which fit wrote it (each writes it anew): its inode and time alone may be an earlier fit's again, on
            # a file system whose times are coarse (estimator_interrupted.run_info_written)
            "written_at": datetime.now(timezone.utc).isoformat(timespec="microseconds")}
    # The marker first: what the run writes after it is the run's, never another program's (run_folder).
    write_text_atomically(out / "run_info.json", json.dumps(info, indent=1))
    write_text_atomically(out / "config.yaml", config_yaml)


def fit_hparams(model, optimizer, accelerator: Accelerator, settings: LoopSettings, grad_accum_steps: int) -> dict:
    """What ``fit`` knows of its run, for the trackers' hyperparameters (scalars only)."""
    stepping = optimizer.optimizer if hasattr(optimizer, "optimizer") else optimizer
    return {"fit.model": type(accelerator.unwrap_model(model)).__name__, "fit.optimizer": type(stepping).__name__,
            "fit.lr": float(optimizer.param_groups[0]["lr"]),  # float: a tensor lr (torch.tensor(1e-3)) too
            "fit.max_steps": settings.max_steps, "fit.grad_accum_steps": grad_accum_steps,
            "fit.max_grad_norm": settings.max_grad_norm, "fit.processes": accelerator.num_processes,
            "fit.mixed_precision": accelerator.mixed_precision}


def flat_hparams(cfg: Config) -> dict:
    """TensorBoard hparams take scalars only. None stays None, which TensorBoard leaves out: as "None"
    it made the setting a string in the HParams dashboard, where runs that set a number sort as text."""
    flat = {}
    for section, values in cfg.to_dict().items():
        for key, value in values.items():
            scalar = value is None or isinstance(value, (int, float, str, bool))
            flat[f"{section}.{key}"] = value if scalar else str(value)
    return flat


def write_metrics(accelerator: Accelerator, out: Path, progress: Progress) -> None:
    """metrics.json: the curves so far. Written at every validation and at the end, so a run with
    validation off (train.val_every=0) has its loss and speed curves too."""
    if accelerator.is_main_process:
        write_text_atomically(out / "metrics.json", json.dumps({"loss": progress.losses, "speed": progress.speed,
                                                               "validation": progress.history}))
