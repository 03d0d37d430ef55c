"""A run's output folder: what a run writes there, and the guard that keeps a new run from
replacing an earlier one.

Without the guard, a second run into the same folder would overwrite the first one's exports at
its first validation, rotate its checkpoints away (or keep the old run's higher-numbered ones, which
``--resume latest`` then prefers), and mix both runs' TensorBoard events. HF Trainer once refused a
non-empty output folder for the same reason. Data written there by the run (the synthetic phantoms,
a preprocessing cache) is not the run's result and is left alone.
"""

from __future__ import annotations

import contextlib
import shutil
import warnings
from collections.abc import Iterable
from pathlib import Path

from .checkpoint_files import resolve_resume
from .config import ConfigError, dump_config
from .files import file_in_the_way, link_problem
from .model_folders import (Names, check_init_from, complete_checkpoints, ended_at_its_length, saved_by_fit,
                            unreadable_folder)
from .own_warnings import AcceleratedSegWarning
from .resume_config_changes import check_resume_length, check_resume_settings
from .run_lock import hold_run_folder, in_use, live_holder

#: What ``train`` writes into its folder (the trackers' logs under ``train/``, ``examples/train.py``'s
#: report, ``Segmentation.evaluate``'s default folder); ``train.overwrite`` deletes exactly these.
TRAIN_OUTPUTS = ("checkpoints", "model", "model.partial", "model.previous", "best_model", "best_model.partial",
                 "best_model.previous", "summary.json", "metrics.json", "run_info.json", "config.yaml",
                 "report.png", "train", "evaluation")
#: What ``train.fit`` writes into its ``checkpoint_dir``.
FIT_OUTPUTS = ("checkpoints", "model", "model.partial", "model.previous")
#: Written by every ``train`` run at its start: without it, a folder's ``model/`` is not a run's.
TRAIN_RUN_MARKER = "run_info.json"
#: What a run replaces whole when it writes it (the exports are swapped in as folders).
REPLACED_WHOLE = ("model", "best_model", "summary.json", "metrics.json", "config.yaml", "report.png")


def is_a_runs_folder(out: Path) -> bool:
    """Whether ``out`` is a run's folder, whose exports' ``.partial`` and ``.previous`` folders are an interrupted
    export's: train writes its run_info.json before any export, fit its checkpoint. Elsewhere they are the user's:
    the sweep, which comes before the folder is judged, renamed a project's own ``model.previous/`` to ``model/``,
    and the run was then refused as "already holds a run (an exported model in <out>/model)" (the hundred-and-seventh
    session's review)."""
    return (out / TRAIN_RUN_MARKER).is_file() or (out / "checkpoints").is_dir()


#: Why an export is refused in a folder a live run holds (run_lock.in_use). The holder may be a predict (its --output
#: lock is the same lock), which the lock does not tell from a training run: until the hundred-and-eighth session's
#: review the reason spoke of "the run's own exports" whichever held it.
EXPORTS_CLASH = ("an export is not written into a folder another run holds (the lock does not say whether a training "
                 "run, whose exports write <export>.partial as this one does, or a predict)")


@contextlib.contextmanager
def holding_the_run_folder_of(output: Path, elsewhere: str = "another --output folder"):
    """Hold the run lock (run_lock.py) of the folder ``output`` is made in while an export is written there, where
    that folder is a run's (``is_a_runs_folder``) or one a live run holds (one begun, before its run_info.json).

    ``accelerated-seg export`` into a run's ``best_model/`` (or ``model/``, before the run's first export) took no
    lock until the hundred-and-eighth session: begun while the run exported, the two replaces shared
    ``<export>.partial``, each deleting what the other was writing. Refused now, naming the run's process, as
    a second training run into the folder is; and a run started meanwhile is refused, naming the export's.
    """
    folder = Path(output).absolute().parent
    if not (is_a_runs_folder(folder) or live_holder(folder)):
        yield
        return
    lock = hold_run_folder(folder, elsewhere, clash=EXPORTS_CLASH, verb="export")
    if lock.unsupported:  # as train says it (run_folder_ranks.holding_run_folder): unsaid until the review above
        warnings.warn(f"{folder} cannot be locked ({lock.unsupported}), so a run writing its exports there meanwhile "
                      f"would not be refused: export while no run trains in it", AcceleratedSegWarning, stacklevel=3)
    try:
        yield
    finally:
        lock.release()


