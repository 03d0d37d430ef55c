"""The cases a configured run trains on, across its ranks: read on the main process and checked by
every rank (``checked_data``), preprocessed once into the cache, each rank its share, and written as
the case tables every rank reads memory-mapped (``cached_tables``), with the checks that every rank
sees the one cache a run needs (``shared_cache_fix``); and how each epoch of their patches is cut to
whole optimizer steps (``epoch_cut``; an epoch shorter than a batch refused, ``checked_epoch``) and how
many epochs the loader's one pass holds (``epochs_per_pass``). Shared with the training benchmark,
which times this data path.

The data package knows nothing of processes (data/prepare.py, data/cache.py); the ranks meet here.
"""

from __future__ import annotations

import contextlib
import math
from pathlib import Path

# Nothing here names datasets, but every training process reads its case table through it (the cache's
# write_table and load_table import it where they need it). Imported with this module, it arrives with
# the rest of the stack, inside collector.importing_without_collection(), rather than mid-run with the
# collector walking it (and pandas, pyarrow): a tiny run made 96 collections, none full, in 0.03-0.09 s
# instead of 171, one full, in 0.12-0.18 s.
import datasets  # noqa: F401
from accelerate import Accelerator

from .config import Config, ConfigError
from .data.cache import PreprocessedCache
from .data.cache_versions import size_said, using_version
from .data.checks import CheckingRanks, check_as_configured
from .data.loader import patches_per_epoch
from .data.manifest import Manifest
from .data.prepare import cache_root, read_manifest, records_folder, settings_and_unit
from .data.preprocess import PreprocessSettings
from .data.spacing import median_cases
from .model_folders import Names
from .ranks import on_every_rank, on_main
from .schedule import BatchPlan
from .shell_words import shell_word
from .wording import counted


def checked_data(cfg: Config, accelerator: Accelerator, manifest: Manifest | None):
    """Synthesise/read the cases (main process), check them (every rank its share, each its whole
    report: bad data fails every rank alike) and resolve the preprocessing (median spacing). Returns
    the manifest, the preprocessing, the unit of its spacing (the export's ``spacing_unit``), the cases' median voxel
    size where data.spacing is set (its ``cases_median_spacing``) and the checks' report, whose ``keep_records`` the
    run calls once nothing refuses it any more."""
    manifest = on_main(accelerator, lambda: read_manifest(cfg.data, cfg.train.output_dir, manifest))
    if not manifest.training:  # a dataset of held-out cases alone: the median spacing of none was a TypeError
        raise ConfigError(f"the dataset has no training cases, only {len(manifest.validation)} validation case(s) "
                          f"({manifest.split}): give it cases to train on")
    ranks = CheckingRanks(accelerator.process_index, accelerator.num_processes, on_every_rank)
    manifest, report = check_as_configured(cfg.data, manifest, ranks, records_folder(cfg.data))
    report.raise_if_errors()
    if report.recalled:  # why this launch's checks took no time, and how to have every file read
        cases = len(manifest.training) + len(manifest.validation)
        accelerator.print(f"pre-flight checks: {report.recalled} of {cases} case(s) unchanged since they passed, "
                          f"not read again (accelerated-seg check reads them all)")
    for warning in report.warnings:
        accelerator.print(f"warning: {warning}")  # as check says them
    # the unit from the headers the spacing's checks read, on the main process: read again for the export, every
    # header of a dataset that declares none was read once more on every rank (hundred-and-sixth session's review)
    settings, unit, median = on_main(accelerator, lambda: settings_and_unit(cfg.data, manifest))
    return manifest, settings, unit, median, report


