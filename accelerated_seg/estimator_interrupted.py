"""What the estimator knows of its last fit when Ctrl-C stopped it (a KeyboardInterrupt out of train), or a
preemption signal did (SIGTERM/SIGUSR1: train returns, "preempted", since the hundredth session): the run it was
writing, the step it stopped after and, read when asked, the newest whole checkpoint there, with the ways on:
continue the run, or make a model of the checkpoint and load it. Until the hundredth session its repr said "not
trained yet" and predict "call fit(), or Segmentation.load(dir)", naming neither the run nor its checkpoint.

The checkpoint's weights are not predicted with unasked: a fit stopped at step 20 of 200 is not the model
asked for (Keras' and HF Trainer's in-memory model silently is), so that takes an export the user makes."""
from __future__ import annotations

import _imp
import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from .model_folders import ESTIMATOR_NAMES, STEP_DIR, Names, complete_checkpoints, exported_models_in, unreadable_folder


@dataclass(frozen=True)
class InterruptedFit:
    """The last fit of an estimator, stopped by Ctrl-C, a preemption signal, or the loss of a launched process
    (``ProcessLost``) before it exported its model (a preempted one may have exported a validation's best_model
    before the signal)."""

    run: Path  # its output_dir, absolute
    step: int | None  # the optimizer steps it had made (None where train did not say: a new run stopped before its
    # loop was set up, or a launch whose main process wrote no step (stopped_step), whose newest checkpoint's step
    # checkpoint_step says; and where it saved_nothing: a resume of another folder's checkpoint carries that one's)
    max_steps: int
    started_from: str | None  # the weights it started from (its init_from), for a resume's repr
    # what stopped it: a preempted fit (SIGTERM/SIGUSR1) returns rather than raises, and its refusals offered only
    # the resume until the hundredth session, not the export Ctrl-C's offered; a launched process lost
    # (estimator_process_lost), recorded as Ctrl-C's stop is since the hundred-and-fifteenth session
    stopped_by: str = "interrupted (Ctrl-C)"
    # the folder's run_info.json as the fit began (run_info_written): train writes its own before the first step, so
    # the same one at the stop is an earlier run's, whose newest checkpoint's step is none of this fit's
    run_info_at_start: tuple[int, int, str | None] | None = None
    # the newest whole checkpoint as it stopped: one deleted since was said to be "no checkpoint was saved yet",
    # the run to start over as if none had been (until the hundred-and-second session)
    newest_at_stop: Path | None = field(default=None, init=False)
    # which run_info.json the run had as it stopped: every later fit into the folder writes it anew, and until the
    # hundred-and-fifth session another estimator's run there was offered as this one's to resume and export
    run_info_at_stop: tuple[int, int, str | None] | None = field(default=None, init=False)
    # the step of the newest whole checkpoint as it stopped (_step_of_the_newest_checkpoint)
    checkpoint_step: int | None = field(default=None, init=False)
    # why its checkpoints folder could not be read as it stopped (unreadable_folder), None where it could: which
    # checkpoints it had is then unknown, and none there later was said "no checkpoint was saved yet (save_every)"
    # of a run that saved some (the hundred-and-seventh session's review)
    unread_at_stop: str | None = field(default=None, init=False)
    # a new run (not a resume of the folder's) stopped in its setup before it wrote anything there: what the folder
    # holds, if anything, is an earlier run's. Such a fit was said to be in a folder "no longer there (moved or
    # deleted since)" where it stopped before the folder was made, and, an overwrite's stopped before it deleted the
    # earlier run, to resume='latest' from that run's newest checkpoint (which continued the earlier run, not the new
    # one asked for), each under train's line saying nothing was saved (hundred-and-seventh session's reviews)
    saved_nothing: bool = False
    # the words of the fit's ways on (its names=: a script's flags), in which the estimator's own were said until the
    # hundred-and-twenty-seventh session
    names: Names = ESTIMATOR_NAMES

    def __post_init__(self) -> None:  # frozen: object.__setattr__ is the dataclass' own way in
        object.__setattr__(self, "run_info_at_stop", run_info_written(self.run))
        # a checkpoints folder that cannot be read (a mount gone) leaves none known: its OSError was raised over the
        # fit's KeyboardInterrupt until the hundred-and-seventh session; train's line has said why
        try:
            object.__setattr__(self, "newest_at_stop", self._checkpoint())
        except OSError as error:
            object.__setattr__(self, "unread_at_stop", unreadable_folder(self.run / "checkpoints", error))
        object.__setattr__(self, "checkpoint_step", self._step_of_the_newest_checkpoint())

    def _step_of_the_newest_checkpoint(self) -> int | None:
        """The step of the newest whole checkpoint as it stopped: the step a resume continues from, which the fit
        had reached or passed (not the step it stopped after, which a launch whose main process wrote none did not
        say here: ``stopped_step``); None where none was saved, or where the fit stopped before its first step: an
        overwrite's, before it deleted the earlier run, was said to be after that run's step until the
        hundred-and-fifth session's review."""
        if self.newest_at_stop is None or same_run_info(self.run_info_at_stop, self.run_info_at_start):
            return None
        return int(STEP_DIR.match(self.newest_at_stop.name).group(1))

    def gone_on(self) -> InterruptedFit | None:
        """This stop after the estimator's own resume of its run failed, having written the run (run_info.json
        anew, a checkpoint): the run's file and newest checkpoint read anew, the step the stop is said to be after
        kept. A launch's, told by its newest checkpoint's, was said to be the failed resume's ("after step 3 or
        later" of a stop at step 2) in the hundred-and-sixth session, until its review.

        None where its checkpoints folder cannot be read now: the caller keeps the record as it was. Read anew, it
        would say the folder was unreadable as the fit stopped (``unread_at_stop``), and forget the checkpoint it
        had (``newest_at_stop``); its listing's OSError told the caller so until unread_at_stop caught it (the
        hundred-and-seventh session, whose merge left the failed resume's test failing on main)."""
        again = dataclasses.replace(self)  # a new instance: __post_init__ reads the run's folder again
        if again.unread_at_stop is not None:
            return None
        object.__setattr__(again, "checkpoint_step", self.checkpoint_step)
        return again

    def stopped_after(self) -> str:
        """`` after step N of M``, as far as it is known, or nothing where no step is: for ``_stopped``, and for the
        error of a launch whose process was lost (``ProcessLost``), which says the step as repr does."""
        if self.step is not None:
            return f" after step {self.step} of {self.max_steps}"
        if self.checkpoint_step is not None:  # a launch whose main process wrote no step (stopped_step): no
            # step was said of it until the hundred-and-fifth session, this one of every launch until the
            # hundred-and-tenth
            return f" after step {self.checkpoint_step} or later of {self.max_steps} (its newest checkpoint's step)"
        return ""

    def _stopped(self) -> str:
        return f"a fit {self.stopped_by}{self.stopped_after()} in {self.run}"

    def written_over(self) -> bool:
        """Whether a later fit wrote the folder's run since the stop: another estimator's, into the same
        output_dir (one that replaced the run with overwrite, or resumed it)."""
        return not same_run_info(run_info_written(self.run), self.run_info_at_stop)

    def _checkpoint(self) -> Path | None:
        """The newest whole checkpoint the run holds now (a checkpoint pruning or deletion may have removed some);
        None where a later fit has written the folder since (its checkpoints are that fit's)."""
        saved = complete_checkpoints(self.run / "checkpoints")
        return saved[-1] if saved and not self.written_over() else None

    def _unsaved(self, whose: str, predicting_with: Path | None) -> str:
        """What is left where no checkpoint is: an export of a validation's before any checkpoint, or none; where
        the run had saved some as it stopped, that they are gone since, ``whose`` (``ways_on``'s)."""
        if self.newest_at_stop is not None:
            unsaved = (f"{whose} checkpoints are no longer there (the newest as it stopped was "
                       f"{self.newest_at_stop}: deleted since, or replaced by a later fit there)")
        elif self.unread_at_stop is not None:
            unsaved = f"no whole checkpoint is there (as it stopped, {self.unread_at_stop})"
        else:
            unsaved = f"no checkpoint was saved yet ({self.names.setting('train.save_every')})"
        if exports := [export for export in exported_models_in(self.run) if export != predicting_with]:
            return (f"{unsaved}; the model exported in {exports[0]} is kept: Segmentation.load({str(exports[0])!r}) "
                    f"to predict with it (a new fit there replaces it with {self.names.overwrite_again})")
        return f"{unsaved}, so a new fit starts over"

    def said(self) -> str:
        """For repr: what stopped, and where a resume continues from."""
        return f"{self._stopped()}; {self.ways_on()}"

    def ways_on(self, predicting_with: Path | None = None) -> str:
        """Where a resume continues from (the run's newest whole checkpoint), or why it cannot. ``predicting_with``:
        the run's export that the words before say is predicted with (a repr's, of a preempted fit's best_model):
        the run is named "the run's", not "its" (the model's), and that export is not offered again to load (the
        hundred-and-second session's review: "predicts with <run>/best_model; its checkpoints are no longer
        there ...; Segmentation.load('<run>/best_model') to predict with it")."""
        whose = "the run's" if predicting_with is not None else "its"
        if self.saved_nothing:
            return "nothing was saved: fit again"
        if not self.run.is_dir():  # "no checkpoint was saved yet" of a run whose checkpoints went with it, until the
            # hundredth session's review
            return ("that folder is no longer there (moved or deleted since): where it was moved, "
                    "fit(..., output_dir=<its new place>, resume='latest') continues it")
        if self.written_over():
            return (f"a later fit has written that folder since (its run_info.json was written anew: the run replaced "
                    f"or resumed), so what it holds is not offered as this fit's: fit again, or "
                    f"{self.names.resume_again} to continue the folder's run as it is now")
        try:
            checkpoint = self._checkpoint()
        except OSError as error:  # looked up each time it is named: it may be readable again later
            return (f"{unreadable_folder(self.run / 'checkpoints', error)}, so no checkpoint is named: once it can be "
                    f"read again, {self.names.resume_again} to continue from its newest whole checkpoint")
        if checkpoint is None:
            return self._unsaved(whose, predicting_with)
        return f"{whose} newest whole checkpoint is {checkpoint}: {self.names.resume_again} to continue from it"

    def checkpoint_offered(self) -> Path | None:
        """The checkpoint ``ways_on`` offers to resume from now, None where it offers none: ``ProcessLost.checkpoint``
        is the one its message names (None of a resume killed before it wrote the run, whose message named the
        folder's checkpoint, until the hundred-and-fifteenth session's review of h80)."""
        if self.saved_nothing:  # the folder's checkpoint is an earlier run's
            return None
        try:
            return self._checkpoint()
        except OSError:  # said by ways_on as unreadable
            return None

    def refusal(self, method: str) -> str:
        """``method``'s refusal where the estimator has no model but this run's state: ``said``, and how to
        predict with the checkpoint's weights, asked for by name."""
        refusal = f"{method}: this Segmentation has no trained model: {self.said()}"
        if (checkpoint := self.checkpoint_offered()) is None:
            return refusal
        return (f"{refusal}; or, for a model of that checkpoint's weights as they are, "
                f"export_checkpoint({str(checkpoint)!r}, <folder>) (accelerated_seg.checkpoint_export), then "
                f"Segmentation.load(<folder>)")


