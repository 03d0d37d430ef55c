"""``accelerated-seg check``: a dataset and every file it lists checked as the experiment's training would
read them, before any run (the data's own checks are data/checks.py's; this is the command's reading of them).

Its imports wait inside ``run`` and its steps, as the command line's do: ``--help`` and the other commands
pay nothing for them.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path


class _Refused(Exception):
    """What the command refuses, said as ``error: ...`` on stderr, and its exit status: 2 for the command's
    misuse, 1 for a finding of the data's."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def run(args, _) -> int:
    """Exit 1 when the dataset has problems, as a linter does when it finds some: finding them is the
    command's work, not a misuse of it."""
    _import_the_checks()
    try:
        cfg = _experiment(args)
        dataset = _dataset_to_check(args, cfg)
        unwritten_phantoms = args.dataset is None and cfg.data.dataset == "synthetic" and not dataset.is_file()
        # What the file system alone refuses comes before the network's check, which imports MONAI: a missing
        # dataset was said after it, 1.7-5.8 s in on 2 cores, where training says it before (ninety-ninth session)
        if not unwritten_phantoms and (refused := _before_the_imports(args, cfg.data)) is not None:
            raise _Refused(*refused)
        _refuse_folders_that_cannot_be_made(args, cfg)
        warnings_of_the_network = _warnings_of_the_network(args, cfg)
        if unwritten_phantoms:
            return _check_the_unwritten_phantoms(args, cfg, dataset, warnings_of_the_network)
        # Read as training reads it: with the experiment's split, regions and target spacing, each of which
        # training refuses where it cannot work (check passed them all until the seventy-first session).
        # --binarize and --max-voxels go into the config every step below reads, as into the phantoms': a data
        # beside an unchanged cfg left a reader asking which one unused_settings_warnings saw (it reads neither
        # setting, so no warning changed; one config since the hundred-and-fifth session)
        cfg = dataclasses.replace(cfg, data=dataclasses.replace(
            cfg.data, binarize=args.binarize or cfg.data.binarize, max_voxels=_max_voxels(args, cfg.data)))
        manifest, report = _read_as_training_reads(args, cfg, dataset)
    except _Refused as refused:
        print(f"error: {refused}", file=sys.stderr)
        return refused.status
    _check_the_patch_against_the_resampled_sizes(args, cfg, manifest, report)
    report.warnings += _warnings_as_training_says_them(cfg, manifest, report, warnings_of_the_network)
    _print_the_report(manifest, report)
    return 1 if report.errors else 0


def _import_the_checks() -> None:
    """The modules of the data's checks, imported together before the experiment is read, in the order
    ``run`` has always imported them (a refusal of the experiment waits for them too); each step below
    imports again the names it uses, which finds them loaded."""
    from . import config  # noqa: F401
    from .data import (checks, class_presence, errors, manifest, patch_fit, preprocess_settings,  # noqa: F401
                       spacing, splits, synthetic)
    from . import unused_settings  # noqa: F401


def _experiment(args):
    """The experiment's config (--config, with --labels as its data.labels), or the defaults without either."""
    from .config import Config, ConfigError, load_config, setting_value
    from .data.errors import DataError

    try:  # the command's misuse (exit 2), not a finding
        # A CSV's classes live in the experiment's data.labels: without them, check could only refuse
        # every value above 1 of a dataset that training reads (sixty-seventh session).
        # --labels goes through the override that training reads (--data.labels=...): one parser, one check;
        # read first as --labels, so that its YAML's refusal names the option given
        if args.labels is not None:
            setting_value(args.labels, "--labels (data.labels)")
        overrides = [f"--data.labels={args.labels}"] if args.labels is not None else []
        return load_config(args.config, overrides) if args.config is not None or overrides else Config()
    except (ConfigError, DataError) as error:  # DataError: a split setting the split rules refuse (data.fold 7 of 5)
        raise _Refused(str(error), 2)


def _dataset_to_check(args, cfg):
    """DATASET as given, or the experiment's data.dataset; refused (2) where neither is."""
    from .data.manifest import dataset_source

    if args.dataset is None and args.config is None:
        raise _Refused("give the DATASET to check, or --config with the experiment whose data.dataset it is", 2)
    return args.dataset if args.dataset is not None else dataset_source(cfg.data, cfg.train.output_dir)


def _refuse_folders_that_cannot_be_made(args, cfg) -> None:
    """With --config, the experiment's train.output_dir and data.cache_dir where either cannot be made as a folder (a
    file at its path or a parent's), refused (2) in training's words: training refuses them at its first look, and
    check said "0 error(s)" of them until the hundred-and-twenty-eighth session (review r131)."""
    if args.config is None:  # a dataset checked alone: neither folder is the user's to give, nor torch imported
        return
    from .config import ConfigError
    from .run_folder import check_folder_path

    try:
        check_folder_path(Path(cfg.train.output_dir), "train.output_dir")
        if cfg.data.cache_dir is not None:  # as training's first look (run_folder.check_before_the_imports)
            check_folder_path(Path(cfg.data.cache_dir), "data.cache_dir")
    except ConfigError as error:
        raise _Refused(str(error), 2)


