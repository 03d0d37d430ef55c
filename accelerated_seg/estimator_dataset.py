"""The estimator's ``Dataset``: labelled cases, as ``Dataset.from_files`` takes them (pairs, a MONAI datalist, an
HF dataset's rows), and how training cuts and augments patches from them (``batch``, ``binarize``, ``augment``).
Each call returns a new Dataset; it holds a ``Manifest`` and a ``DataConfig``, exactly what ``accelerated-seg
train`` reads from a YAML file, and its ``loader`` and ``fit`` are the training loop's own. Each refusal names
the argument as ``from_files`` was given it."""
from __future__ import annotations

import contextlib
import dataclasses
import os
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Sequence

import numpy as np

from .checkpoint_files import resolve_resume
from .config import Config, ConfigError, DataConfig, OptimConfig, TrainConfig, is_whole_number
from .data.cache import PreprocessedCache
from .data.cases import Case, names_nothing
from .data.errors import DataError
from .data.formats.pairs import malformed_entry
from .data.labels import IGNORE_NAME, MAX_CLASSES, labels_declaration
from .data.loader import patch_dataset, patches_per_epoch, train_loader
from .data.manifest import Manifest, from_pairs
from .data.prepare import cache_root, prepare_manifest, preprocess_settings
from .data.workers import refuse_unguarded_main, stop_workers_at_exit
from .estimator_fine_tuning import named_as_its_start
from .estimator_interrupted import give_back_an_import_lock_left_held
from .estimator_launch import check_the_network_fits_the_blocks
from .interrupts_between_imports import interrupts_between_imports
from .estimator_settings import (FROM_FILES_ARGUMENTS, FROM_FILES_OWN, checked_config, refuse_unknown,
                                 run_config)
from .launch_env import launched_processes
from .model_folders import DATASET_FIT_NAMES, ESTIMATOR_NAMES, Names, callers_names
from .own_warnings import AcceleratedSegWarning
from .regions import Regions

#: The runnable script of this API, which the refusals point to for what it shows (its main guard).
EXAMPLE = "examples/estimator.py"


