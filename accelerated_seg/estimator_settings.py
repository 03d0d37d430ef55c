"""The estimator's keyword settings: each checked in the words it was given in (``lr=-1``, not ``optim.lr``),
a run config made of a Dataset's data settings and keywords, and a keyword no config has refused with where
this API takes it (a data setting given to fit, nobrainer's ``n_class``, Keras' ``epochs``) or the closest
name. Shared by ``Dataset`` (estimator_dataset) and ``Segmentation`` (estimator)."""
from __future__ import annotations

import copy
import dataclasses
import difflib

from .config import (CompileConfig, Config, ConfigError, DataConfig, OptimConfig, TrainConfig, closest_key,
                     check_values, did_you_mean)
from .model_folders import Names


def checked_config(cfg: Config, where: str, keywords: Names | None = None) -> Config:
    """``check_values(cfg)``, its ConfigError said by ``where``, each setting as ``keywords`` names it (the config's
    key where None: a Config given). Named where the message is made since the ninety-fourth session: a regular
    expression over the whole message rewrote the config's keys, and the value given too (a cache_dir under a
    folder named data.fold was said to lie under fold/)."""
    try:
        return check_values(cfg, keywords)
    except ConfigError as error:
        raise ConfigError(f"{where}: {error}") from None


def field_names(dataclass) -> list[str]:
    return [f.name for f in dataclasses.fields(dataclass)]


def run_config(data: DataConfig, settings: dict) -> Config:
    """A run config of ``data`` with ``settings``, each a ``TrainConfig`` or ``OptimConfig`` field by name."""
    settings = dict(settings)
    refuse_unknown(settings, (TrainConfig, OptimConfig), "Dataset.config: {} is not a training or optimizer setting")
    optim = {name: settings.pop(name) for name in list(settings) if name in field_names(OptimConfig)}
    if isinstance(settings.get("compile"), bool):  # compile=True: inductor, as fit(compile=True)
        settings["compile"] = CompileConfig(enabled=settings["compile"])
    # A copy: the Dataset's own DataConfig, edited through the config (cfg.data.validation_fraction = ...),
    # changed the Dataset the user fits again, and Dataset.fit's check then saw no difference (a review,
    # ninety-third session)
    cfg = Config(data=copy.deepcopy(data))
    cfg.train = dataclasses.replace(cfg.train, **settings)
    cfg.optim = dataclasses.replace(cfg.optim, **optim)
    return cfg


# DataConfig fields that Dataset.from_files sets from its own arguments. Given again as settings, they
# would disagree with them: patch_size was a TypeError, and labels= was kept in the run's config while
# the cases were checked against n_classes.
FROM_FILES_OWN = {
    "patch_size": "block_shape=(X, Y, Z), or one edge for a cube",
    "labels": "n_classes=N, the classes 0..N-1 (label_values=[0, 1, 2, 4] for other values), named by "
              "class_names=[...] (and ignore_value=V for voxels nobody annotated)",
    "dataset": "the pairs; data.dataset names a config file's cases (a dataset.json, an nnU-Net folder, a CSV) "
               "for `accelerated-seg train` or accelerated_seg.train.train",
    "synthetic": "the pairs; data.synthetic sizes the embedded phantoms of a config file's data.dataset: synthetic",
}


# Dataset.from_files' arguments that are no config field
FROM_FILES_ARGUMENTS = ("block_shape", "n_classes", "validation_pairs", "ignore_value", "class_names",
                         "channel_names", "label_values")


# predict's and evaluate's keyword options, passed on to inference.predict_file. Here, so that one given to
# Segmentation(...), fit(...) or from_files is told where it goes: keep_largest=True was offered keep_last (the
# checkpoints kept), device='cpu' multi_gpu=True, and tta= the fifty settings alone (h153's walk, 128th session).
PREDICT_OPTIONS = ("overlap", "tta", "precision", "aggregate_on_cpu", "transforms_on_device", "device",
                   "keep_largest")


# Where this API takes each kind of setting, for one given in the wrong place (Segmentation(num_workers=0)).
_TAKEN_BY = ((DataConfig, "a data setting: give it to Dataset.from_files(pairs, ..., {name}=...)"),
             (TrainConfig, "a training setting: give it to Segmentation(...) or fit(...)"),
             (OptimConfig, "an optimizer setting: give it to Segmentation(...) or fit(...)"))


def _where_it_goes(name: str) -> str | None:
    """Where the API takes the setting ``name`` (see _TAKEN_BY); None for a name no config has."""
    if name == "batch_size":
        return "the per-device batch: give it as Dataset.batch(n), or to Segmentation(...) or fit(...)"
    if name in ("precision", "multi_gpu"):  # Segmentation's own, not a config's: fit(precision=...) listed every field
        return (f"an argument of Segmentation: give it there, Segmentation(..., {name}=...)"
                + (" (or launch with accelerate launch --mixed_precision)" if name == "precision" else ""))
    if name in PREDICT_OPTIONS:
        also = {"overlap": " (validation's during training is sw_overlap)",
                "device": " (fit trains on the device accelerate chooses: a GPU where one is visible)"}.get(name, "")
        return (f"an option of predict and evaluate: give it there, model.predict(x, ..., {name}=...) or "
                f"model.evaluate(dataset, ..., {name}=...){also}")
    if name in FROM_FILES_OWN:
        return f"a data setting: give it to Dataset.from_files as {FROM_FILES_OWN[name]}"
    if name in FROM_FILES_ARGUMENTS:  # fit(data, block_shape=32) listed every training setting before
        return f"an argument of Dataset.from_files: give it there, Dataset.from_files(pairs, ..., {name}=...)"
    return next((taken_by.format(name=name) for cls, taken_by in _TAKEN_BY if name in field_names(cls)), None)


