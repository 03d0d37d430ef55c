"""Training-state checkpoints: ``checkpoints/step_N``, written so that an interruption never leaves a
half-written one behind.

Each holds ``accelerator.save_state`` (model, optimizer, grad scaler, RNG states and every object
registered for checkpointing, e.g. the LR schedule and the loop's progress), the resolved config,
and the records a resume and ``accelerated-seg export`` read (the preprocessing, the split, the
export's description). Written under a temporary name and renamed when every rank has finished, so
a folder named ``step_N`` is always complete and ``--resume latest`` can trust it. Saving is
collective: ``save_state`` runs on every rank (under FSDP or ZeRO-3 it gathers shards), while files
that exist once are written by the main process only.

Elsewhere: the exported model (exported_model.py), what a checkpoint must agree with to be resumed
(resume_config_changes.py, resume_network_and_data.py), one made into an export (checkpoint_export.py).
``PreemptionSignals`` turns a scheduler's notice (SIGTERM or SIGUSR1) into a flag that the loop
acts on at its next collective; see docs/checkpoints.md.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import threading
from pathlib import Path

from safetensors import SafetensorError

from .checkpoint_files import STATE_BYTES, WRITTEN_BYTES, state_file_sizes
from .config import ConfigError
from .data.workers import PREEMPTION_SIGNALS
from .early_signals import handed_over, taken_over
from .files import remove_stale_temporaries, sync_directory, sync_folder, with_the_usual_mode
from . import launcher_death
from .launch_env import processes_yet_to_meet
from .launcher_death import launcher_gone, launcher_mark, set_parent_death_signal
from .model_folders import (LAYOUT_FILE, STEP_DIR, Names, complete_checkpoints, exported_step,  # noqa: F401
                            recorded_export_step, unreadable_folder)  # exported_step: imported from here too
from .ranks import on_every_rank, on_main
from .ranks_stop_together import changing_what_the_line_names
from .strategy import checkpoint_layout


# Hidden step folders: one being written (.partial) or one being deleted (.old). Neither is ever
# resumed from, and the next save removes any a killed process left behind.
HIDDEN_STEP_DIR = re.compile(r"^\.step_(\d+)\.(partial|old)$")

# The resolved preprocessing the checkpoint's weights were trained under (train only; fit's loader is the user's).
PREPROCESSING_FILE = "preprocessing.json"

# The cases the checkpoint's weights trained on and were validated on (train only), ``Manifest.split_record``.
SPLIT_FILE = "split.json"


class CheckpointNotSaved(RuntimeError):
    """A checkpoint could not be written (a full disk, a folder made read-only); the message says why,
    what is free there, and which whole checkpoint a resume continues from."""


def not_saved(error: Exception, what: str, folder: Path, checkpoints_dir: Path,
              names: Names = Names()) -> CheckpointNotSaved:
    """``what`` (the checkpoint step_N, the export model/) could not be written into ``folder``; ``names``: how
    the caller resumes (``FIT_NAMES`` for fit)."""
    try:
        free = f"{shutil.disk_usage(folder).free / 2**30:.1f} GiB free there"
    except OSError:
        free = "its free space unknown"
    try:
        saved = complete_checkpoints(checkpoints_dir) if checkpoints_dir.is_dir() else []
    except OSError as unreadable:  # a mount gone: said, not raised over this error (until the 107th session)
        where = (f"{unreadable_folder(checkpoints_dir, unreadable)} either, so no checkpoint is named: once it can be "
                 f"read and written again, {names.resume_again} to continue from its newest whole checkpoint")
    else:
        where = (f"the newest whole checkpoint, {saved[-1]}, is untouched: make room (or make the folder writable) "
                 f"and {names.resume_again} to continue from it"
                 if saved else "no whole checkpoint was saved before it: make room (or make the folder writable) "
                 "and start again")
    # torch's own message for a full disk names neither the file nor the cause ("unexpected pos 39616 vs
    # 39504"), and a traceback from the loop read as a bug (sixty-ninth session): one line instead.
    return CheckpointNotSaved(f"saving {what} into {folder} failed "
                              f"({type(error).__name__}: {error}); {free}. {where}")


def _every_ranks_files_there(partial: Path, processes: int, folder: str = Names.folder) -> None:
    """Refuse a checkpoint that lacks another rank's files as the main process sees the folder.

    Each rank writes its own random states into the checkpoint folder; a node whose train.output_dir
    was a folder of its own wrote them there, and the run went on saving checkpoints that lacked them
    (a resume then only logged "Could not load random states", sixty-ninth session). ``folder``: the
    run folder's setting as the caller names it (``Names.folder``; a fit was told of train.output_dir until
    the ninety-first session).
    """
    from accelerate.utils.constants import RNG_STATE_NAME

    missing = [rank for rank in range(processes) if not (partial / f"{RNG_STATE_NAME}_{rank}.pkl").is_file()]
    if missing:
        raise ConfigError(f"the checkpoint {partial.name} lacks the files of rank(s) "
                          f"{', '.join(map(str, missing))}, which they wrote into {folder} as they see it: "
                          f"{folder} must be one folder that every node sees (a shared filesystem), not "
                          f"a folder of each node's own")


def save_training_state(accelerator, checkpoints_dir: Path, step: int, keep_last: int, config_yaml: str,
                        records: dict[str, dict] | None = None, names: Names = Names()) -> Path:
    """Save the full training state as ``checkpoints_dir/step_<step>``; keep the newest ``keep_last``.

    Beside accelerate's files go the run's ``config.yaml`` and ``records``, JSON files by name: train
    saves what its weights were trained on (``PREPROCESSING_FILE``, ``check_resume_preprocessing``),
    the cases it trained and validated on (``SPLIT_FILE``, ``check_resume_split``) and what exporting
    it needs (``EXPORT_DESCRIPTION_FILE``, ``checkpoint_export``); fit, which has no config.yaml, the
    settings its trackers were given (``FIT_SETTINGS_FILE``, ``fit_settings_changed``). ``names``: how the
    refusals name the caller's ways on (``FIT_NAMES`` for fit).
    """
    final = checkpoints_dir / f"step_{step}"
    partial = checkpoints_dir / f".step_{step}.partial"
    # What the main process alone writes goes through on_main, what every rank writes through
    # on_every_rank: an error is then raised on every rank. Raised on the main process alone, it left
    # the others in the barrier that followed (gloo: "Connection closed by peer" after our message;
    # NCCL: its timeout), the seventy-third session's review.

    def not_written(error: Exception) -> CheckpointNotSaved:
        return not_saved(error, f"the checkpoint {final.name}", checkpoints_dir, checkpoints_dir, names)

    def make_the_folder():
        # A folder gone read-only: a traceback before the seventy-second session. One that cannot be listed (its
        # permissions taken away, a mount gone) failed in the listing for the leftovers, a traceback before the
        # save's own line, until the hundred-and-seventh session's review.
        try:
            for stale in _hidden_checkpoints(checkpoints_dir):  # left over from runs killed while saving or rotating
                _delete_folder(stale, ignore_errors=True)
            partial.mkdir(parents=True)
        except OSError as error:
            raise not_written(error) from error

    def write_the_state():
        try:
            accelerator.save_state(str(partial))  # every rank writes its own RNG state file
        # the hidden .partial stays; the next save removes it. SafetensorError: a full disk while the
        # weights were written (no OSError: a traceback before the seventy-third session)
        except (OSError, RuntimeError, SafetensorError) as error:
            raise not_written(error) from error

    def describe_and_flush_it():
        try:
            if accelerator.is_main_process:
                with_the_usual_mode(*partial.glob("*.safetensors"))  # accelerate's save_file's are owner-only
                (partial / "config.yaml").write_text(config_yaml, encoding="utf-8")
                for name, content in (records or {}).items():
                    (partial / name).write_text(json.dumps(content, indent=1))
                # The sizes of the text files beside it: YAML cut at a line's end still parses, as a shorter
                # config, which no reader notices (check_checkpoint_files compares them). And those of the
                # state's files, which a resume needs whole: one deleted was a traceback after the data work.
                written = {name: (partial / name).stat().st_size for name in ("config.yaml", *(records or {}))}
                (partial / LAYOUT_FILE).write_text(json.dumps({**checkpoint_layout(accelerator),
                                                               WRITTEN_BYTES: written,
                                                               STATE_BYTES: state_file_sizes(partial)}, indent=1))
            # Each rank flushes what it wrote (and, on one machine, finds the rest flushed already)
            # before the main process renames the folder into place: see files.py.
            sync_folder(partial)
        except (OSError, RuntimeError) as error:  # a full disk while the text files were written
            raise not_written(error) from error

    def name_it_and_rotate():
        # The same step saved by an earlier attempt is replaced. Every folder is renamed out of the
        # step_N names before it is deleted: a kill during the deletion must not leave half a
        # checkpoint under a name that --resume latest trusts. The renames under the lock of an
        # interrupted launch's line, which names the newest (changing_what_the_line_names); not the deletions.
        with changing_what_the_line_names():
            try:
                replaced = _retire(final) if final.exists() else None
                partial.rename(final)  # atomic on one filesystem: from here on the checkpoint exists whole
                sync_directory(checkpoints_dir)
            except OSError as error:
                raise not_written(error) from error
            # The one just written is never rotated away, even where higher-numbered folders are left
            # from an earlier course (set_aside_later_course moves those out of the way when a run
            # resumes an older step; fit's or a user's may remain): it is the state this run continues from.
            rotated = [_retire(old) for old in complete_checkpoints(checkpoints_dir)[:-max(1, keep_last)]
                       if old != final]
        for retired in ([replaced] if replaced is not None else []) + rotated:
            _delete_folder(retired)

    on_main(accelerator, make_the_folder)
    on_every_rank(write_the_state)  # every rank has written its files
    # Only then are the state's sizes recorded: every rank writes scaler.pt (fp16) and its random states,
    # and the main process, done with its own, measured a scaler.pt another rank was still writing (its size
    # then 0, and the checkpoint refused as damaged on resume, a review's probe)
    on_every_rank(describe_and_flush_it)
    processes = accelerator.state.num_processes
    if processes > 1:  # and they are where the main process renames them (a collective)
        on_main(accelerator, lambda: _every_ranks_files_there(partial, processes, names.folder))
    on_main(accelerator, name_it_and_rotate)
    return final


def remove_killed_writers_leftovers(out: Path) -> list[Path]:
    """Delete what runs killed while writing into the run folder ``out`` left there: hidden checkpoint
    folders (``.step_N.partial`` being saved, ``.step_N.old`` being rotated away) and our writers'
    stale temporaries (``.summary.json.<uuid>.tmp``...). Returns what was removed.

    Call with ``out``'s run lock held, so no live run is writing them. The next save removes the
    hidden folders anyway, but a resume that trains nothing more (at train.max_steps already) or a
    run that is refused later never saves, and a kill there left a whole checkpoint's size of
    ``.step_N.old`` for good (seventy-fourth session's probe). The temporaries keep their hour of
    grace (``remove_stale_temporaries``): a user's own tool may write into the folder as well.
    """
    checkpoints_dir = out / "checkpoints"
    removed = []
    for hidden in _hidden_checkpoints(checkpoints_dir):
        _delete_folder(hidden, ignore_errors=True)
        removed.append(hidden)
    removed += remove_stale_temporaries(out)
    if checkpoints_dir.is_dir():  # a file of that name is refused after this, naming it (run_folder)
        removed += remove_stale_temporaries(checkpoints_dir)
    return removed


def _hidden_checkpoints(checkpoints_dir: Path) -> list[Path]:
    if not checkpoints_dir.is_dir():
        return []
    return [p for p in checkpoints_dir.iterdir() if HIDDEN_STEP_DIR.match(p.name)]


def _retire(step_dir: Path) -> Path:
    """Rename ``step_N`` to the hidden ``.step_N.old`` (atomic), to be deleted from there."""
    retired = step_dir.with_name(f".{step_dir.name}.old")
    _delete_folder(retired, ignore_errors=True)
    step_dir.rename(retired)
    return retired


def _delete_folder(folder: Path, ignore_errors: bool = False) -> None:
    """Delete a step folder the rotation retired, or a hidden one a kill left: one that is a symbolic link (a step
    a user linked to a copy elsewhere) loses the link, and what it names, outside the run folder, is kept.
    ``shutil.rmtree`` refuses a link: until the hundred-and-twentieth session's review a save over or after a linked
    step ended in "OSError: Cannot call rmtree on a symbolic link", and every later save in NotADirectoryError."""
    if folder.is_symlink():
        folder.unlink(missing_ok=True)
    else:
        shutil.rmtree(folder, ignore_errors=ignore_errors)


def set_aside_later_course(resume_from: Path, out: Path) -> Path | None:
    """Move what the run in ``out`` saved after ``resume_from`` (its checkpoints, and the exports
    ``model/`` and ``best_model/`` whose config.json records a later step) into a sub-folder of
    ``out/checkpoints`` where ``--resume latest`` and the rotation do not look; returns that folder
    (None: nothing was later).

    Resuming an older step starts another course (the loss diverged at step 5000; go back to 4000 with
    a lower rate). The later steps were left beside it under their names until this course saved the
    same steps, so a requeued job's ``--resume latest`` went back to the abandoned course, and its
    best_model/ stood for the new course. They are kept, not deleted: a course the user may still
    want to compare. An export written before the thirty-first session records no step and stays.

    Resuming the newest checkpoint (``--resume latest``) is no other course, and moves nothing: an
    export of a later step is the same course's, written after its last checkpoint and before it was
    stopped, and the resumed steps replace it. It was moved aside as an abandoned course's until the
    sixty-ninth session, so a run killed between a new best and its next checkpoint had no
    ``best_model/`` until it validated that step again, and each such kill left a copy of it behind.

    A run killed between the moves (a launcher's death kills its ranks until the loop runs) leaves the
    set-aside half done, each path whole here or there, and resuming the same step again finishes it
    in the same folder. The exports go first, so that a later checkpoint stays in place to the end:
    moved last, a kill after the checkpoints left the earlier course's ``model/`` and ``best_model/``
    for the new course, which took them for its own and overwrote them (until the eighty-seventh session).
    """
    step = int(STEP_DIR.match(resume_from.name).group(1))
    later = [path for path in complete_checkpoints(resume_from.parent)
             if int(STEP_DIR.match(path.name).group(1)) > step]
    if not later:
        for unfinished in _set_aside_folders(resume_from):  # killed after its last move: all is moved
            (unfinished / UNFINISHED_SET_ASIDE).unlink(missing_ok=True)
        return None
    later = [out / name for name in ("model", "best_model") if recorded_export_step(out / name) > step] + later
    aside = _set_aside_folder(resume_from, {path.name for path in later})
    for path in later:
        path.rename(aside / path.name)  # atomic: each checkpoint or export is whole here or there
    (aside / UNFINISHED_SET_ASIDE).unlink()
    return aside


# In a set-aside folder until everything of the later course is in it (set_aside_later_course).
UNFINISHED_SET_ASIDE = ".unfinished"


def _set_aside_folders(resume_from: Path) -> list[Path]:
    """The folders that returns to ``resume_from`` set aside into, oldest first: ``_2``, ``_3``, ...
    for later returns to the same step."""
    name, found = f"superseded_by_resuming_{resume_from.name}", []
    while (aside := resume_from.parent / _numbered(name, len(found) + 1)).exists():
        found.append(aside)
    return found


def _numbered(name: str, attempt: int) -> str:
    return name if attempt == 1 else f"{name}_{attempt}"


def _set_aside_folder(resume_from: Path, names: set[str]) -> Path:
    """Where the later course goes, marked unfinished until it is all there: a folder that a run killed
    while it moved into it left unfinished (or empty), if none of ``names`` is there yet; else a new one."""
    earlier = _set_aside_folders(resume_from)
    for aside in earlier:
        if aside.is_dir() and ((aside / UNFINISHED_SET_ASIDE).exists() or not any(aside.iterdir())) \
                and not names & {path.name for path in aside.iterdir()}:
            break
    else:
        aside = resume_from.parent / _numbered(f"superseded_by_resuming_{resume_from.name}", len(earlier) + 1)
        aside.mkdir()
    (aside / UNFINISHED_SET_ASIDE).touch()
    return aside


class PreemptionSignals:
    """While active, SIGTERM and SIGUSR1 only record that the job should stop (``received``).

    Schedulers send one of them some time before they kill a job (SLURM: ``--signal``, preemption,
    the time limit). Acting inside the handler would stop this rank alone, at an arbitrary point,
    leaving the other ranks waiting in a collective; instead the loop reads the flag at its
    per-step all-reduce, so every rank learns at the same step that some rank was signalled.
    Handlers can only be installed from the main thread; elsewhere (e.g. training from a thread)
    the signals keep their previous behaviour. On exit the previous handlers are restored.

    A rank that a launcher started (torchrun's agent, which ``accelerate launch`` and ``notebook_launcher``
    use, or an MPI launcher: ``launcher_death.LAUNCHER_MARKS``) also ends with it: killed with
    SIGKILL, a launcher signals no rank, and they trained on as orphans holding the run folder's
    lock. Until the loop runs (``saving_from_here``) it is killed, as there is nothing to save; then
    it gets SIGTERM and saves. ``WORLD_SIZE`` alone is no launcher's mark: some clusters export it to every
    process, whose parent may be a shell that exits while the run goes on (``nohup``).

    In a launch of several, SIGTERM ends the process at once (its default) until the launch's processes have met
    (``recording_from_here``, once the Accelerator has started the process group): there is nothing to save yet,
    and it is how torch elastic's agent stops the ranks left when one has ended. Recorded, it left them waiting in
    the rendezvous, where no Python handler runs, for the rank that had ended, until the agent's SIGKILL 30 s later:
    SIGINT to one rank in its first second ended the launch after 41 s (until the hundred-and-eighth session,
    benchmarks/results/sigint_one_rank_outside_steps/). SIGUSR1, which no launcher sends to stop a rank, is recorded
    from the start.
    """

    def __init__(self):
        self.received: int | None = None  # the signal number, once one arrived
        self._previous: dict = {}
        self._previous_parent_death: int | None = None
        self._sigterm_ends_until_met = False  # SIGTERM's default in place until recording_from_here

    def __enter__(self) -> "PreemptionSignals":
        if threading.current_thread() is threading.main_thread():
            self._sigterm_ends_until_met = processes_yet_to_meet()
            for sig in PREEMPTION_SIGNALS:  # in place of early_signals' handler, with no default between (taken_over)
                ends = sig == signal.SIGTERM and self._sigterm_ends_until_met
                self._previous[sig] = taken_over(sig, signal.SIG_DFL if ends else self._record)
            # a SIGUSR1 noted in the command's first seconds is acted on as one come now (early_signals.py)
            self.received = handed_over() or self.received
            if mark := launcher_mark():
                self._previous_parent_death = set_parent_death_signal(signal.SIGKILL)
                if self._previous_parent_death is not None and launcher_gone():  # died before it was set
                    self.__exit__()
                    raise ConfigError(
                        f"the process that started this one (process {launcher_death.PARENT_AT_START}, "
                        f"{launcher_death.LAUNCHER_MARKS[mark]}: {mark} is set) is gone before training began; "
                        f"nothing is saved yet: start the job again (a process that no launcher started should "
                        f"not have {mark} in its environment)")
        return self

    def recording_from_here(self) -> None:
        """The launch's processes have met (the Accelerator is made): SIGTERM is a notice to save from here, recorded
        as SIGUSR1 is. Where it had its default (``processes_yet_to_meet``), one come before ended the process."""
        if self._sigterm_ends_until_met:
            self._sigterm_ends_until_met = False
            signal.signal(signal.SIGTERM, self._record)

    def saving_from_here(self) -> None:
        """The training loop runs: a launcher's death is a stop to save (SIGTERM), no longer a kill."""
        self.recording_from_here()  # where the caller has not said so before
        if self._previous_parent_death is not None:
            set_parent_death_signal(signal.SIGTERM)

    def __exit__(self, *exc) -> None:
        if self._previous_parent_death is not None:  # before the handler goes: SIGTERM would end the process
            set_parent_death_signal(self._previous_parent_death)
            self._previous_parent_death = None
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()

    def _record(self, signum, frame) -> None:
        self.received = signum


# The exported model's functions and train.init_from's lived in this module until the seventy-eighth
# session, and the docs showed them as ``checkpoint.load_exported``: code that imports them from here
# still gets them. Looked up on first use, as those modules import this one.
_MOVED = {**dict.fromkeys(("export_model", "load_exported", "load_weights", "read_export_config", "read_safetensors",
                           "shared_tensor_names", "write_export"), "exported_model"),
          **dict.fromkeys(("InitialWeights", "load_initial_weights"), "initial_weights"),
          # beside the names of the files an export reads, which checkpoint_files checks without torch
          "EXPORT_DESCRIPTION_FILE": "checkpoint_files"}


def __getattr__(name: str):
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{_MOVED[name]}", __package__), name)