@dataclasses.dataclass(frozen=True)
class Dataset:
    """A set of labelled cases plus how to cut and augment training patches from them.

    Args:
        manifest: the cases and their split.
        data: the data settings (patch size, augmentation, preprocessing, ...).
        batch_size: per-device batch, or None for the training default.
        pairs: the original pairs (kept so ``binarize`` can rebuild the label mapping).
        label_values: the label files' values of the classes that ``from_files`` was given, or None (0..n-1).
        class_names, channel_names: the names ``from_files`` was given, or None (kept so ``binarize``
            can name its classes, and so ``fit`` knows that a model's names are not to be kept).
    """

    manifest: Manifest
    data: DataConfig
    batch_size: int | None = None
    pairs: tuple = ()
    validation_pairs: tuple | None = None
    n_classes: int | None = None
    ignore_value: int | None = None
    class_names: tuple | None = None
    channel_names: tuple | None = None
    label_values: tuple | None = None

    @classmethod
    def from_files(cls, pairs: Sequence, block_shape: Sequence[int] = (128, 128, 128), n_classes: int | None = None,
                   validation_pairs: Sequence | None = None, validation_fraction: float = 0.2,
                   ignore_value: int | None = None, class_names: Sequence[str] | None = None,
                   channel_names: Sequence[str] | None = None, label_values: Sequence[int] | None = None,
                   **data_settings) -> "Dataset":
        """Cases from ``[(image or [channel images], label), ...]``.

        Args:
            pairs: training (and, without ``validation_pairs``, validation) cases: ``(image or [channel
                images], label)`` each, or a MONAI datalist's ``{"image": ..., "label": ...}``.
            block_shape: training patch size (nobrainer's name for it); one number is a cube.
            n_classes: classes including background; labels must hold values 0..n_classes-1 (after
                ``binarize()``, any whole value >= 0: a FreeSurfer aseg trains as brain vs not brain).
                Default: 2, or as many as ``label_values``.
            label_values: the label files' own value of each class, background (0) first, ascending, where they
                are not 0..n_classes-1: BraTS' ``[0, 1, 2, 4]`` trains 4 classes, 4 as class 3 (a dataset.json's
                "labels" and a config's ``data.labels`` declare them so); predict writes them back, 4 for class 3.
                Classes are named ``class_<value>`` unless ``class_names`` names them.
            validation_pairs: held-out cases; default (None): a seeded ``validation_fraction`` of
                ``pairs``. An empty list trains on every pair, without validation (give ``fit`` ``val_every=0``).
                Beside pairs with "fold" keys, ``num_folds=`` their number of folds validates on fold ``fold=``
                of the keys instead (these then unused), and a ``fold=`` alone is refused (docs/data.md, Pairs).
            ignore_value: the labels' value for voxels nobody annotated (sparse annotation; nnU-Net's
                "ignore" label, e.g. ``n_classes``): left out of the loss and the Dice.
            class_names: a name for each class training sees, background first (``n_classes`` of them;
                2 after ``binarize()``), e.g. ``["background", "edema", "enhancing"]``: the metrics'
                (``dice_edema``) and the export's names. Default: a model ``fit`` starts from (loaded,
                or ``init_from``) names them where it has as many classes, else ``background``,
                ``class_1``, ... (``foreground`` after ``binarize()``).
            channel_names: a name for each image channel, in the pairs' order, e.g. ``["FLAIR", "T1w"]``.
                Default: a model ``fit`` starts from names them where it has as many, else ``image``
                (``image_0``, ``image_1``, ... for several).
            data_settings: any other ``DataConfig`` field, e.g. ``spacing=(1, 1, 1)``, ``cache_dir=...``,
                but those the arguments above set (``patch_size``, ``labels``, ``dataset``, ``synthetic``).
        """
        for name in data_settings.keys() & FROM_FILES_OWN.keys():
            raise ConfigError(f"Dataset.from_files: {name} is given here as {FROM_FILES_OWN[name]}")
        refuse_unknown(data_settings, DataConfig, "Dataset.from_files: {} is not a data setting",
                        not_listed=FROM_FILES_OWN,  # taken here by other names (block_shape, ...)
                        own=FROM_FILES_ARGUMENTS)
        label_values = _label_values(label_values, n_classes)
        n_classes = (len(label_values) if label_values is not None else 2) if n_classes is None else n_classes
        if not is_whole_number(n_classes, 2):
            binary = " (binary segmentation is n_classes=2 here: nobrainer's n_classes=1)" if n_classes == 1 else ""
            raise ConfigError(f"Dataset.from_files: n_classes must be a whole number >= 2 (the classes including "
                              f"background), got {n_classes!r}{binary}")
        n_classes = int(n_classes)  # a NumPy integer too
        # Augmentation is asked for with augment(), as in nobrainer: on by default ("light", the config's
        # default), augment() changed nothing and leaving it out did not turn it off (85th session's probe).
        data = DataConfig(patch_size=_patch_edges(block_shape), validation_fraction=validation_fraction,
                          **{"augment": "none", **data_settings})
        # a bad setting fails here, not at fit, each named as given here (split_seed=-1, spacing=-1, num_folds=5)
        data = checked_config(Config(data=data), "Dataset.from_files", ESTIMATOR_NAMES).data
        class_names, channel_names = _names(class_names, "class_names"), _names(channel_names, "channel_names")
        pairs = _rows(pairs, "pairs")
        validation_pairs = _rows(validation_pairs, "validation_pairs") if validation_pairs is not None else None
        manifest = _manifest(pairs, validation_pairs, n_classes, data, ignore_value, class_names, channel_names,
                             values=label_values)
        # what training sees, as binarize() gives it: binarize=True here kept the given count (until the 89th session)
        return cls(manifest=manifest, data=data, pairs=pairs, validation_pairs=validation_pairs,
                   n_classes=manifest.num_classes, ignore_value=ignore_value, class_names=class_names,
                   channel_names=channel_names, label_values=label_values)

    def __repr__(self) -> str:
        """What training would see, in a line: the dataclass's own repr lists every case and every
        data setting, ``dataset='synthetic'`` among them (a DataConfig default the cases replace)."""
        manifest, data = self.manifest, self.data
        outputs = (f"{manifest.regions.count} regions" if manifest.regions is not None
                   else f"{manifest.num_classes} classes ({', '.join(manifest.labels.values())})")
        if self.label_values is not None:  # BraTS' 4: the classes' values in the files, which training maps
            outputs += f" of label values {', '.join(map(str, self.label_values))}"
        described = [f"{len(manifest.training)} training and {len(manifest.validation)} validation cases, "
                     f"split: {manifest.split}",
                     _channels_said(manifest.channels),
                     outputs + (", binarized" if manifest.binarized else ""),
                     f"block_shape {tuple(data.patch_size)}",
                     "batch " + ("the training default" if self.batch_size is None else str(self.batch_size)),
                     f"augment {data.augment}" + ("" if data.augment_on == "auto" else f" on the {data.augment_on}")]
        if manifest.ignore_value is not None:
            described.append(f"ignore value {manifest.ignore_value}")
        return f"<Dataset: {'; '.join(described)}>"

    def batch(self, batch_size: int) -> "Dataset":
        """Per-device batch size."""
        if not is_whole_number(batch_size, 1):
            raise ConfigError(f"Dataset.batch: the per-device batch size must be a whole number >= 1, "
                              f"got {batch_size!r}")
        return dataclasses.replace(self, batch_size=int(batch_size))

    def binarize(self) -> "Dataset":
        """Every non-zero label value, declared or not, becomes class 1 (e.g. an aseg as brain vs not brain)."""
        data = dataclasses.replace(self.data, binarize=True)
        manifest = _manifest(self.pairs, self.validation_pairs, self.n_classes, data, self.ignore_value,
                             self.class_names, self.channel_names, where="Dataset.binarize", values=self.label_values)
        # n_classes is what training sees: the 2 classes (it stayed the labels' own before the 85th session)
        return dataclasses.replace(self, data=data, manifest=manifest, n_classes=manifest.num_classes)

    def augment(self, profile: str = "light", on: str = "auto") -> "Dataset":
        """Augment training patches with a profile (none, light, standard, heavy); ``on="gpu"`` runs the
        spatial part on the device inside the training loop, ``on="cpu"`` in the loader workers, and
        ``on="auto"`` on the GPU when training on one (``data.augment_on``). Without it a Dataset's
        patches are not augmented, as in nobrainer (``augment=`` of ``from_files`` sets a profile too)."""
        data = dataclasses.replace(self.data, augment=profile, augment_on=on)
        data = checked_config(Config(data=data), "Dataset.augment", _AUGMENT_NAMES).data  # profile=, on=
        return dataclasses.replace(self, data=data)

    def __iter__(self):
        """nobrainer 0.5's ``train, evaluate = Dataset.from_files(...)``, refused with the way here."""
        raise ConfigError("Dataset.from_files returns one Dataset that holds the training and the validation cases "
                          "(validation_pairs, or a seeded validation_fraction of the pairs); fit it, and evaluate "
                          "scores its validation cases: there is no pair of Datasets to unpack")

    # nobrainer's Dataset has these two; a port of its script met a bare AttributeError (sixty-ninth session).
    def shuffle(self, *_, **__) -> "Dataset":
        """nobrainer's ``shuffle(buffer_size)``, refused with the way here: there is nothing to ask for."""
        raise ConfigError("Dataset.shuffle: the loader already draws the training patches in a new order every "
                          "epoch, seeded by the training setting seed (Segmentation(..., seed=1) for another "
                          "order); leave shuffle() out")

    def repeat(self, *_, **__) -> "Dataset":
        """nobrainer's ``repeat(n)``, refused with the way here: the length of training is fit's."""
        raise ConfigError("Dataset.repeat: fit(epochs=N) or fit(steps=N) sets how long training runs, and the "
                          "loader goes over the patches as often as that takes; leave repeat() out")

    def config(self, **settings) -> Config:
        """A full run config with a copy of these data settings; each of ``settings`` is a ``TrainConfig``
        field (``max_steps``, ``val_every``...) or an ``OptimConfig`` one (``lr``, ``weight_decay``...).
        Its data settings, edited, leave the Dataset as it is, and ``fit`` refuses the config."""
        cfg = self.unchecked_config(settings, "Dataset.config")
        # their values too, here and as given (lr=-1), as Segmentation(...) checks them: Dataset.fit(config) said
        # "setting optim.lr", beside its run's keywords (lr), until the ninety-third session. The config returned is
        # as made: one edited afterwards is checked by Dataset.fit, in its own words (optim.lr).
        checked_config(cfg, "Dataset.config", DATASET_FIT_NAMES)
        return cfg

    def unchecked_config(self, settings: dict, caller: str) -> Config:
        """``config(**settings)`` before its values are checked: a full run config with a copy of these data
        settings and this Dataset's batch, for a caller that checks the values in its own words
        (``Segmentation.fit``: ``lr``, as its keywords, where ``Dataset.config`` says them as its own). Public
        since the ninety-ninth session: ``Segmentation.fit`` called the private ``_config`` it was before.

        Args:
            settings: ``TrainConfig`` and ``OptimConfig`` fields by name (``max_steps``, ``lr``...).
            caller: the method called, which the refusal names (``"fit"``; the batch given twice was said with no
                method's name until the ninety-first session).

        Returns:
            The run config, its values as given (``lr=-1`` too): check it with ``checked_config``.

        Raises:
            ConfigError: ``batch_size`` given, other than ``Dataset.batch(n)``'s.
        """
        batch = settings.get("batch_size")
        if batch is not None and self.batch_size is not None and batch != self.batch_size:
            raise ConfigError(f"{caller}: the per-device batch is given twice, as Dataset.batch({self.batch_size}) "
                              f"and as batch_size={batch!r}; give it once")
        return run_config(self.data, {**settings, "batch_size": self.batch_size if batch is None else batch})

    def _check_its_config(self, config: Config, train_settings: dict) -> None:
        """``fit(config, ...)`` trained the config's settings alone: keywords given with it, and this
        Dataset's own ``batch()``, ``augment()`` and ``binarize()`` where the config was made before
        them, were dropped without a word (seventy-third session's review); data settings edited in
        the config changed the Dataset itself, whose config shared them, until the ninety-third session."""
        if train_settings:
            raise ConfigError(f"Dataset.fit: {', '.join(sorted(train_settings))} given with a config, which holds "
                              f"the training settings: set them in Dataset.config(...), or drop the config")
        differ = [f"data.{name} ({getattr(config.data, name)!r}, and the Dataset's {getattr(self.data, name)!r})"
                  for name in _differing_fields(self.data, config.data)]
        if self.batch_size is not None and config.train.batch_size != self.batch_size:
            differ.append(f"train.batch_size ({config.train.batch_size}, and Dataset.batch({self.batch_size}))")
        if differ:  # its cases were split and checked with the Dataset's data settings, not the config's
            raise ConfigError(f"Dataset.fit: the config's {', '.join(differ)} differ from this Dataset's (a config "
                              f"made before .batch(), .augment(), .binarize() ..., or its data settings edited?): "
                              f"the data settings are the Dataset's; give them to Dataset.from_files (or .batch(), "
                              f".augment(), .binarize()) and make the config from that Dataset, dataset.config(...)")

    def loader(self, seed: int = 0, num_workers: int | None = None):
        """The training patch DataLoader for this process, built as the training loop builds it
        (preprocessing cache, patch dataset, epoch sampler), one epoch per pass: without accumulation
        its first pass is the training run's first epoch (which draws all its epochs from one pass).
        Its patches come fully augmented, unless ``augment(on="gpu")`` asked for each batch's
        ``"affine"`` to be applied by your code (``data.gpu_augment.apply_affine``); ``auto`` augments
        here, as there is no device.

        Each pass over it is the next epoch: new patches in a new order (``loader.sampler.set_epoch(e)``
        names one, as accelerate's prepared loaders do for every pass).
        """
        # Before the preprocessing: numpy's and the DataLoader's errors came at the first batch.
        # A NumPy integer too (np.random.randint's), as block_shape and batch take one: it was refused as no
        # whole number (an audit of the estimator)
        if not is_whole_number(seed, 0) or seed >= 2**32:
            raise ConfigError(f"Dataset.loader: seed must be a whole number >= 0 and < 2**32, got {seed!r}")
        if num_workers is not None and not is_whole_number(num_workers, 0):
            raise ConfigError(f"Dataset.loader: num_workers must be a whole number >= 0, got {num_workers!r}")
        seed, num_workers = int(seed), None if num_workers is None else int(num_workers)
        check_it_has_training_cases(self, "Dataset.loader")
        workers = self.data.num_workers if num_workers is None else num_workers
        # before the preprocessing, as train()
        refuse_unguarded_main(workers, setting="num_workers", what="a loader", example=EXAMPLE)
        # The pre-flight checks, as training runs them: a broken file was nibabel's traceback here, or
        # worse, patches of a mismatched label, before the thirty-second session.
        manifest, checked = prepare_manifest(self.data, ".", self.manifest)
        for warning in checked.warnings:
            warnings.warn(f"data warning: {warning}", AcceleratedSegWarning, stacklevel=2)
        batch, epoch = self.batch_size or 2, patches_per_epoch(len(manifest.training), self.data.samples_per_volume)
        if batch > epoch:  # else the sampler's ValueError, after the preprocessing, in its own arguments' words
            raise ConfigError(f"Dataset.loader: Dataset.batch({batch}) is more than one epoch's {epoch} patches "
                              f"({len(manifest.training)} case(s) x samples_per_volume "
                              f"{self.data.samples_per_volume}): lower the batch, or raise samples_per_volume")
        settings = preprocess_settings(self.data, manifest)
        checked.keep_records()  # nothing refuses the loader any more (check_records)
        cache = PreprocessedCache(cache_root(self.data), manifest.root, settings, manifest.num_classes,
                                  ignore_label=manifest.ignore_index is not None)
        cache.build(manifest.training)
        table = cache.load_table(cache.write_table(manifest.training))
        loader = train_loader(patch_dataset(table, self.data, seed, manifest.ignore_index), batch, workers, seed)
        stop_workers_at_exit(loader)
        return loader

    def fit(self, config: Config | None = None, *, names: Names | dict | None = None, **train_settings) -> dict:
        """Train on these cases with the one training loop (in this process, or every process of an
        ``accelerate launch``); returns the run summary.

        Args:
            config: a run config made by this Dataset's ``config(...)`` (then edited, say its
                ``model``); its data settings must be this Dataset's (edited, they are refused:
                the Dataset's cases were split and checked with its own), and the training settings
                are then its own, not keywords.
            names: the words its messages say the ways on in (a stop's line, the run folder's refusals), for a
                script whose user gives flags: a dict of ``model_folders.Names``' fields over Dataset.fit's own
                (``{"resume_again": "run the same command with --resume latest"}``), or a ``Names``; None: its
                keywords (``call Dataset.fit again with resume='latest'``), as ``Segmentation.fit(names=)``.
            train_settings: without ``config``, ``TrainConfig`` and ``OptimConfig`` fields by name.
        """
        with interrupts_between_imports():  # a decorator's frame would move the warnings' lines
            from .train import train

            give_back_an_import_lock_left_held()  # by a Ctrl-C of an earlier call: the case-building threads would hang
            refuse_unknown(train_settings, (TrainConfig, OptimConfig),
                            "Dataset.fit: {} is not a training or optimizer setting")
            check_it_has_training_cases(self, "Dataset.fit")
            names = callers_names(names, DATASET_FIT_NAMES, "Dataset.fit")
            if config is not None:
                self._check_its_config(config, train_settings)
            # lr="1e-3", as fit; a config's own settings are named as it names them
            cfg = checked_config(config or self.unchecked_config(train_settings, "Dataset.fit"), "Dataset.fit",
                                  names if config is None else None)
            # in from_files' words, as Segmentation.fit checks: "data.patch_size" alone before the 72nd session
            check_the_network_fits_the_blocks(cfg, self, launched_processes(), "Dataset.fit", names)
            resumed = None
            if cfg.train.resume:  # a resume goes on with its run's names, as Segmentation.fit's: train refuses a bad one
                with contextlib.suppress(ConfigError):
                    resumed = resolve_resume(cfg.train.resume, Path(cfg.train.output_dir) / "checkpoints")
            # its run's messages name its keywords (resume='latest'), not train's command line (--train.resume=latest)
            return train(cfg, manifest=named_as_its_start(self, resumed, cfg.train.init_from), names=names)