def earlier_run(out: Path) -> str | None:
    """What in ``out`` a new run would lose (None: nothing; a run killed before its first checkpoint
    or export has left only its settings, which are no result)."""
    found = _earlier_run_at(out)
    return found[0] if found else None


def _earlier_run_at(out: Path) -> tuple[str, str] | None:
    """``earlier_run``'s finding, and the name in ``out`` that holds it (what a folder no run wrote moves away)."""
    checkpoints = complete_checkpoints(out / "checkpoints")
    if checkpoints:
        return f"checkpoints up to {checkpoints[-1].name}", "checkpoints/"
    for name in ("best_model", "model"):
        if (out / name / "model.safetensors").is_file():
            return f"an exported model in {out / name}", f"{name}/"
    if (out / "summary.json").is_file():
        return "a finished run's summary.json", "summary.json"
    return None


def resume_or_replace(out: Path, resume: str | None, overwrite: bool, *, reads: Iterable[str | Path] = (),
                      names: Names = Names(), marker: str | None = TRAIN_RUN_MARKER,
                      outputs: tuple[str, ...] = TRAIN_OUTPUTS) -> tuple[Path | None, bool]:
    """How a run starts in ``out``: the checkpoint it resumes (None: a new run), and whether an
    earlier run there is to be deleted first; raises before any work where neither may be done.

    Resuming one of ``out``'s own checkpoints goes on with its run, whatever ``overwrite`` says (a
    requeued SLURM job adds ``--resume latest`` to the same command line). Any other start is a new
    run and goes through :func:`check_output_folder`.

    Raises:
        ConfigError: ``out`` cannot be a folder (``check_folder_path``) or holds a file named
            ``checkpoints``, no checkpoint to resume
            (``resolve_resume``), or see :func:`check_output_folder`.
    """
    refuse_dangling_links(out, (*outputs, *([marker] if marker else [])), names)  # else refused at the first save
    check_folder_path(out, names.folder)  # else an OSError at the first save, after the training
    if (out / "checkpoints").exists() and not (out / "checkpoints").is_dir():  # the same, one level down
        raise ConfigError(f"{out / 'checkpoints'} is a file, where the run's checkpoints go: move it, or train "
                          f"into {names.elsewhere}")
    try:  # every start judges its checkpoints (resumed, kept or replaced)
        complete_checkpoints(out / "checkpoints")
    except OSError as error:  # the resume an interrupt's line offers "once it can be read again", tried before
        # it can: a traceback from this listing until the hundred-and-seventh session's review
        raise ConfigError(f"{unreadable_folder(out / 'checkpoints', error)}, so the run there can be neither "
                          f"resumed nor replaced yet: try again once it can be read (its permissions, a "
                          f"mount)") from None
    resume_from = None
    if resume == "latest" and not complete_checkpoints(out / "checkpoints") and (found := earlier_run(out)):
        # Else resolve_resume's "drop --resume" led back to check_output_folder's "continue it with
        # resume": a loop a run killed between its first export and its first checkpoint met.
        raise ConfigError(f"{names.resume}, but {out} holds no complete checkpoint to resume: its run left "
                          f"{found} and stopped before saving one (or saved none), so there is nothing to continue. "
                          f"Start it again with {names.overwrite} (which deletes that), or train into "
                          f"{names.elsewhere}")
    if resume:
        resume_from = resolve_resume(resume, out / "checkpoints", names)
    if resume_from is not None and resume_from.resolve().parent == (out / "checkpoints").resolve():
        return resume_from, False
    # A checkpoint of another folder starts a new run here, and the deletion must spare it too: one
    # set aside in <out>/checkpoints/superseded_by_resuming_step_N/ was deleted with the earlier run,
    # and the resume then failed on the missing folder (before the thirty-second session).
    reads = [*reads, *([resume_from] if resume_from is not None else [])]
    return resume_from, check_output_folder(out, overwrite, reads=reads, names=names, marker=marker,
                                            outputs=outputs)