def cached_tables(cfg: Config, accelerator: Accelerator, manifest: Manifest, settings: PreprocessSettings,
                  run_scope: contextlib.ExitStack | None = None, given: bool = False, names: Names = Names()):
    """The checked cases preprocessed once (each rank builds its share of the cache), then the
    training and validation case tables (None: no validation cases) that every rank reads memory-mapped.
    Every rank holds the cache's version as in use for ``run_scope`` (``data/cache_versions.py``), so
    that ``accelerated-seg cache --prune`` leaves it alone. ``given``: the cases were given in Python (train's
    ``manifest``), not read from ``data.dataset``, so the run's config.yaml does not name them."""
    cache = PreprocessedCache(cache_root(cfg.data), manifest.root, settings, manifest.num_classes,
                              ignore_label=manifest.ignore_index is not None)
    if run_scope is not None:
        run_scope.enter_context(using_version(cache.dir))
    cases = manifest.training + manifest.validation
    changed = on_main(accelerator, lambda: cache.changed_since_built(cases))  # before they are built again
    built = on_every_rank(lambda: cache.build(
        cases, shard=(accelerator.process_index, accelerator.num_processes), workers=cfg.data.num_workers))
    # data.normalization: auto chose from the channels' names, so the run says what it chose
    chosen = (f" ({names.setting('data.normalization')}: {names.value('auto')}, from the channels' names)"
              if cfg.data.normalization == "auto" else "")
    if accelerator.num_processes > 1:  # the other ranks' shares, where the main process writes the tables
        on_main(accelerator, lambda: _every_case_in_the_cache(cache, cases, names))
    # the spacing too: with data.spacing null it is a median (median_cases), said nowhere else but the export
    spacing = " x ".join(f"{size:g}" for size in settings.spacing) if settings.spacing else "as stored"
    accelerator.print(f"preprocessed cache {cache.dir}: {sum(built)} case(s) built, {len(cases) - sum(built)} reused; "
                      f"{settings.normalization} normalization{chosen}; spacing {spacing} mm"
                      + (f" ({names.setting('data.spacing')}: {names.value(None)}, {median_cases(manifest)[1]})"
                         if cfg.data.spacing is None else ""))
    # Why everything was built again, and what the cache holds besides: a no-op chmod -R rebuilt a
    # probe's 2000 cases, and six settings left six copies of the dataset, without a word (seventy-fifth)
    if changed:
        accelerator.print(f"  {changed} of the {sum(built)} built had been cached before: their files changed since "
                          f"(size, modification or status-change time: an edit, a copy, a chmod); the arrays of "
                          f"before stay in the cache")
    versions, size = on_main(accelerator, cache.other_versions) or (0, 0)
    if versions:
        shown = size_said(size)
        # Cases given in Python (a Dataset's pairs, train(cfg, manifest=load_cases(...)) of any format) are in no
        # config: the run's config.yaml names data.dataset's default, whose `cache --config` found "nothing of it
        # is cached". The dataset's folder in the cache names it; with no settings there to keep a version, its
        # --prune removes this one too once unused. By the format alone, a given CSV or dataset.json was missed.
        run_config = shell_word(Path(cfg.train.output_dir).absolute() / "config.yaml")
        how = (f"`accelerated-seg cache --config {run_config} --prune` removes those no live run uses" if not given else
               f"`accelerated-seg cache {shell_word(cache.dir.parent)}` lists them (the cases were given in Python, "
               f"which no config names), and with --prune removes every version no live run uses, this run's once it "
               f"ends")
        accelerator.print(f"  {cache.dir.parent} also holds {versions} other preprocessed version(s) of this dataset "
                          f"(other settings or classes, or other preprocessing code), {shown}: {how}")
    tables = on_main(accelerator, lambda: [cache.write_table(cases) if cases else None
                                            for cases in (manifest.training, manifest.validation)])
    if accelerator.num_processes > 1:  # and the tables where every rank reads them
        on_every_rank(lambda: _every_table_seen(tables, accelerator.process_index, names))
    validation = cache.load_table(tables[1]) if tables[1] is not None else None
    return cache.load_table(tables[0]), validation


# Each rank preprocesses its share into data.cache_dir as it sees it; the default (~/.cache) is each
# machine's own. Two nodes with their own caches failed with FileNotFoundError tracebacks from the case
# table, one node's alone while the other waited (sixty-ninth session).
def shared_cache_fix(names: Names = Names()) -> str:
    """The way on where the nodes do not share the cache, naming its setting as the caller does (Dataset.from_files'
    cache_dir to the estimator, told of data.cache_dir until the ninety-second session)."""
    return (f"{names.setting('data.cache_dir')} must be a folder that every node sees (a shared filesystem); its "
            f"default, ~/.cache/accelerated_seg, is each machine's own")