def check_it_has_training_cases(dataset: Dataset, where: str) -> None:
    """Refuses, in the words of ``where`` (the method called), to train on a Dataset of validation_pairs
    alone: that is a test set, for evaluate. Segmentation.fit asks it too, so it is a function of this
    module, beside the Dataset, rather than a private method reached from another module."""
    if not dataset.manifest.training:
        raise ConfigError(f"{where}: the Dataset has no training cases, only the {len(dataset.manifest.validation)} "
                          f"of its validation_pairs (a test set, which evaluate scores whole); give "
                          f"Dataset.from_files the pairs to train on")


def _refuse_no_room_for_the_ignore_value(n_classes: int, values: tuple, ignore_value, where: str) -> None:
    """The ignore value is stored as one class index more (``split_ignore``), and MAX_CLASSES indices fit in the
    byte a voxel: beside it, one class fewer. Says how many fit, the ignore value then, and whether leaving
    it out trains the classes as given."""
    room = MAX_CLASSES - 1
    plain = values == tuple(range(n_classes))
    given = f"n_classes={n_classes}" if plain else f"label_values' {len(values)} classes"
    then = f"{room} (n_classes={room}, ignore_value={room})" if plain else "a value above theirs"
    without = (f", or leave ignore_value out to train the {len(values)} classes" if len(values) <= MAX_CLASSES
               else "")
    raise DataError(f"{where}: {given} and ignore_value {ignore_value}: the unannotated voxels take a class index "
                    f"of their own, and the stored labels hold {MAX_CLASSES} (one byte per voxel), so at most {room} "
                    f"classes (background included) train beside an ignore_value. Merge classes into {room} and "
                    f"give ignore_value {then}{without}")


