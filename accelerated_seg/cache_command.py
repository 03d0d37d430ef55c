"""``accelerated-seg cache``: a dataset's preprocessed versions in the cache listed, and with ``--prune`` those
no live run uses removed; without a dataset, every dataset in the cache and the pre-flight checks' records.
Which versions a live run holds is data/cache_versions.py's to tell; this module says it and removes.

Its imports wait inside the functions, as the command line's do.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from .shell_words import shell_word, shell_word_below
from .sigterm import stopped_by


def run(args, _) -> int:
    """List the dataset's preprocessed versions; with --prune remove the others no live run uses.
    Without a dataset, list every dataset in the cache and the checks' records; with --prune remove
    the records this install cannot use (the versions go only by naming their dataset)."""
    from .config import Config, ConfigError, load_config
    from .data.cache import PreprocessedCache
    from .data.cache_versions import is_cached_dataset
    from .data.errors import DataError
    from .data.manifest import load_manifest, with_regions
    from .data.prepare import cache_root, dataset_source, preprocess_settings

    try:
        cfg = load_config(args.config) if args.config is not None else Config()
        if args.cache_dir is not None and (refusal := _not_a_cache(Path(args.cache_dir), cfg.data)):
            raise ConfigError(f"--cache-dir {args.cache_dir}: {refusal}")
        root = Path(args.cache_dir).resolve() if args.cache_dir is not None else cache_root(cfg.data)
        if args.dataset is None and args.config is None:
            return _every_cached_dataset(root, args.prune)
        if args.dataset is not None and is_cached_dataset(Path(args.dataset)):
            if args.config is not None:  # its version was not kept: --prune removed it with the rest
                raise ConfigError(f"{args.dataset}: a dataset's folder in the cache, where --prune removes every "
                                  f"version no live run uses and --config {args.config} keeps none: give --config "
                                  f"alone to keep its experiment's version, or the folder alone")
            return _cached_versions(Path(args.dataset).resolve(), None, args.prune)  # no settings: none kept
        if args.dataset is not None and (refusal := _cache_folder_given_as_dataset(Path(args.dataset))):
            raise DataError(f"{args.dataset}: {refusal}")
        source = args.dataset if args.dataset is not None else dataset_source(cfg.data, cfg.train.output_dir)
        if args.dataset is None and cfg.data.dataset == "synthetic" and not source.is_file():
            print(f"{args.config}: data.dataset is synthetic and its phantoms are not written yet ({source.parent}): "
                  f"nothing of it is cached")
            return 0
        manifest = with_regions(cfg.data, load_manifest(cfg.data, cfg.train.output_dir, source=source))
        current = PreprocessedCache(root, manifest.root, preprocess_settings(cfg.data, manifest),
                                    manifest.num_classes).dir
    except (ConfigError, DataError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return _cached_versions(current.parent, current, args.prune, by_default=args.config is None)


def _not_a_cache(folder: Path, data) -> str | None:
    """Why ``folder``, given as --cache-dir, is no cache: missing, a file, or a part of one. Each was listed
    as "no preprocessed dataset", exit 0, as if the cache were empty (ninety-second session's probe).
    ``data`` (--config's data settings, else the defaults) names the cache read without --cache-dir."""
    from .data.cache_versions import is_cached_dataset, is_version

    if not folder.exists():
        return f"not found{_absolute_if_relative(folder)}; {_give_a_cache(data)}"
    if not folder.is_dir():
        return f"a file, not a folder{_absolute_if_relative(folder)}; {_give_a_cache(data)}"
    if is_cached_dataset(folder):
        return (f"one dataset's folder in the cache {folder.resolve().parent}: give that cache, or this folder "
                f"as the dataset (accelerated-seg cache {shell_word(folder)}) for its versions")
    if is_version(folder):
        return (f"one preprocessed version of the dataset's folder {folder.resolve().parent} in the cache "
                f"{folder.resolve().parent.parent}: give that cache")
    return None


def _absolute_if_relative(folder: Path) -> str:
    return "" if folder.is_absolute() else f" ({folder.absolute()})"


def _give_a_cache(data) -> str:
    """What to give instead of a --cache-dir that is no folder, naming the cache read without it: until the
    ninety-third session "default ~/.cache/accelerated_seg", whatever $XDG_CACHE_HOME or --config said."""
    from .data.prepare import cache_root

    which = "--config's data.cache_dir" if data.cache_dir else "the default cache"
    return (f"give the cache folder your runs preprocess into (their data.cache_dir), or leave --cache-dir out for "
            f"{which}, {cache_root(data)}")


def _cache_folder_given_as_dataset(folder: Path) -> str | None:
    """Why ``folder``, given as DATASET, is a part of the cache rather than a dataset: the cache itself, or
    one version in it. Each was "folder without dataset.json; expected an MSD dataset.json ..."."""
    from .data.cache_versions import cached_datasets, is_version

    if is_version(folder):
        return (f"one preprocessed version in the cache, of the dataset's folder {folder.resolve().parent}; "
                f"accelerated-seg cache {shell_word(folder.resolve().parent)} lists its versions, and with --prune "
                f"removes those no live run uses")
    if folder.is_dir() and not (folder / "dataset.json").exists() and (held := cached_datasets(folder)):
        return (f"a cache, of {len(held)} preprocessed dataset(s); accelerated-seg cache --cache-dir "
                f"{shell_word(folder)} lists them")
    return None


def _cached_versions(dataset_folder: Path, current: Path | None, prune: bool, by_default: bool = False) -> int:
    """List a dataset's versions in the cache, marking ``current`` (these settings', or the default
    settings' where ``by_default``: a DATASET without --config); with ``prune`` remove every other one no
    live run uses, and the dataset's folder once it holds none."""
    from .data.cache_versions import dataset_versions, remove_version, size_said

    versions = dataset_versions(dataset_folder)
    if not versions:
        print(f"{dataset_folder}: no preprocessed version of this dataset yet")
        if prune:  # what an interrupted prune of its last version left: kept until the ninety-second session
            _finish_removals(dataset_folder)
        return 0
    settings = "the default settings'" if by_default else "these settings'"
    # A DATASET alone keeps the default settings' version: where there is none, its --prune removed every
    # version, the one an experiment of other settings trains from between its runs too, and said "these
    # settings' version ... stay(s)" (ninety-second session's probe). Refused, before anything is removed.
    none_kept = by_default and current not in [version.folder for version in versions]
    if prune and none_kept:
        print(f"error: {_none_of_the_default_settings(dataset_folder, len(versions))}", file=sys.stderr)
        return 2
    print(f"{dataset_folder}: {len(versions)} preprocessed version(s) of this dataset")
    removed = []
    for version in versions:
        state = {True: "in use by a live run", False: "not in use", None: "in use or not: its filesystem cannot "
                 "lock files"}[version.in_use]
        mark = f"{settings} version, " if version.folder == current else ""
        try:
            pruned = prune and version.folder != current and remove_version(version.folder)
        except OSError as error:  # a read-only cache: said, not a traceback
            print(f"error: {version.folder} cannot be removed ({error})", file=sys.stderr)
            return 1
        except KeyboardInterrupt as interrupt:  # said nothing before the ninety-second session; what it left, unlisted
            print(_prune_interrupted(dataset_folder, len(removed), interrupt), file=sys.stderr)
            raise
        if pruned:
            removed.append(version)
        print(f"  {version.folder.name}  {size_said(version.bytes):>9}  {version.cases} case(s)  {mark}{state}"
              + ("  -> removed" if pruned else ""))
    if prune:
        kept = f"{settings} version and those in use stay" if current is not None else "those in use stay"
        print(f"removed {len(removed)} version(s), {size_said(sum(v.bytes for v in removed))}; {kept}")
        _finish_removals(dataset_folder)
    elif none_kept:
        print(_none_of_the_default_settings(dataset_folder, len(versions)))
    elif len(versions) > 1 or current is None:
        print(f"accelerated-seg cache --prune (with the same {'DATASET or --config' if current else 'folder'}) "
              f"removes the {'others' if current else 'versions'} no live run uses")
    return 0


def _finish_removals(dataset_folder: Path) -> None:
    """Delete what a killed or interrupted prune left renamed aside in ``dataset_folder``, and the folder
    itself once nothing of the dataset is left."""
    import shutil

    from .data.cache_versions import SOURCE_FILE, removals_left

    for left in removals_left(dataset_folder):
        shutil.rmtree(left, ignore_errors=True)
    # Nothing of the dataset left: its folder goes too, unless something else is there (a user's
    # file; a run starting a version meanwhile, whose source record must stay)
    with contextlib.suppress(OSError):
        if not [entry for entry in dataset_folder.iterdir() if entry.name != SOURCE_FILE]:
            (dataset_folder / SOURCE_FILE).unlink(missing_ok=True)
            dataset_folder.rmdir()


def _prune_interrupted(dataset_folder: Path, removed: int, interrupt: KeyboardInterrupt) -> str:
    """What Ctrl-C (or SIGTERM, since the hundred-and-second session: ``sigterm.stopped_by``) during --prune says: the
    version being removed was renamed aside (no run uses it), and the listing counts it nowhere, so only the next
    --prune frees its room."""
    from .data.cache_versions import bytes_under, removals_left, size_said

    left = removals_left(dataset_folder)
    return (f"{stopped_by('cache --prune', interrupt)} after removing {removed} version(s)" + (
        f"; {len(left)} more, renamed aside for removal ({left[0].name}), still hold "
        f"{size_said(sum(bytes_under(folder) for folder in left))}: the same command deletes them" if left else ""))


def _none_of_the_default_settings(dataset_folder: Path, count: int) -> str:
    """What a DATASET without --config says where none of the ``count`` versions is the default settings'."""
    return (f"none of the {count} version(s) in {dataset_folder} is of the default settings, which a DATASET "
            f"without --config names, so --prune would keep none of them: accelerated-seg cache --config "
            f"EXPERIMENT --prune keeps that experiment's version, and accelerated-seg cache "
            f"{shell_word(dataset_folder)} --prune removes every version no live run uses")


def _every_cached_dataset(root: Path, prune: bool) -> int:
    """List every dataset in the cache ``root`` (its folder, size, versions and the dataset it holds) and
    the checks' records; with ``prune`` remove the records this install cannot use."""
    from .data.cache_versions import cached_datasets, size_said

    datasets = cached_datasets(root)
    if not datasets:
        print(f"{root}: no preprocessed dataset")
    else:
        print(f"{root}: {len(datasets)} preprocessed dataset(s), {size_said(sum(d.bytes for d in datasets))}")
    for dataset in datasets:
        used = sum(version.in_use is True for version in dataset.versions)
        what = ("source not recorded (cached before the eightieth session, or read-only)" if dataset.source is None
                else f"{dataset.source}" + ("" if dataset.source.exists() else " (not found here: moved or deleted)"))
        print(f"  {dataset.folder.name}  {size_said(dataset.bytes):>9}  {len(dataset.versions)} version(s)"
              + (f", {used} in use by a live run" if used else "") + f"  {what}")
    if _check_records(root, prune):
        return 1
    if datasets and not prune:
        print(f"accelerated-seg cache {shell_word_below(root, '<folder>')} lists a dataset's versions, and with "
              f"--prune removes those no live run uses")
    return 0


def _check_records(root: Path, prune: bool) -> bool:
    """Say how much the pre-flight checks' records hold in the cache ``root``, and how much of it this
    install cannot use (another checking code, nibabel or numpy wrote it); with ``prune`` remove that.
    True where some could not be removed (said on stderr, as a version that cannot be removed is)."""
    from .data.cache_versions import size_said
    from .data.check_records import FOLDER, record_files, remove_unusable

    records = record_files(root / FOLDER)
    unusable = [record for record in records if record.usable is False]
    if any(record.usable is None for record in records):  # no sources: it would have removed every one
        print(f"{root / FOLDER}: {len(records)} record file(s) of the pre-flight checks, "
              f"{size_said(sum(record.bytes for record in records))}; this install, without its Python sources, "
              f"keeps none and cannot tell which of them another install uses: none is removed (deleting the "
              f"folder removes them all)")
        return False
    if records:
        print(f"{root / FOLDER}: {len(records)} record file(s) of the pre-flight checks, "
              f"{size_said(sum(record.bytes for record in records))}; {len(unusable)} of them written by another "
              f"checking code, nibabel or numpy, of no use to this install")
    if prune:  # without a dataset: no version is named, and none goes
        refused: list = []
        removed = remove_unusable(root / FOLDER, refused=refused)
        print(f"removed {len(removed)} record file(s) of the pre-flight checks that this install cannot use, "
              f"{size_said(sum(record.bytes for record in removed))}; a dataset's versions are removed by naming "
              f"it: accelerated-seg cache {shell_word_below(root, '<folder>')} --prune")
        if refused:  # "removed 0", exit 0, was all a read-only cache or another user's folder said
            (record, error), others = refused[0], len(refused) - 1
            print(f"error: {record.path} cannot be removed ({error.strerror or error})"
                  + (f", nor {others} other record file(s) there" if others else "")
                  + ": run the prune as the user who can write that folder", file=sys.stderr)
            return True
    elif unusable:
        print(f"accelerated-seg cache --cache-dir {shell_word(root)} --prune removes those {len(unusable)} (a run's "
              f"checks remove them a week after their last write)")
    return False