def run_info_written(run: Path) -> tuple[int, int, str | None] | None:
    """Which run_info.json ``run`` holds now (its file's inode and time, and when its fit says it wrote it), None
    where it holds none. The inode and time alone were taken for it until the hundred-and-fifth session's review:
    an overwrite deletes the file before it writes its own, whose inode number ext4 gives again, and a coarse file
    system's time (1 s, 2 s on FAT) may be the same too."""
    try:
        file = run / "run_info.json"
        written = file.stat()
        said = json.loads(file.read_text(encoding="utf-8"))
    except OSError:
        return None
    except ValueError:  # not JSON (written by hand, or cut short): its inode and time still tell
        said = {}
    when = said.get("written_at") if isinstance(said, dict) else None
    return written.st_ino, written.st_mtime_ns, when


def same_run_info(one: tuple[int, int, str | None] | None, other: tuple[int, int, str | None] | None) -> bool:
    """Whether two of run_info_written's answers are one fit's run_info.json: by its ``written_at`` where both say
    one, which a copy keeps (cp -r, rsync without -a, a backup restored) where it gives the file another inode and,
    without -p, another time, so that a run folder copied back read as written by a later fit until the
    hundred-and-sixth session; by the inode and time where either says none (a file from before the
    hundred-and-fifth session, or written by hand)."""
    if one is None or other is None:
        return one is other
    if one[2] is not None and other[2] is not None:
        return one[2] == other[2]
    return one == other


def give_back_an_import_lock_left_held() -> None:
    """Release Python's import lock where this thread still holds it, as a Ctrl-C can leave it: a KeyboardInterrupt
    raised as importlib's ``_imp.acquire_lock()`` returns (3.11's ``_ImportLockContext.__enter__``, before the
    ``with`` that would release it) leaves it held by the main thread for good. The main thread imports on (the
    lock is re-entrant), but every other thread's import then waits for ever: the next fit of a notebook whose
    first was stopped while it imported hung in its case-building threads (a notebook audit, hundred-and-fourth
    session). Outside an import no thread holds the lock, so what this thread holds here is left over; another
    thread's is that thread's own to release (``release_lock`` refuses it)."""
    while True:
        try:
            _imp.release_lock()
        except RuntimeError:  # not held by this thread (any longer)
            return