def _differing_fields(ours, theirs) -> list[str]:
    return [f.name for f in dataclasses.fields(ours) if getattr(ours, f.name) != getattr(theirs, f.name)]


def _shape_of_the_first_file(manifest: Manifest) -> tuple[int, ...] | None:
    """The shape of the first case's one image file, from its header: (x, y, z, C) of a file of C volumes, as the
    Decathlon's BrainTumour and Prostate keep their channels, which a dataset.json's "modality" declares
    (formats.msd); (x, y, z) of a 3D file. None where the first case has several files or none that reads: the
    pre-flight checks read every file's, and name an unreadable one with the way on. ``channel_names`` of C names
    declare the channels of such files, as "modality" does: until the hundred-and-fifth session they were refused as
    more names than channels, and load_cases' recipe for from_files (its refusal of a dataset's path) failed on such a
    dataset."""
    first = _first_case(manifest)
    if first is None or len(first.images) != 1 or not first.images[0].is_file():
        return None
    import nibabel  # the header alone: the voxels are read by the pre-flight checks

    try:
        return tuple(nibabel.load(first.images[0]).shape)
    except Exception:  # an unreadable file is the checks' to name, with the file and the way on
        return None


def _names_judged_by_the_checks(channel_names: tuple, shape: tuple[int, ...] | None) -> bool:
    """Whether ``channel_names`` of another number than the pairs' files stand, the first case's one file, of
    ``shape``, judged by the pre-flight checks: a stack of as many volumes, (x, y, z, C), or a file of five axes or
    more, no stack of 3D volumes, which the checks name as predict does (NIfTI's vector layout, (x, y, z, 1, C), as
    ITK writes multi-component images: drop its fourth axis). Such a file given 2 names was told "each case has 1
    image channel(s): name each", its names counted, not its layout, until the hundred-and-twentieth session (helper
    h109)."""
    from .data.volume_opening import volumes_in

    return shape is not None and (volumes_in(shape) == len(channel_names)
                                  or (len(shape) > 4 and volumes_in(shape) is None))


