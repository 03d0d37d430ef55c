"""The run folder as every rank of a launch meets it: held by the main process's lock for the whole
run (a folder in use refused on every rank), judged alike by every rank (which checkpoint to resume,
whether an earlier run is replaced), and changed by the main process alone between barriers (an
earlier run's outputs deleted, a later course's set aside), so that no rank reads it half changed.

What a folder holds and may become is judged without torch or accelerate in run_folder.py, which the
command line runs before the imports; these are its steps once the Accelerator exists. The two that
change the folder take the name of their run_folder.py or checkpoint.py step (delete_earlier_run,
set_aside_later_course), with the Accelerator first.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from accelerate import Accelerator

from . import checkpoint, run_folder
from .checkpoint import exported_step, remove_killed_writers_leftovers
from .config import ConfigError
from .exported_model import previous_exports_left, remove_interrupted_exports
from .model_folders import Names, complete_checkpoints
from .ranks import on_every_rank, on_main
from .run_lock import hold_run_folder
from .shell_words import shell_word
from .strategy import launch_error

if TYPE_CHECKING:
    from .loop_state import Progress


@contextlib.contextmanager
def holding_run_folder(accelerator: Accelerator, out: Path, elsewhere: str = "another --train.output_dir"):
    """Hold ``out``'s run lock (run_lock.py) on the main process while the run lasts; a folder in use
    by another live run is an error on every rank, before this run writes anything.

    Taken once the Accelerator exists, so the refusal reaches every rank, and before what the folder
    holds is judged (``resume_or_replace``), in ``train`` as in ``fit``. A launch whose processes
    accelerate did not join is refused first: each of them is a main process and would take the
    lock, and the one that lost the race named its sibling as "another run" (eighty-fourth session).
    """
    if error := launch_error(accelerator):
        raise ConfigError(error)
    held = []

    def hold_and_sweep() -> tuple[list[Path] | str, list[Path]]:
        held.append(hold_run_folder(out, elsewhere))
        if held[0].unsupported:  # in an unlockable folder the hidden ones may be another run's
            return [], []
        runs_folder = run_folder.is_a_runs_folder(out)
        try:
            removed = remove_killed_writers_leftovers(out) + (remove_interrupted_exports(out) if runs_folder else [])
        except OSError as error:  # a colleague's leftover in a shared folder: said, and the run goes on
            removed = f"warning: what runs killed while writing left in {out} could not all be removed ({error})"
        return removed, previous_exports_left(out) if runs_folder else []

    try:  # from the lock's taking: whatever fails after it, the lock goes (a process refused itself after)
        removed, left = on_main(accelerator, hold_and_sweep)
        if held and held[0].unsupported:
            accelerator.print(f"warning: {out} cannot be locked ({held[0].unsupported}), so a second run started "
                              f"into it would not be refused: start one run per folder")
        if isinstance(removed, str):
            accelerator.print(removed)
        elif removed:
            accelerator.print(f"removed what runs killed while writing left in {out}: "
                              + ", ".join(str(path.relative_to(out)) for path in removed))
        if left:
            accelerator.print(f"note: left alone in {out}, as it may be yours: "
                              + ", ".join(f"{path.name}/ beside a whole {path.stem}/" if (out / path.stem).exists()
                                          else f"{path.name}/ with no {path.stem}/ beside it" for path in left)
                              + " (an export's replace killed while deleting the old one leaves one only where the "
                              "filesystem cannot swap two folders, NFS or macOS, and there the next export of that "
                              "name deletes it): move it out to keep it, or delete it; a new run that replaces the "
                              "earlier one here (overwrite) deletes it with that run")
        yield
    finally:
        for lock in held:
            lock.release()


def check_the_ranks_agree_on_the_start(accelerator: Accelerator, resume_from: Path | None, replace: bool,
                                        folder: str = "train.output_dir") -> None:
    """Every rank decides from the folder it sees which checkpoint ``--resume latest`` means and whether
    an earlier run is replaced; refuse, on every rank, a launch whose ranks decided otherwise. ``folder``:
    the run folder's setting as the caller names it (``Names.folder``; until the ninety-first session a
    fit was told of train.output_dir).

    Nodes that see the output folder differently (a stale NFS listing after a requeue, a node-local
    folder) resumed step_6 on one node and step_4 on the other, trained together with different step
    counts and hung at the next collective (sixty-ninth session).
    """
    if accelerator.num_processes == 1:
        return
    starts = on_every_rank(lambda: (str(resume_from) if resume_from else None, replace))
    if len(set(starts)) > 1:
        seen = "; ".join(f"rank {rank}: {f'resume {start}' if start else 'a new run'}"
                         f"{' replacing the earlier one' if replaces else ''}"
                         for rank, (start, replaces) in enumerate(starts))
        raise ConfigError(f"the ranks see the run folder differently ({seen}): {folder} must be one "
                          f"folder that every node sees alike (a shared filesystem); if it is one, a node's "
                          f"listing may be stale: run again once every node sees the newest checkpoint")


def delete_earlier_run(accelerator: Accelerator, out: Path, outputs: tuple[str, ...], replace: bool) -> None:
    """train.overwrite: the main process deletes the earlier run's outputs (``run_folder.delete_earlier_run``,
    when its ``replace`` says so) before anyone writes; every rank calls this, whatever its own ``replace``.

    Each rank decided ``replace`` by looking at the folder itself, and a rank that looked after the
    deletion would find no earlier run. So only the main process's decision counts, every rank meets
    here (none skips a barrier the others wait in), and the first barrier has every rank past its
    look before the folder changes; in train and fit the collectives of ``prepare`` already order
    that, the barrier keeps it so if they move.
    """
    accelerator.wait_for_everyone()
    if accelerator.is_main_process and replace:
        # A .previous the lock's sweep left alone and named goes with the run (overwrite deletes every name of
        # outputs): said, where its "left alone" note was the last word on it (the hundred-and-eighth session's review)
        doomed = [path.name for path in previous_exports_left(out) if path.name in outputs]
        run_folder.delete_earlier_run(out, outputs)
        if doomed:
            accelerator.print(f"note: deleted with the earlier run in {out}, as overwrite deletes what a run "
                              f"writes there: {', '.join(f'{name}/' for name in doomed)}")
    accelerator.wait_for_everyone()


def set_aside_later_course(accelerator: Accelerator, resume_from: Path | None, out: Path, names: Names) -> None:
    """Resuming an older step of this folder's run: the main process moves the later checkpoints and
    exports aside (``checkpoint.set_aside_later_course``) before anyone saves; every rank calls this. ``names``: the
    caller's (a fit and the estimator were told of --resume latest until the ninety-second session)."""
    accelerator.wait_for_everyone()
    own = resume_from is not None and resume_from.resolve().parent == (out / "checkpoints").resolve()
    if accelerator.is_main_process and own and (
            aside := checkpoint.set_aside_later_course(resume_from, out)) is not None:
        accelerator.print(f"resuming {resume_from.name}: the later checkpoints and exports of the earlier course "
                          f"are kept in {aside}, out of the way of {names.resume}")
    accelerator.wait_for_everyone()


