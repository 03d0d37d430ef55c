"""Settings given a value that the other settings leave without effect, said before a run starts.

A config is often edited from another: switching ``optim.optimizer`` to adamw leaves an SGD momentum
behind, a copied CT experiment z-scores MRI with its ``data.ct_window`` still set. Each such setting was
accepted and did nothing without a word (a review's finding in the eighty-fourth session), so a user
could believe a run used a setting it never read. They are warnings, not errors: the run is sound, the
leftover harmless, and refusing it would make every switch of optimizer or dataset two edits.

A setting counts as given when it differs from its default: that is all a loaded config can tell, and
a default written out by hand changes nothing either way.
"""

from __future__ import annotations

from .config import CompileConfig, Config, DataConfig, OptimConfig, SyntheticConfig, TrainConfig


def unused_settings_warnings(cfg: Config, normalization: str | None = None, sparse_labels: bool = False) -> list[str]:
    """One line per setting given away from its default that the run will not use.

    Args:
        cfg: the run's config.
        normalization: ``data.normalization`` as resolved for the dataset (``auto`` becomes ``ct`` or
            ``zscore`` from the channels' names); None where the dataset is not read yet, when an
            ``auto`` normalization cannot say whether ``data.ct_window`` will be used.
        sparse_labels: the dataset declares an ignore label (voxels nobody annotated).
    """
    warnings = []
    optim, data, train = cfg.optim, cfg.data, cfg.train
    if optim.optimizer == "adamw":
        for name in ("momentum", "nesterov"):
            if getattr(optim, name) != getattr(OptimConfig, name):
                warnings.append(_unused(f"optim.{name}", getattr(optim, name),
                                        "optim.optimizer is adamw, whose moments are its own (betas); set "
                                        "optim.optimizer: sgd to train with momentum, or leave it out"))
    if optim.schedule != "poly" and optim.poly_exponent != OptimConfig.poly_exponent:
        warnings.append(_unused("optim.poly_exponent", optim.poly_exponent,
                                f"optim.schedule is {optim.schedule}; set optim.schedule: poly to decay by it"))
    if optim.lr_scaling == "none" and optim.base_batch_size != OptimConfig.base_batch_size:
        warnings.append(_unused("optim.base_batch_size", optim.base_batch_size,
                                "optim.lr_scaling is none, so optim.lr is used as given at every batch size; "
                                "set optim.lr_scaling: linear or sqrt to scale it from that batch"))
    if data.dataset != DataConfig.dataset:
        for name in ("num_cases", "num_validation", "seed"):
            if getattr(data.synthetic, name) != getattr(SyntheticConfig, name):
                warnings.append(_unused(f"data.synthetic.{name}", getattr(data.synthetic, name),
                                        f"it shapes the embedded phantoms, and data.dataset is {data.dataset}"))
    window_unused = data.normalization == "zscore" or (normalization is not None and normalization != "ct")
    if window_unused and tuple(data.ct_window) != DataConfig.ct_window:
        chosen = " (data.normalization: auto, from the channels' names)" if data.normalization == "auto" else ""
        warnings.append(_unused("data.ct_window", list(data.ct_window),
                                f"the images are z-scored{chosen}; the window clips Hounsfield units under "
                                f"data.normalization: ct"))
    # With an ignore label a centre falls back to a labelled voxel, drawn by class_balanced, where
    # it finds no annotated one (data/sampling.py): scribbles drew the rare class 0.45 of the time
    # against 0.10 without it (eighty-sixth session's review), so it is not said there.
    if data.class_balanced and data.foreground_fraction == 0 and not sparse_labels:
        warnings.append(_unused("data.class_balanced", True,
                                "data.foreground_fraction is 0, so no patch is centred on a labelled voxel"))
    if data.augment == "none" and data.augment_on != DataConfig.augment_on:
        warnings.append(_unused("data.augment_on", data.augment_on, "data.augment is none"))
    if not train.compile.enabled:
        for name in ("backend", "mode"):
            if getattr(train.compile, name) != getattr(CompileConfig, name):
                warnings.append(_unused(f"train.compile.{name}", getattr(train.compile, name),
                                        "train.compile.enabled is false (the launch's --dynamo_backend decides "
                                        "then); set train.compile.enabled: true to compile with it"))
    if train.val_every == 0:
        for name in ("sw_batch_size", "sw_overlap", "val_distances", "val_tolerance_mm"):
            if getattr(train, name) != getattr(TrainConfig, name):
                warnings.append(_unused(f"train.{name}", getattr(train, name),
                                        "train.val_every is 0, so the run never validates"))
    elif not train.val_distances and train.val_tolerance_mm != TrainConfig.val_tolerance_mm:
        warnings.append(_unused("train.val_tolerance_mm", train.val_tolerance_mm,
                                "it is surface Dice's tolerance, and train.val_distances is false; set it true "
                                "for HD95 and surface Dice"))
    return warnings


def _unused(setting: str, value, why: str) -> str:
    shown = str(value).lower() if isinstance(value, bool) else value
    return f"warning: {setting}={shown} has no effect in this run: {why}"