def _first_case(manifest: Manifest) -> Case | None:
    """The case whose image file the channel_names are judged by: the first training case, else validation's."""
    return next(iter([*manifest.training, *manifest.validation]), None)


def _channel_names_refused(channel_names: tuple, manifest: Manifest, shape: tuple[int, ...] | None,
                           where: str) -> ConfigError:
    """The refusal of ``channel_names`` of another number than the cases' channels. A first case of one file, of
    ``shape``, that holds another number of volumes is told in the words predict, evaluate and training's check use
    for it (``volume_opening.one_file_for_channels_said``; "each case has 1 image channel(s): one file, whose first
    (...) holds 3 volumes (x, y, z, 3): name each, in the pairs' order" until the hundred-and-twenty-first session,
    helper h112), its file named, with the names' own way where the volumes are the channels meant. Several files a
    case: "each case has 2 image channel(s)", the names to count as the files are ("each case has 1 image
    channel(s)" alone was said of a 3D first case among 4D ones until the hundred-and-fifth session's review)."""
    from .data.volume_opening import channel_first_advice, one_file_for_channels_said, volumes_in
    from .inference_inputs import channel_order

    if shape is not None and (advice := channel_first_advice(shape, "image")):
        # as predict and the checks tell it (channel_volumes_refusal, _not_3d_advice): a (2, x, y, z) file given 2
        # names was told to be given x names, "in the file's order", until the review of h112
        return ConfigError(f"{where}: {_first_case(manifest).images[0]}: {advice}")
    volumes = volumes_in(shape) if shape is not None else None
    if volumes is None:
        return ConfigError(f"{where}: channel_names gives {len(channel_names)} name(s) ({', '.join(channel_names)}), "
                           f"but each case has {manifest.num_channels} image channel(s): name each, in the pairs' "
                           f"order")
    names = {"in_channels": len(channel_names), "channels": dict(enumerate(channel_names))}
    said = one_file_for_channels_said(shape, len(channel_names), "channel_names declares", channel_order(names))
    own = "give channel_names one name, or none" if volumes == 1 else \
        f"give channel_names {volumes} names, in the file's order"
    return ConfigError(f"{where}: {_first_case(manifest).images[0]}: {said}; or, where its {volumes} volume"
                       f"{'' if volumes == 1 else 's'} {'is the one channel' if volumes == 1 else 'are the channels'}, "
                       f"{own}")