def _before_the_imports(args, data) -> tuple[str, int] | None:
    """(what is refused, the exit status) of what needs no import of torch or MONAI: a --max-voxels below 1
    (a misuse, 2), then a dataset that is not there (a finding, 1), in the reader's words (and, for the
    experiment's data.dataset, with what its config's comments say of it); None where neither is."""
    from .data.errors import DataError
    from .data.manifest import load_cases, refuse_a_missing_dataset

    if (max_voxels := _max_voxels(args, data)) < 1:  # else every case was "over budget"
        return f"--max-voxels (data.max_voxels) must be >= 1, got {max_voxels}", 2
    try:
        if args.dataset is None:  # the experiment's: what its comments say of a dataset not here
            refuse_a_missing_dataset(data, args.config)
        elif not Path(args.dataset).exists():
            load_cases(args.dataset)  # raises the reader's own "not found", as load_manifest would
    except DataError as error:
        return str(error), 1
    return None


def _warnings_of_the_network(args, cfg) -> list[str]:
    """What training warns of the experiment's network and rate before it writes anything (none without
    --config); its network and patch refused (2) as training refuses them, before the data."""
    from .config import ConfigError
    from .data.errors import DataError

    if args.config is None:
        return []
    from .model_folders import Names
    from .models import check_model_settings, network_warnings
    from .schedule import zero_lr_warning

    try:
        spec = check_model_settings(cfg.model.name, cfg.data.patch_size, cfg.model.args)
    except (ConfigError, DataError) as error:
        raise _Refused(str(error), 2)
    warnings = network_warnings(spec, cfg.model.args)
    # optim.lr=0, which training warns of when it starts (it trains nothing): check did not say it until
    # the hundred-and-fifth session
    if warning := zero_lr_warning(cfg.optim, Names()):
        warnings.append(warning.removeprefix("warning: "))
    return warnings


def _check_the_unwritten_phantoms(args, cfg, dataset, warnings_of_the_network) -> int:
    """The experiment's embedded phantoms, which the run itself writes: checked on what is known of them
    before they are written (their channel and classes), and said to pass the rest by construction.

    The embedded phantoms are written by the run itself: "dataset.json not found" sent a fresh clone's user
    looking for a file they were never meant to make (sixty-eighth session)."""
    from .data.errors import DataError
    from .data.manifest import with_regions
    from .data.preprocess_settings import resolved_normalization
    from .data.synthetic import phantoms_without_cases
    from .shell_words import shell_word
    from .unused_settings import unused_settings_warnings

    # --binarize checks as data.binarize would train, as below for a dataset already written
    data = dataclasses.replace(cfg.data, binarize=args.binarize or cfg.data.binarize)
    cfg = dataclasses.replace(cfg, data=data)
    try:  # their channel and classes are known before they are written: the network and loss on them
        phantoms = with_regions(data, phantoms_without_cases(dataset.parent, data.binarize, data.labels))
    except DataError as error:  # data.labels beside their declaration, data.regions naming a value they lack
        raise _Refused(str(error), 1)
    # their channel is named MRI, so data.normalization auto z-scores them: training says then that a
    # data.ct_window given has no effect, and check did once they were written, not before (a review)
    for warning in unused_settings_warnings(cfg, resolved_normalization(data.normalization, phantoms)):
        print(warning)
    for warning in warnings_of_the_network:
        print(f"warning: {warning}")
    if (network_refused := _network_refused(cfg, phantoms)) is not None:
        raise _Refused(network_refused, 2)
    print(f"{args.config}: data.dataset is synthetic: the package writes its phantoms to {dataset.parent} "
          f"when the run starts (or `accelerated-seg synth {shell_word(dataset.parent)}` writes them now), and they "
          "pass these checks by construction; the network and loss were checked on their channel and classes")
    return 0


def _read_as_training_reads(args, cfg, dataset):
    """(manifest, report): the dataset's description loaded with the experiment's settings, the experiment's
    network and loss checked on its channels and outputs (with --config), then every file it lists checked.
    A description or setting refused is a finding (1); the network refused, a misuse (2)."""
    from .config import ConfigError
    from .data.checks import check_as_configured
    from .data.errors import DataError
    from .data.manifest import load_manifest, with_regions

    data = cfg.data
    try:
        loaded = load_manifest(data, cfg.train.output_dir, source=dataset)
        if args.config is not None:  # before the files are read, as training checks it before preprocessing them
            network_refused = _network_refused(cfg, with_regions(data, loaded))
            if network_refused is not None:
                raise _Refused(network_refused, 2)
        return check_as_configured(data, loaded)
    except (DataError, ConfigError) as error:  # the dataset's description, or the experiment's view of it
        raise _Refused(str(error), 1)