def refuse_dangling_links(out: Path, outputs: Iterable[str], names: Names = Names()) -> None:
    """Raise where ``out``, or what a run writes into it (``outputs``), is a symbolic link that names nothing there
    or leads back to itself (``files.link_problem``), in the words its write would refuse it with: every file and
    export is written through a link (``files.written_through``), and through these nothing can be. Until the
    hundred-and-twenty-first session a dangling ``model`` or ``summary.json`` was met at its write, after the
    training, and the run ended refused with nothing exported.

    Raises:
        ConfigError: naming the link, what it names and what to do; before anything is written.
    """
    for path in (out, *(out / name for name in outputs)):
        if problem := link_problem(path):
            raise ConfigError(f"{problem}; or train into {names.elsewhere}")


def refuse_a_live_run(out: Path) -> None:
    """Raise when a live run holds ``out`` (run_lock.py), before what the folder holds is judged: the
    ways on from an earlier run there (resume, overwrite) met the lock once taken, and said only then
    that the folder was in use (until the sixty-seventh session).

    Only before any process group exists (``check_before_the_imports``): once one does, the main
    process may already hold the lock for this very run when another rank looks (a second ``train``
    in one launched script), and that rank alone would refuse. ``train`` meets a live run at the
    lock, on every rank alike, before it writes anything.
    """
    if holder := live_holder(out):
        raise ConfigError(in_use(out, holder, Names().elsewhere))  # the command line's words: its only caller


def check_before_the_imports(cfg, config_file: str | Path | None = None) -> None:
    """What of a run's settings the file system alone can refuse, for ``accelerated-seg train`` and
    examples/train.py to check before torch and MONAI are imported (8-14 s per rank on 2 cores):
    train.init_from (model_folders.check_init_from); train.resume, a checkpoint that is missing, mistyped
    or damaged (checkpoint_files.resolve_resume), whose run this one cannot continue
    (resume_config_changes.check_resume_settings) or that is beyond train.max_steps; and for a new run a
    train.output_dir that holds an earlier run (the quick start's demo run a second time: 13.7 s in,
    before) or another program's files. train() checks all of it again, and what the run reads among
    what it would delete, before it deletes anything; nothing here deletes or writes. Then a
    data.dataset that is not there, with what ``config_file``'s comments say of it (refuse_a_missing_dataset),
    and a data.fold without data.num_folds where the dataset gives no folds (refuse_a_fold_without_folds), and
    data.labels beside the embedded phantoms (refuse_labels_beside_the_phantoms) and a data.cache_dir that cannot be
    a folder (check_folder_path), each after the imports until the hundred-and-twenty-eighth session.
    """
    from .data.manifest import dataset_source, refuse_a_fold_without_folds, refuse_a_missing_dataset
    from .data.synthetic import refuse_labels_beside_the_phantoms

    train = cfg.train
    check_init_from(train)
    refuse_a_live_run(Path(train.output_dir))
    resume_from, _ = resume_or_replace(Path(train.output_dir), train.resume, train.overwrite)
    if cfg.data.cache_dir is not None:  # after the imports until the 128th session (the default: train()'s, below them)
        check_folder_path(Path(cfg.data.cache_dir), "data.cache_dir")
    if resume_from is not None:
        check_resume_settings(resume_from, dump_config(cfg))
        check_resume_length(resume_from, train.max_steps)
    refuse_a_missing_dataset(cfg.data, config_file)
    if cfg.data.dataset == "synthetic":
        refuse_labels_beside_the_phantoms(cfg.data.labels, dataset_source(cfg.data, train.output_dir).parent)
    refuse_a_fold_without_folds(cfg.data, train.output_dir)