def refuse_unknown(settings: dict, fields_of, message: str, not_listed=(), own=()) -> None:
    """A ConfigError naming the keyword arguments that are not fields of the dataclass ``fields_of``
    (or of any in a tuple of them), instead of the dataclass's TypeError: where the API takes one that
    another config has, or else the closest name (of those fields and the caller's ``own`` arguments,
    or another tool's name for one of this API's), and the fields there are (but those in ``not_listed``)."""
    classes = fields_of if isinstance(fields_of, tuple) else (fields_of,)
    if unknown := sorted(set(settings) - {name for cls in classes for name in field_names(cls)}):
        for name in unknown:
            if (where := _where_it_goes(name)) is not None:
                raise ConfigError(f"{message.format(name)} but {where}")
        names = [n for cls in classes for n in field_names(cls) if n not in not_listed]
        # a predict option misspelt (keep_largst, overlaps) was offered the training setting nearest in spelling,
        # keep_last (the checkpoints kept) or sw_overlap (validation's), as the option itself was until the 128th
        # session (the review r131): told the option it is nearest, and where that goes. Not another tool's name
        # that means something here: Lightning's devices=2 is multi_gpu, not predict's device
        near = closest_key(unknown[0], [*names, *own, *PREDICT_OPTIONS])
        if near in PREDICT_OPTIONS and near not in (*names, *own) and unknown[0] not in _OTHER_TOOLS_NAMES:
            raise ConfigError(f"{message.format(unknown[0])}; did you mean {near!r}, {_where_it_goes(near)}")
        listed = "; ".join(f"{cls.__name__}'s fields: {', '.join(n for n in field_names(cls) if n not in not_listed)}"
                           for cls in classes)
        raise ConfigError(message.format(", ".join(unknown)) + _closest(unknown[0], [*names, *own])
                          + f"; the settings are {listed}")


#: What nobrainer, Keras or Lightning call this API's arguments, and where this API takes each: the
#: YAML path said "did you mean" (config.NAMED_ELSEWHERE), the estimator listed fifty names (85th session).
_API_PLACES = {"lr": "lr=, given to Segmentation(...) or fit(...)", "epochs": "fit(dataset, epochs=N)",
               "steps": "fit(dataset, steps=N)", "n_classes": "Dataset.from_files(pairs, n_classes=N)",
               "block_shape": "Dataset.from_files(pairs, block_shape=(X, Y, Z))",
               "validation_fraction": "Dataset.from_files(pairs, validation_fraction=F)",
               "class_names": "Dataset.from_files(pairs, class_names=[...])",
               "channel_names": "Dataset.from_files(pairs, channel_names=[...])",
               "spacing": "Dataset.from_files(pairs, spacing=(X, Y, Z))",
               "val_every": "val_every=, given to Segmentation(...) or fit(...)",
               "precision": "Segmentation(model, precision='bf16')",
               "multi_gpu": "Segmentation(model, multi_gpu=True)"}


_OTHER_TOOLS_NAMES = {**dict.fromkeys(("learning_rate", "lr_rate", "lrate"), "lr"),
                      **dict.fromkeys(("epoch", "num_epochs", "n_epochs", "max_epochs"), "epochs"),
                      **dict.fromkeys(("step", "num_steps", "n_steps"), "steps"),
                      **dict.fromkeys(("n_class", "num_classes", "classes"), "n_classes"),
                      **dict.fromkeys(("patch", "patch_shape", "blockshape", "block_size"), "block_shape"),
                      **dict.fromkeys(("eval_size", "validation_split", "val_fraction"), "validation_fraction"),
                      **dict.fromkeys(("label_names", "class_labels"), "class_names"),
                      **dict.fromkeys(("modality", "modalities", "channel_labels"), "channel_names"),
                      # Keras' fit and this package's own train.fit (an audit: each listed fifty names)
                      "verbose": "progress_bar", "initial_epoch": "resume", "checkpoint_dir": "output_dir",
                      # MONAI tutorials' names, which the config's keys are told (config.NAMED_ELSEWHERE) and these
                      # keywords were not: the list of fifty names alone (hundred-and-fifth session)
                      **dict.fromkeys(("roi_size", "spatial_size"), "block_shape"), "pixdim": "spacing",
                      "val_interval": "val_every", **dict.fromkeys(("amp", "mixed_precision"), "precision"),
                      **dict.fromkeys(("gpus", "num_gpus", "devices"), "multi_gpu")}


def _closest(name: str, names: list[str]) -> str:
    """" (did you mean ...?)" for an unknown keyword: the closest of ``names`` in spelling, or where
    this API takes what another tool names so; else ""."""
    if hint := did_you_mean(name, names):
        return hint
    meant = _OTHER_TOOLS_NAMES.get(name) or (name if name in _API_PLACES else None)
    if meant is None and (near := difflib.get_close_matches(str(name), list(_OTHER_TOOLS_NAMES), n=1, cutoff=0.8)):
        meant = _OTHER_TOOLS_NAMES[near[0]]  # learnin_rate: learning_rate's 'lr', too far in spelling from lr itself
    unit = _COUNTED_OTHERWISE.get(name, "")
    return f" (did you mean {_API_PLACES[meant]}?{unit})" if meant and meant not in names else \
        (f" (did you mean {meant!r}?{unit})" if meant else "")


# Another tool's name whose number counts something else here: MONAI's val_interval counts epochs, val_every optimizer
# steps, which a config's key was told (config.NAMED_ELSEWHERE) and the keyword, "did you mean 'val_every'?" alone,
# was not in the hundred-and-fifth session: val_interval=2 given as val_every=2 validated every second step
_COUNTED_OTHERWISE = {"val_interval": " It counts optimizer steps, where MONAI's val_interval counts epochs"}