def _manifest(pairs, validation_pairs, n_classes, data: DataConfig, ignore_value: int | None = None,
              class_names: tuple | None = None, channel_names: tuple | None = None,
              where: str = "Dataset.from_files", values: tuple | None = None) -> Manifest:
    # None, not an empty list, asks for the seeded split: validation_pairs=[] means "no validation
    # cases", and held out a fifth of the training pairs before the thirty-second session.
    held_out = list(validation_pairs) if validation_pairs is not None else None
    values = tuple(range(n_classes)) if values is None else values
    shown, above = (f"0..{n_classes - 1}" if values == tuple(range(n_classes)) else ", ".join(map(str, values)),
                    values[-1] + 1)
    # First, as no value of it goes with binarizing (else from_pairs' words, for a "labels argument" never given)
    if ignore_value is not None and data.binarize:
        raise DataError(f"Dataset.from_files: ignore_value {ignore_value} and .binarize() (data.binarize) do not go "
                        f"together: binarizing merges every value above 0 into the foreground, the unannotated "
                        f"voxels' too; keep the classes (n_classes), or leave ignore_value out")
    if ignore_value is not None and len(values) >= MAX_CLASSES:
        # Before the value's own checks, as no value fits: 256 classes with 255 were told to choose 256, then
        # refused in from_pairs' words of a "labels argument" never given (a review of the estimator).
        _refuse_no_room_for_the_ignore_value(n_classes, values, ignore_value, where)
    if ignore_value is not None and ignore_value in values:  # the dict below would drop that class
        raise DataError(f"Dataset.from_files: ignore_value {ignore_value} is a class's value (the classes are "
                        f"{shown}); give the unannotated voxels a value of their own, e.g. {above}")
    if ignore_value is not None and not is_whole_number(ignore_value, above):
        # else from_pairs' words: 'labels argument: the "ignore" label has value -1 ... e.g. "ignore": 3', of a
        # labels argument and an "ignore" label its user never wrote (ninety-first session)
        raise DataError(f"Dataset.from_files: ignore_value must be a whole number above the classes' values "
                        f"({shown}), e.g. {above}, got {ignore_value!r}")
    if not data.binarize and len(values) > MAX_CLASSES:
        # else from_pairs' words: "labels argument: ... or set data.binarize", an argument never given and the
        # config's setting (until the ninety-seventh session). .binarize() cannot follow a refused from_files.
        given = f"n_classes={n_classes}" if values == tuple(range(n_classes)) else f"label_values gives {len(values)}"
        raise DataError(f"{where}: {given} classes, but at most {MAX_CLASSES} (background included) can be trained: "
                        f"labels are stored one byte per voxel. Merge classes into at most {MAX_CLASSES}, or train "
                        f"one foreground class, as Dataset.binarize() does: Dataset.from_files(..., binarize=True)")
    trained = 2 if data.binarize else n_classes
    if class_names is not None and len(class_names) != trained:  # before the pairs are read: the count is known
        # From .binarize(), from_files' own count was n_classes': 2 names given there with a larger one were
        # refused, so the way is binarize=True there (a review: "give from_files 2 class_names" led to that)
        way = ("Dataset.from_files(..., binarize=True, class_names=['background', 'brain']) in place of "
               ".binarize()" if where == "Dataset.binarize" else "2 class_names, e.g. ['background', 'brain']")
        classes = (f"binarize() trains 2 classes, background and every other value as one: give {way}, or leave "
                   f"them out" if data.binarize else f"n_classes is {n_classes}: name every class, background first")
        raise ConfigError(f"{where}: class_names gives {len(class_names)} name(s) ({', '.join(class_names)}), but "
                          f"{classes}")
    declared = labels_declaration(n_classes) if values == tuple(range(n_classes)) else \
        {value: "background" if value == 0 else f"class_{value}" for value in values}
    labels = declared if ignore_value is None else {**declared, ignore_value: IGNORE_NAME}
    # Its messages and the split's unused settings said as its keywords (validation_fraction=0.3 not used), and
    # what was given the pairs as where: from_pairs' words, "data.validation_fraction=0.3 not used" beside fit's
    # "validation_fraction > 0", until the ninety-third session, and rewritten by a regular expression until the
    # ninety-fourth
    manifest = from_pairs(list(pairs), labels=labels, validation_pairs=held_out,
                          validation_fraction=data.validation_fraction, num_folds=data.num_folds, fold=data.fold,
                          seed=data.split_seed, binarize=data.binarize, where=where, names=ESTIMATOR_NAMES)
    manifest = dataclasses.replace(manifest, source_format="from_files")  # the checks' advice in its terms
    if channel_names is not None and len(channel_names) != manifest.num_channels \
            and not _names_judged_by_the_checks(channel_names, shape := _shape_of_the_first_file(manifest)):
        raise _channel_names_refused(channel_names, manifest, shape, where)
    # Set here rather than declared to from_pairs, whose binarize names the classes background/foreground.
    if class_names is not None:
        manifest = dataclasses.replace(manifest, labels=dict(enumerate(class_names)))
    if channel_names is not None:
        manifest = dataclasses.replace(manifest, channels=dict(enumerate(channel_names)))
    if data.regions is None:
        return manifest
    # now, not at fit: a declaration that does not fit the classes fails at from_files, and the
    # network's outputs are known to every check before training (one per region)
    regions = Regions.declared(data.regions, manifest.label_values, "Dataset.from_files: regions", data.region_order,
                               manifest.ignore_value)
    return dataclasses.replace(manifest, regions=regions, labels=_named_by_regions(manifest, regions, class_names))