def check_output_folder(out: Path, overwrite: bool, *, reads: Iterable[str | Path] = (), names: Names = Names(),
                        marker: str | None = TRAIN_RUN_MARKER, outputs: tuple[str, ...] = TRAIN_OUTPUTS) -> bool:
    """Raise unless a new run may write into ``out``; True when an earlier run there is to be
    deleted first (:func:`delete_earlier_run`). Call on every rank before any work.

    Args:
        out: the new run's folder.
        overwrite: the user asked for an earlier run there to be deleted.
        reads: what the new run loads (``train.init_from``, the dataset, the cache), which must
            not lie in what the deletion removes.
        names: the caller's spelling of the ways on.
        marker: a file every run of this kind leaves in its folder; ``overwrite`` deletes only a
            folder that has it, so a ``model/`` of the user's own is never taken for a run's.
        outputs: what the run writes there (``TRAIN_OUTPUTS``, or ``FIT_OUTPUTS`` for ``fit``).

    Raises:
        ConfigError: ``out`` holds an earlier run that ``overwrite`` does not allow to replace, or
            files of another program's that the run would replace.
    """
    if (earlier := _earlier_run_at(out)) is None:
        _refuse_foreign_outputs(out, marker, outputs, names)
        return False
    found, held_in = earlier
    if marker is not None and not (out / marker).is_file():
        # Judged before the way on is offered: a folder no run wrote (a project's own summary.json, an export copied
        # in as its model/) was told to set overwrite, which then refused it as not a run's (until the
        # hundred-and-twenty-fifth session's review r117 of helper h138's walk)
        # a train.fit's checkpoints (config.yaml empty) are resumed by fit alone: train's resume refuses them
        resumable = held_in == "checkpoints/" and not saved_by_fit(complete_checkpoints(out / "checkpoints")[-1])
        resume = f"continue it with {names.resume}, " if resumable else ""
        raise ConfigError(f"{out} holds {found} but no {marker}, so it was not written by a training run and is not "
                          f"deleted, even with {names.overwrite}: {resume}train into {names.elsewhere}, or move "
                          f"{held_in} out of it")
    if not overwrite:
        # Resume is a way on only where a checkpoint is: a run with exports but none (killed between its
        # first export and its first checkpoint, or save_every=0) was told to resume, and that was refused.
        resumable = bool(complete_checkpoints(out / "checkpoints"))
        # A run that ended goes on only for more steps: its resume alone is at its last step, trains nothing and
        # exports it again, which this offered as the way on until the hundred-and-twenty-eighth session (h154's
        # Left; the fit examples told it apart first)
        further = f" and a larger {names.length}" if resumable and ended_at_its_length(out) else ""
        ways = (f"continue it with {names.resume}{further}, train into {names.elsewhere}," if resumable else
                f"it saved no checkpoint to continue from, so train into {names.elsewhere}")
        raise ConfigError(f"{out} already holds a run ({found}), which a new run there would replace: {ways} "
                          f"or set {names.overwrite} to delete it first")
    check_reads_survive(out, reads, outputs, names)
    return True