def _every_case_in_the_cache(cache: PreprocessedCache, cases: list, names: Names = Names()) -> None:
    # Built, not current: a file replaced while another rank read it is built again by the next run; this run
    # trains on what was read, as one process does. Current alone, it was said to be no shared folder.
    missing = [case.id for case in cases if not cache.is_built(case)]
    if missing:
        named = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise ConfigError(f"{len(missing)} case(s) that the other ranks preprocessed are not in {cache.dir} as "
                          f"the main process sees it ({named}): {shared_cache_fix(names)}")


def _every_table_seen(tables: list, rank: int, names: Names = Names()) -> None:
    for table in tables:
        if table is not None and not Path(table).is_dir():
            raise ConfigError(f"the case table {table}, which the main process wrote, is not there as rank {rank} "
                              f"sees it: {shared_cache_fix(names)}")


def checked_epoch(cfg: Config, accelerator: Accelerator, manifest: Manifest, plan: BatchPlan, num_processes: int,
                  names: Names) -> tuple[int, int]:
    """Refuse an epoch shorter than one batch of every process's; returns its patches and its cut (epoch_cut)."""
    patches = patches_per_epoch(len(manifest.training), cfg.data.samples_per_volume)
    if patches < plan.per_device * num_processes:
        raise ConfigError(f"one epoch has {counted(patches, 'patch', 'patches')}, fewer than one batch of every "
                          f"process's, {plan.per_device * num_processes}: raise "
                          f"{names.setting('data.samples_per_volume')} or lower the batch")
    cut = epoch_cut(patches, plan)  # what EpochSampler cuts each epoch to whole multiples of
    if note := patches_left_out_note(patches, cut, plan.global_batch, names):
        accelerator.print(note)
    return patches, cut


def epoch_cut(patches: int, plan: BatchPlan) -> int:
    """The samples each epoch of ``patches`` is cut to whole multiples of (``EpochSampler``): one
    optimizer step's, so that every split of the global batch over processes and accumulation trains
    on the same samples; where an epoch holds no whole step (few cases, a large global batch), one
    micro-batch of every process's, the accumulation windows then running across epochs."""
    return plan.global_batch if patches >= plan.global_batch else plan.per_device * plan.num_processes


def patches_left_out_note(patches: int, cut: int, global_batch: int, names: Names = Names()) -> str | None:
    """A note where cutting each epoch to whole optimizer steps (``EpochSampler``, ``epoch_cut``) leaves
    out a tenth of it or more: with few cases, a rest that nothing said (7 patches at a global batch of
    4: 3 of them). Where an epoch holds no whole step its cut is a micro-batch of every process's, which
    the note named as the optimizer step (the eighty-sixth session's review)."""
    rest = patches % cut
    if rest < 0.1 * patches:
        return None
    made = (f"{patches // cut} optimizer step(s) of {cut}" if cut == global_batch else
            f"{patches // cut} micro-batch(es) of {cut} (fewer than one optimizer step of "
            f"{global_batch}, whose accumulation then runs across epochs)")
    return (f"note: an epoch's {patches} patches make {made}; the other {rest} ({rest / patches:.0%}) are in "
            f"no step of that epoch (each epoch draws them in its own order, so not the same ones every epoch): "
            f"a {names.setting('data.samples_per_volume')} or a global batch that divides the epoch trains on every "
            f"patch")


def epochs_per_pass(cfg: Config, plan: BatchPlan, patches: int, cut: int, micro_batch: int) -> int:
    """How many epochs the loader's one pass holds: enough for every step of the run, and one more."""
    # One pass over the loader covers the whole run, so its workers never stop at an epoch's end;
    # one epoch more for the batches of steps skipped (an fp16 overflow, a non-finite loss).
    batches_per_epoch = patches // cut * cut // micro_batch  # per rank
    return math.ceil(cfg.train.max_steps * plan.accum_steps / batches_per_epoch) + 1