def _named_by_regions(manifest: Manifest, regions: Regions, class_names: tuple | None) -> dict[int, str]:
    """The classes' names under ``regions``: each value one region paints named after it, as a config's
    ``data.regions`` names the values only regions name (``named_by_regions``: check's classes, the export's
    "labels"), where ``class_names`` names none; from_files' ``class_<value>`` names no structure, and stayed
    beside the regions' names until the ninety-ninth session. A value no region paints keeps its name."""
    if class_names is not None:
        return manifest.labels
    painted = regions.painted_names()
    return {index: painted.get(value, manifest.labels[index]) for index, value in enumerate(manifest.label_values)}


# Dataset.augment takes data.augment and data.augment_on as its profile and on
_AUGMENT_NAMES = dataclasses.replace(ESTIMATOR_NAMES, renamed=(("data.augment", "profile"), ("data.augment_on", "on")))


def _rows(pairs, name: str) -> tuple:
    """``pairs`` as a tuple of its rows, refusing what ``tuple()`` would take apart into something else:
    a dict of columns or an HF DatasetDict (their keys), a DataFrame (its column names), a path (its
    characters), one pair given alone (its two paths). Each became 'pairs[0] is 'image'' before; a number,
    Python's "'int' object is not iterable" traceback (ninety-first session); one pair of channel files
    alone, its first two channels read as a case's image and label (the same session). A set, whose
    order changes from run to run, split its cases differently each time (ninety-second session)."""
    if isinstance(pairs, (str, bytes, os.PathLike, Mapping, set, frozenset)) or hasattr(pairs, "columns") or \
            not isinstance(pairs, Iterable):
        raise ConfigError(f"Dataset.from_files: {name} must be a list of (image, label) pairs, MONAI datalist dicts "
                          f"or an HF datasets.Dataset of rows, got {type(pairs).__name__}{_what_it_is_as_rows(pairs)}")
    rows = tuple(pairs.tolist() if isinstance(pairs, np.ndarray) else pairs)  # a NumPy row is no Sequence
    if len(rows) == 2 and all(isinstance(row, (str, os.PathLike)) for row in rows):
        raise ConfigError(f"Dataset.from_files: {name} holds two paths, not pairs: give a list of (image, label) "
                          f"pairs, [({str(rows[0])!r}, {str(rows[1])!r})] for one case")
    if len(rows) == 2 and _is_channel_list(rows[0]) and isinstance(rows[1], (str, os.PathLike)):
        _refuse_one_pair_alone(pairs, rows, name)  # read on, its channels became an image and a label
    return rows


def _what_it_is_as_rows(pairs) -> str:
    """How to turn what ``_rows`` refuses into a list of pairs, where there is a way."""
    if isinstance(pairs, Mapping) and all(isinstance(value, (str, os.PathLike)) for value in pairs.values()):
        return ": a dict of image -> label paths is list(d.items())"  # told of columns, which it has none of
    if isinstance(pairs, Mapping):
        return ": a dict of columns is list(zip(d['image'], d['label'])), an HF DatasetDict is one of its splits " \
               "(d['train'])"
    if isinstance(pairs, (set, frozenset)):
        # the seeded split draws by position, and a set's order is its hashes': another split each run, and on
        # each process of a launch
        return (", whose order changes from one run to the next, and so would the seeded split of its cases: "
                "give a list, sorted(pairs)")
    if hasattr(pairs, "columns"):
        return ": a DataFrame is list(df[['image', 'label']].itertuples(index=False))"
    if isinstance(pairs, (str, os.PathLike)):
        # its classes and channel names too: without them a 3-class dataset.json became a binary Dataset, and a
        # CT channel "image", normalized by z-score (hundredth session's walk through the docs). Its regions too,
        # where it has them: their names are its classes' (m.labels), which without them named exclusive classes,
        # value 1 "whole tumor" (the same session's review)
        return (": a dataset's CSV, dataset.json or folder is read by accelerated_seg.data.manifest.load_cases: "
                "m = load_cases(path); from_files([(c.images, c.label) for c in m.training], "
                "validation_pairs=[(c.images, c.label) for c in m.validation], label_values=m.label_values, "
                "class_names=list(m.labels.values()), channel_names=list(m.channels.values()), "
                "ignore_value=m.ignore_value, ...), and, where m.regions is not None (an nnU-Net dataset of "
                "regions), regions=dict(zip(m.regions.names, m.regions.values)), region_order=list(m.regions.order)")
    return ""


def _refuse_one_pair_alone(pairs, rows: tuple, name: str) -> None:
    """Refuse ``([t1, t2], mask)``, one pair of channel files without its list, or ``[(a, a_seg), b]``, a
    list of pairs with a path alone for its second entry: their rows look alike. Python writes a pair as
    a tuple and its channels as a list, which tells them apart; ``[[a, a_seg], b]`` and ``((a, a_seg), b)``
    are told both ways, the entry first. The list of pairs was told it was one pair (ninety-second session)."""
    channels = ", ".join(repr(str(path)) for path in rows[0])
    one_case = f"[([{channels}], {str(rows[1])!r})]"
    if isinstance(pairs, tuple) and isinstance(rows[0], list):
        raise ConfigError(f"Dataset.from_files: {name} holds one pair, not pairs: give a list of (image, label) "
                          f"pairs, {one_case} for one case")
    entry = malformed_entry(f"Dataset.from_files: {name}[1]", rows[1])
    if not isinstance(pairs, tuple) and isinstance(rows[0], tuple):  # a list of pairs: the entry is the mistake
        raise DataError(entry)
    raise DataError(f"{entry}; or, where {name} is one case (its channel files, then its label), give it in a "
                    f"list: {one_case}")