def _refuse_foreign_outputs(out: Path, marker: str | None, outputs: tuple[str, ...], names: Names) -> None:
    """A folder that is not a run's may still hold files of the names a run replaces whole: a project's
    own ``config.yaml`` or ``model/`` package with ``train.output_dir=.``. Before the thirty-first session
    the run wrote over them (the first export swapped a ``model/`` folder out and deleted it).

    Under a marker, the folders a run only writes into (the trackers' ``train/``, ``evaluation/``) are
    its own too: a later ``overwrite`` deletes them whole. A user's ``train/`` of notes or logs was
    adopted by the first run and deleted with it by the second until the sixty-seventh session; an
    empty folder holds nothing to lose.
    """
    if marker is not None and (out / marker).is_file():
        return  # a run's folder (one killed before its first save): what is there is the run's
    replaced = [name for name in REPLACED_WHOLE if name in outputs and (out / name).exists()]
    adopted = [name for name in outputs if marker is not None and name not in REPLACED_WHOLE
               and _holds_something(out / name)]
    if foreign := replaced + adopted:
        what = "which this run would replace" if not adopted else \
            f"which this run would replace or write into, and {names.overwrite} later delete with it"
        raise ConfigError(f"{out} holds {', '.join(foreign)}, {what}, but "
                          f"{'no ' + marker + ', so they are' if marker else 'they are'} not a training run's: "
                          f"train into {names.elsewhere}, or move them")


def _holds_something(path: Path) -> bool:
    return path.is_file() or path.is_symlink() or (path.is_dir() and any(path.iterdir()))


def paths_read(init_from: str | None, data: Iterable[str | Path], cache_dir: Path) -> list[Path]:
    """What a run loads and ``overwrite``'s deletion must therefore spare: its ``train.init_from``, its
    data (the description, or the case files), and its preprocessing cache."""
    return [Path(path) for path in (*([init_from] if init_from else []), *data, cache_dir)]


def check_reads_survive(out: Path, reads: Iterable[str | Path], outputs: tuple[str, ...] = TRAIN_OUTPUTS,
                        names: Names = Names()) -> None:
    """Raise when a path the new run reads lies in what deleting the earlier run in ``out`` removes
    (``outputs``). A dataset kept in ``<out>/train/`` (a common name for a data folder, and the one
    the trackers write to) was deleted with the run before the thirty-first session.

    Raises:
        ConfigError: naming the path, the folder that would be deleted, and the ways on.
    """
    doomed = [(out / name).resolve() for name in outputs if (out / name).exists()]
    for path in reads:
        where = Path(path).resolve()
        if folder := next((d for d in doomed if where == d or where.is_relative_to(d)), None):
            raise ConfigError(f"{names.overwrite} would delete {folder} with the earlier run in {out}, but this "
                              f"run reads {path} there: train into {names.elsewhere}, or move it out of {folder}")


def check_folder_path(folder: Path, setting: str) -> None:
    """Raise unless ``folder`` is, or can be made as, a folder: a file at its path or at a parent's
    would otherwise stop the run at its first ``mkdir``, as an OSError traceback.

    Raises:
        ConfigError: naming ``setting`` and the file in the way, or the dangling link (``files.link_problem``:
            mkdir's FileExistsError at the run folder's lock, until the hundred-and-twenty-first session).
    """
    if problem := link_problem(folder):
        raise ConfigError(f"{setting}={str(folder)!r}: {problem}")
    if blocking := file_in_the_way(folder):
        raise ConfigError(f"{setting}={str(folder)!r}: {blocking} is a file, so the folder cannot be made there; "
                          f"give a folder path")


def delete_earlier_run(out: Path, outputs: tuple[str, ...] = TRAIN_OUTPUTS) -> None:
    """Delete what a run wrote into ``out``; call on the main process only, after
    :func:`check_output_folder` allowed it.

    Everything is first moved into one hidden folder (renames, atomic), then deleted: a kill midway
    leaves no half-deleted checkpoint under a name that ``--resume latest`` would trust.
    """
    trash = out / ".earlier_run.old"
    shutil.rmtree(trash, ignore_errors=True)  # left by a kill during an earlier deletion
    present = [out / name for name in outputs if (out / name).exists()]
    if not present:
        return
    trash.mkdir(parents=True)
    for path in present:
        path.rename(trash / path.name)
    shutil.rmtree(trash)