def choose_the_best_anew_where_its_export_is_gone(accelerator: Accelerator, progress: Progress, out: Path,
                                                   resume_from: Path, max_steps: int, names: Names = Names()) -> None:
    """A resumed run whose best validation's export is not in ``out/best_model`` chooses the best
    model anew from its next validation, and says so.

    Found so after going back to an older checkpoint (the later course's best_model/ set aside, and
    the best step's own export overwritten by it), in another folder, or after a kill between a new
    best and the next checkpoint when the resumed steps do not repeat it bit for bit. Left as it was,
    best_model/ stayed missing (or another course's) until a validation beat a score whose weights
    were gone, while summary.json named that step (eighty-fourth session's probe). Every rank reads
    the folder after the set-aside's barrier, so all decide alike (the export is collective).

    A resume at ``max_steps`` validates nothing more: the best stays the checkpoint's, said with where
    its weights are (summary.json's best_step was null, as if the run had never validated, until the
    eighty-fifth session).
    """
    found = exported_step(out / "best_model")
    if progress.best_step < 0 or found in (-1, progress.best_step):  # -1: a stepless export, not judged
        return
    best = f"the checkpoint's best validation was step {progress.best_step} (mean Dice {progress.best_dice:.4f})"
    if found is not None and found > progress.step:  # the stopped run's, after its last checkpoint: same course
        accelerator.print(f"note: best_model/ holds step {found}, validated after {resume_from.name} by the run "
                          f"that stopped, and {best}: best_model/ is chosen anew from this run's next validation "
                          f"on, which repeats those steps")
    else:
        kept = resume_from.parent / f"step_{progress.best_step}"  # the resumed run's checkpoints, here or elsewhere
        way = (f"; {kept} holds those weights: `accelerated-seg export {shell_word(kept)} --output FOLDER` writes them"
               if kept in complete_checkpoints(resume_from.parent) else "")
        what = f"there is no best_model/ in {out}" if found is None else f"{out / 'best_model'} holds step {found}"
        if progress.step >= max_steps:  # no validation follows to choose from
            accelerator.print(f"warning: {what}, and {best}{way}. Nothing is trained "
                              f"({names.setting('train.max_steps')} is reached), so summary.json keeps step "
                              f"{progress.best_step} as the best, whose export is not in best_model/")
            return
        accelerator.print(f"warning: {what}, and {best}{way}. best_model/ is chosen anew from this run's next "
                          f"validation on; metrics.json keeps step {progress.best_step}'s scores")
    progress.best_dice, progress.best_step = type(progress).best_dice, type(progress).best_step