def _is_channel_list(entry) -> bool:
    """A list (or tuple) of paths alone, as one case's channel files are given."""
    return isinstance(entry, (list, tuple)) and len(entry) > 0 and all(
        isinstance(path, (str, os.PathLike)) for path in entry)


def _channels_said(channels: dict[int, str]) -> str:
    """A Dataset's channels for its summary as ``accelerated-seg check`` says them: "2 channels (T1, T2)" by their
    names, "2 channels (none named)" where nothing names them (``cases.names_nothing``), "2 channels (0, 1 T2)" by
    index where some are named. The names a Dataset gives unnamed channels (``image``, ``image_0``) were said as if a
    user had given them, "1 channel (image)", until the hundred-and-twenty-fourth session (helper h132)."""
    count, by_index = f"{len(channels)} channel{'' if len(channels) == 1 else 's'}", sorted(channels.items())
    unnamed = [names_nothing(name) for _, name in by_index]
    if all(unnamed):
        return f"{count} (none named)"
    said = [name if not any(unnamed) else f"{index}" if nameless else f"{index} {name}"
            for (index, name), nameless in zip(by_index, unnamed)]
    return f"{count} ({', '.join(said)})"


def _names(names, argument: str) -> tuple[str, ...] | None:
    """``class_names`` or ``channel_names`` as a tuple of distinct, non-empty texts (None stays None);
    the count is checked against the cases by ``_manifest``. A text alone would be its characters."""
    if names is None:
        return None
    example = "['background', 'edema', 'enhancing']" if argument == "class_names" else "['FLAIR', 'T1w']"
    if isinstance(names, np.ndarray):
        names = names.tolist()
    if isinstance(names, (str, bytes, Mapping)) or not isinstance(names, Sequence) \
            or not all(isinstance(name, str) for name in names):
        raise ConfigError(f"Dataset.from_files: {argument} must be a list of names, one per "
                          f"{'class, background first' if argument == 'class_names' else 'image channel'}, "
                          f"e.g. {example}, got {names!r}")
    names = tuple(names)
    if blank := [index for index, name in enumerate(names) if not name.strip()]:
        raise ConfigError(f"Dataset.from_files: {argument} {list(names)}: name {blank[0]} is empty; give each a name")
    if repeated := sorted({name for name in names if names.count(name) > 1}):
        # the per-class metrics (val/dice_<name>) are keyed by name, and so are a run's logged channels
        raise ConfigError(f"Dataset.from_files: {argument} {list(names)} repeats {', '.join(repeated)}; give each "
                          f"its own name")
    if argument == "class_names" and (ignored := [n for n in names if n.strip().lower() == IGNORE_NAME]):
        # an export's "ignore" entry is read as the unannotated voxels' value, not as a class (split_ignore)
        raise ConfigError(f"Dataset.from_files: class_names names a class {ignored[0]!r}, the name of the unannotated "
                          f"voxels' value (ignore_value=), which is no class: give the class another name")
    return names


def _label_values(values, n_classes) -> tuple[int, ...] | None:
    """``label_values`` as a tuple of whole numbers, background 0 first, ascending, as many as ``n_classes``
    where it is given (None stays None). Named here, as given: from_pairs would say its "labels argument"."""
    if values is None:
        return None
    if isinstance(values, np.ndarray):
        values = values.tolist()
    example = "e.g. [0, 1, 2, 4] for BraTS' background, necrosis, edema and enhancing tumour"
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Sequence) \
            or not all(is_whole_number(value, 0) for value in values):
        raise ConfigError(f"Dataset.from_files: label_values must be a list of the label files' whole values >= 0, "
                          f"one per class, background (0) first, {example}; got {values!r}")
    values = tuple(int(value) for value in values)
    if len(values) < 2 or values[0] != 0 or list(values) != sorted(set(values)):
        raise ConfigError(f"Dataset.from_files: label_values {list(values)} must start with the background, 0, and "
                          f"go up, each value once, with at least one class beside it ({example})")
    if n_classes is not None and n_classes != len(values):
        raise ConfigError(f"Dataset.from_files: n_classes={n_classes!r}, but label_values gives {len(values)} "
                          f"classes ({', '.join(map(str, values))}); give one of them, or both alike")
    return values


def _patch_edges(block_shape) -> tuple[int, int, int]:
    """``block_shape`` as 3 edges: one number is a cube, as ``--patch`` takes it. Checked here, so that
    the error names the argument the user gave rather than the setting it becomes (data.patch_size)."""
    if isinstance(block_shape, np.ndarray) and block_shape.ndim == 1:
        block_shape = tuple(block_shape.tolist())  # Python numbers: an integer array's pass, a float one's fail
    edges = (block_shape,) * 3 if is_whole_number(block_shape, 1) else block_shape
    if not (isinstance(edges, (list, tuple)) and len(edges) == 3
            and all(is_whole_number(edge, 1) for edge in edges)):
        raise ConfigError(f"Dataset.from_files: block_shape must be one edge or 3 edges, whole numbers of voxels "
                          f">= 1 (e.g. 128 or (128, 128, 96)), got {block_shape!r}")
    return tuple(int(edge) for edge in edges)

