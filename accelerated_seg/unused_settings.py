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
from .model_folders import Names


def unused_settings_warnings(cfg: Config, normalization: str | None = None, sparse_labels: bool = False,
                             names: Names = Names()) -> list[str]:
    """One line per setting given away from its default that the run will not use.

    Args:
        cfg: the run's config.
        normalization: ``data.normalization`` as resolved for the dataset (``auto`` becomes ``ct`` or
            ``zscore`` from the channels' names); None where the dataset is not read yet, when an
            ``auto`` normalization cannot say whether ``data.ct_window`` will be used.
        sparse_labels: the dataset declares an ignore label (voxels nobody annotated).
        names: how the caller names the settings: the config's keys (``optim.optimizer: sgd``) on the command
            line, the keywords (``optimizer='sgd'``) to the estimator, which was told the config's until the
            ninety-second session.
    """
    warnings = []
    optim, data, train = cfg.optim, cfg.data, cfg.train
    named, value, written = names.setting, names.value, _written_by(names)

    def unused(setting: str, given, why: str) -> None:
        warnings.append(f"warning: {names.set_to(setting, given)} has no effect in this run: {why}")

    if optim.optimizer == "adamw":
        for name in ("momentum", "nesterov"):
            if getattr(optim, name) != getattr(OptimConfig, name):
                unused(f"optim.{name}", getattr(optim, name),
                       f"{named('optim.optimizer')} is {value('adamw')}, whose moments are its own (betas); set "
                       f"{written('optim.optimizer', 'sgd')} to train with momentum, or leave it out")
    if optim.schedule != "poly" and optim.poly_exponent != OptimConfig.poly_exponent:
        unused("optim.poly_exponent", optim.poly_exponent, f"{named('optim.schedule')} is {value(optim.schedule)}; "
                                                           f"set {written('optim.schedule', 'poly')} to decay by it")
    if optim.lr_scaling == "none" and optim.base_batch_size != OptimConfig.base_batch_size:
        unused("optim.base_batch_size", optim.base_batch_size,
               f"{named('optim.lr_scaling')} is {value('none')}, so {named('optim.lr')} is used as given at every "
               f"batch size; set {written('optim.lr_scaling', 'linear')} or {value('sqrt')} to scale it from that "
               f"batch")
    if data.dataset != DataConfig.dataset:
        for name in ("num_cases", "num_validation", "seed"):
            if getattr(data.synthetic, name) != getattr(SyntheticConfig, name):
                unused(f"data.synthetic.{name}", getattr(data.synthetic, name),
                       f"it shapes the embedded phantoms, and data.dataset is {data.dataset}")
    window_unused = data.normalization == "zscore" or (normalization is not None and normalization != "ct")
    if window_unused and tuple(data.ct_window) != DataConfig.ct_window:
        chosen = (f" ({named('data.normalization')}: {value('auto')}, from the channels' names)"
                  if data.normalization == "auto" else "")
        unused("data.ct_window", list(data.ct_window), f"the images are z-scored{chosen}; the window clips Hounsfield "
                                                       f"units under {written('data.normalization', 'ct')}")
    # With an ignore label a centre falls back to a labelled voxel, drawn by class_balanced, where
    # it finds no annotated one (data/sampling.py): scribbles drew the rare class 0.45 of the time
    # against 0.10 without it (eighty-sixth session's review), so it is not said there.
    if data.class_balanced and data.foreground_fraction == 0 and not sparse_labels:
        unused("data.class_balanced", True,
               f"{named('data.foreground_fraction')} is 0, so no patch is centred on a labelled voxel")
    if data.augment == "none" and data.augment_on != DataConfig.augment_on:
        unused("data.augment_on", data.augment_on, f"{named('data.augment')} is {value('none')}")
    if not train.compile.enabled:
        for name in ("backend", "mode"):
            if getattr(train.compile, name) != getattr(CompileConfig, name):
                unused(f"train.compile.{name}", getattr(train.compile, name),
                       f"{named('train.compile.enabled')} is {value(False)} (the launch's --dynamo_backend decides "
                       f"then); set {written('train.compile.enabled', True)} to compile with it")
    if train.val_every == 0:
        for name in ("sw_batch_size", "sw_overlap", "val_distances", "val_tolerance_mm"):
            if getattr(train, name) != getattr(TrainConfig, name):
                unused(f"train.{name}", getattr(train, name), f"{named('train.val_every')} is 0, so the run never "
                                                              f"validates")
    elif not train.val_distances and train.val_tolerance_mm != TrainConfig.val_tolerance_mm:
        unused("train.val_tolerance_mm", train.val_tolerance_mm,
               f"it is surface Dice's tolerance, and {named('train.val_distances')} is {value(False)}; set it "
               f"{value(True)} for HD95 and surface Dice")
    return warnings


def _written_by(names: Names):
    """How the caller writes a setting it is told to set: a config file's ``optim.optimizer: sgd`` on the command
    line (the key's), the keyword's ``optimizer='sgd'`` to the estimator."""
    return lambda key, value: f"{key}: {names.value(value)}" if names.prefix else names.set_to(key, value)