def _check_the_patch_against_the_resampled_sizes(args, cfg, manifest, report) -> None:
    """Where every header was read: the target spacing (an error of the report where it cannot be found),
    then, with --config, the experiment's patch against each case's size once resampled to it, as training
    warns once it has preprocessed; without one the patch is the default, which no one chose for this data."""
    from .data.errors import DataError
    from .data.patch_fit import resampled_patch_padding_warning
    from .data.spacing import target_spacing

    if report.errors:
        return
    try:
        spacing = target_spacing(cfg.data, manifest)
    except DataError as error:
        report.errors.append(str(error))
        return
    if args.config is not None:
        from .models import network_takes_patch

        takes = network_takes_patch(cfg.model.name, cfg.model.args, manifest.num_channels, manifest.num_outputs)
        if warning := resampled_patch_padding_warning(cfg.data, manifest, spacing, takes):
            report.warnings.append(warning.removeprefix("warning: "))


def _warnings_as_training_says_them(cfg, manifest, report, warnings_of_the_network) -> list[str]:
    """The warnings training gives of this dataset and experiment, beyond the files' own, in the order said."""
    from .data.class_presence import stored_class_presence_warnings
    from .data.preprocess_settings import resolved_normalization
    from .data.splits import unused_split_settings_warning
    from .unused_settings import unused_settings_warnings

    warnings = []
    if report.labelled is not None:  # training tells these of the preprocessed labels, once its cache is built
        warnings += stored_class_presence_warnings(manifest, report.labelled, cfg.train.val_every > 0)
    # the split settings (data.num_folds) or the datalist's 'fold' keys that the dataset's own split leaves unused,
    # as training warns: check printed the split alone, "... not used", without what it means (ninetieth session)
    if warning := unused_split_settings_warning(manifest):
        warnings.append(warning.removeprefix("warning: "))
    warnings += warnings_of_the_network
    # the experiment's settings that this dataset leaves without effect, as training says them
    warnings += [warning.removeprefix("warning: ") for warning in
                 unused_settings_warnings(cfg, resolved_normalization(cfg.data.normalization, manifest),
                                          manifest.ignore_value is not None)]
    return warnings


def _print_the_report(manifest, report) -> None:
    """The warnings, then the errors (on stderr), what training reads, and the counts."""
    for warning in report.warnings:
        print(f"warning: {warning}")
    for error in report.error_lines():  # one problem of many files on one line, as training says it
        print(f"error: {error}", file=sys.stderr)
    print(_what_training_reads(manifest))
    cases = len(manifest.training) + len(manifest.validation)
    print(f"{cases} case(s), {len(report.errors)} error(s), {len(report.warnings)} warning(s)")


def _max_voxels(args, data) -> int:
    return args.max_voxels if args.max_voxels is not None else data.max_voxels


def _network_refused(cfg, manifest) -> str | None:
    """What training refuses of the experiment's network and loss on this dataset's channels and outputs
    (``network_checks``), or None. The batch is one process's per-device batch, which a launch of
    several processes can only split: a batch that some launch trains with is not refused here."""
    from .config import ConfigError
    from .network_checks import checked_network_and_loss
    from .schedule import resolve_batch

    train, optim = cfg.train, cfg.optim
    # With train.batch_size and train.global_batch_size both given, the accumulation is theirs to decide
    # and depends on the processes, which check does not know: a grad_accum_steps that agrees with them on
    # 2 GPUs was refused here for one process, in a config that training on 2 GPUs takes.
    accum = None if train.batch_size is not None and train.global_batch_size is not None else train.grad_accum_steps
    try:
        plan = resolve_batch(train.batch_size, train.global_batch_size, accum, 1, optim.lr,
                             optim.base_batch_size, optim.lr_scaling)
        checked_network_and_loss(cfg, manifest, plan.per_device)
    except ConfigError as error:
        return str(error)
    return None


def _what_training_reads(manifest) -> str:
    """The channels, classes (with their stored values where they differ) and split training reads: a
    multi-channel dataset's user looked for these in vain, where only a count was printed (seventy-fourth
    session's probe). A channel nothing names is said by its index alone, as the refusals say it
    (``cases.names_nothing``): "channels: 0 image_0, 1 image_1" said the Dataset's names for a CSV's channels as if a
    user had given them until the hundred-and-twenty-third session (helper h127)."""
    from .data.cases import names_nothing

    channels = ", ".join(f"{index}" if names_nothing(name) else f"{index} {name}"
                         for index, name in sorted(manifest.channels.items()))
    if all(map(names_nothing, manifest.channels.values())):
        channels += " (none named)"
    renumbered = not manifest.binarized and manifest.label_values != list(range(len(manifest.labels)))
    classes = ", ".join(f"{index} {name}" + (f" (stored as {manifest.label_values[index]})" if renumbered else "")
                        for index, name in sorted(manifest.labels.items()))
    regions = f"; regions: {', '.join(manifest.regions.names)}" if manifest.regions is not None else ""
    ignore = f"; unannotated: {manifest.ignore_value}" if manifest.ignore_value is not None else ""
    return (f"channels: {channels}; classes: {classes}{regions}{ignore}; split {manifest.split}: "
            f"{len(manifest.training)} training, {len(manifest.validation)} validation")
