"""What an interrupted training run (Ctrl-C, or SIGINT to one rank of a launch) says, from its start to its end.

``train`` and ``fit`` run everything, their setup and their final save and export as well as their steps, inside
``saying_where_to_resume_after_ctrl_c``: the run ends where it is, saving nothing more, and the main process says one
line naming the newest whole checkpoint a resume continues from, or that none was saved. In a launch of several, an
interrupt on any rank ends every rank at once with status 130 (``ranks_stop_together``).

Until the hundred-and-seventh session only the steps were inside: SIGINT to one rank alone during the setup (the data's
checks and cache, the network, ``accelerator.prepare``, a resume's load) or the final save and export ended that rank
alone, with no line; the others failed in their next collective (gloo's "Connection closed by peer"), or, where they
did not see it end (NCCL's collectives, another node's), waited for the process group's timeout
(benchmarks/results/sigint_one_rank_outside_steps/).

An interrupt before the launch's process group exists (the imports, the settings' checks before the Accelerator) has
no store to reach the others through: it ends its own rank, which says the line (``say_once_on_this_node``: the first
of a node's ranks to say it, where a terminal's Ctrl-C reached them all), and torch's launcher stops the rest with
SIGTERM, which ends them at once until the processes have met (``checkpoint.PreemptionSignals``). Until the
hundred-and-eighth session no rank but the main process said it, and the others, the agent's SIGTERM recorded as a
notice to save, waited in the rendezvous for the agent's SIGKILL 30 s later.
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .launcher_report import say_once_on_this_node
from .model_folders import STEP_DIR, Names, complete_checkpoints, unreadable_folder
from .peer_death import a_peer_gone_stops_every_process
from .ranks_stop_together import stopping_together
from .run_folder import earlier_run
from .stopped_step import write_stopped_step


@dataclass
class RunSoFar:
    """Where a run is, for its interrupted line: its checkpoints' folder and the caller's names, the checkpoint it
    resumes once its start is decided (``starts_from``), and, once the run is set up (``set_up``), its loop (the step
    it stopped after, the accelerator that prints)."""

    checkpoints_dir: Path
    names: Names
    resume_from: Path | None = None  # the checkpoint the run resumes, once decided; None: a new run, or undecided
    loop: object | None = None  # loop_state.Loop, once its setup is done: its progress.step is then the run's
    # where the main process writes the step its line names, for a launching process that its os._exit tells nothing
    # (the estimator's launch: stopped_step); None: no one asks
    stopped_step_to: Path | None = None

    def starts_from(self, resume_from: Path | None) -> None:
        """The run's start is decided: it resumes ``resume_from``, or is a new run (None)."""
        self.resume_from = resume_from

    def set_up(self, loop) -> None:
        """The setup is done (a resume's state loaded): from here the line names the step."""
        self.loop = loop

    def say_without_an_accelerator(self) -> None:
        """The line said by this rank before its Accelerator is made, with no store to reach the others through: by
        the first of a node's ranks to say it, where a terminal's Ctrl-C reached them all (``say_once_on_this_node``).
        Also by a rank interrupted as it waits for the others to meet (``interrupt_in_the_rendezvous``)."""
        line = self.line()
        say_once_on_this_node(f"\n{line}", sys.stdout, line, error=False)

    def stopped_after(self) -> int | None:
        """The step the run stopped after: its loop's once set up; before, a resume's checkpoint's, which it has taken
        no step beyond; None for a new run (or one whose start is not decided yet). A launched resume stopped in its
        setup wrote no step for the estimator, which said its newest checkpoint's, "after step N or later of M",
        until the hundred-and-eleventh session (``stopped_step``)."""
        if self.loop is not None:
            return self.loop.progress.step
        resumed = None if self.resume_from is None else STEP_DIR.match(self.resume_from.name)
        return None if resumed is None else int(resumed.group(1))

    def said_by_the_main_process(self) -> tuple[str, int | None]:
        """(``line``, the step it names), that step first written to ``stopped_step_to`` where one is asked for.
        Read once for both: the main process may train on while its watcher says the line (another rank
        interrupted alone), and the line and the step handed on must be one."""
        step = self._step_handed_on()
        return self.line(step), step

    def _step_handed_on(self) -> int | None:
        """The step the run stopped after (``stopped_after``), written to ``stopped_step_to`` where one is asked
        for, for the line that names it."""
        step = self.stopped_after()
        if self.stopped_step_to is not None and step is not None:
            write_stopped_step(self.stopped_step_to, step)
        return step

    def line(self, step: int | None = None) -> str:
        """The line an interrupted run ends with: ``interrupted (Ctrl-C)``, then when it stopped and what a resume
        continues from (``stopped``)."""
        return f"interrupted (Ctrl-C) {self.stopped(step)}"

    def said_where_a_process_was_lost(self, line: str) -> str:
        """A stop for a peer gone's ``line`` (the processes lost, each with its node, ``lost_processes``; or the
        collective's error where every process answered) with when the run stopped and the newest whole checkpoint a
        resume continues from, as the interrupted line names them: ``stopping_together``'s ``peer_gone_in_full``, on
        whichever process says it (the main process, or the one that names the main process lost). Until the
        hundred-and-fifteenth session gloo's traceback was said there, and no checkpoint (``peer_death``). The step is
        handed on as the interrupt's is (``stopped_step_to``): the estimator's launch raises it in ``ProcessLost``
        (since the same session's later helper; its ``fit`` said torch's ChildFailedError until then).

        A process other than the main one is asked for this before its roll call tells whether the main process is
        lost (``ranks_stop_together``'s watcher makes the line first, the store possibly ending with the main
        process's node), so it writes the step either way, and where the main process is lost both others write it:
        the same step, for no process passes a step's all-reduce without every other, the main process alive
        writing it last, after its own roll call (30 of 30 launches of three, each process killed in a step or in a
        save: benchmarks/results/estimator_process_lost_three_2026-12-06/, the hundred-and-sixteenth session)."""
        return f"{line.rstrip('. ')}; the run stopped {self.stopped(self._step_handed_on())}"

    def stopped(self, step: int | None = None) -> str:
        """When the run stopped (its step, ``step``, read now where not given) and the newest whole checkpoint a
        resume continues from: ``after step 4; the newest whole checkpoint is ...: run the same command with ...``.

        A checkpoints folder that cannot be read (its permissions taken away, a network mount gone) is said so,
        with the OSError's own words, in place of a checkpoint: the OSError of its listing was raised over the
        interrupt until the hundred-and-seventh session, a traceback where the line was and status 1 where 130
        was."""
        names = self.names
        if self.loop is None and self.resume_from is None:
            # A new run (or one whose start is not decided yet): nothing of its own is in the folder, and the same
            # command is the way on. The checkpoints there are an earlier run's that an overwrite run deletes at the
            # end of its setup: the line named the newest as the one to resume with --train.resume=latest, which
            # continued that earlier run in place of the new one asked for (the hundred-and-seventh session's review).
            return "before training began; nothing was saved: start the run again"
        if self.loop is None:  # a resume being set up: nothing of its own saved yet
            when = "before training began"
            unsaved = "nothing was saved: start the run again"
        else:
            when = f"after step {self.stopped_after() if step is None else step}"
            unsaved = f"no checkpoint was saved yet ({names.setting('train.save_every')}), so a new run starts over"
        try:
            saved = complete_checkpoints(self.checkpoints_dir)
            # exports of a validation before any checkpoint (save_every above val_every, or 0): the same command
            # again was refused as "already holds a run", which "a new run starts over" had not said
            exported = None if saved or self.loop is None else earlier_run(self.checkpoints_dir.parent)
        except OSError as error:
            return (f"{when}; {unreadable_folder(self.checkpoints_dir, error)}, so no checkpoint is named: once it "
                    f"can be read again, {names.resume_again} to continue from its newest whole checkpoint")
        if self.loop is None and (not saved or saved[-1].resolve() != self.resume_from.resolve()):
            saved = []  # resuming an older checkpoint, or another folder's: the same command resumes it again
        where = (f"the newest whole checkpoint is {saved[-1]}: {names.resume_again} to continue from it" if saved else
                 f"{unsaved}: {exported} is kept, which a new run there replaces with {names.overwrite_again}"
                 if exported else unsaved)
        return f"{when}; {where}"


@contextlib.contextmanager
def saying_where_to_resume_after_ctrl_c(checkpoints_dir: Path, names: Names,
                                        stopped_step_to: Path | None = None) -> Iterator[RunSoFar]:
    """Ctrl-C (KeyboardInterrupt) still ends the run where it is, as Python's default does, but the
    main process first says which whole checkpoint a resume continues from, and so what is lost.
    Before the forty-fourth session it ended in a traceback from wherever the step was. Yields the
    ``RunSoFar`` the caller tells where the run starts (``starts_from``) and marks ``set_up`` once its loop can
    train.

    In a launch of several, an interrupt on any rank ends every rank at once, with status 130, the main process
    saying the same line (``ranks_stop_together``): a terminal's Ctrl-C reaches them all, but SIGINT to one rank
    alone (``kill -INT``, a scheduler that signals one task) left the others to fail in their next collective
    (gloo's "Connection closed by peer"; NCCL's waited for the process group's timeout), and no line named the
    checkpoint, until the hundred-and-sixth session in the steps, the hundred-and-seventh in the setup and the final
    save and export. Nothing more is saved, as for the terminal's Ctrl-C.

    The loop's frames below are cleared of their locals on the way out: the traceback kept them, and with
    them the batch in flight, whose tensors from the loader's workers hold shared-memory files (/dev/shm)
    open, for as long as the exception lives. A notebook keeps the last one (``sys.last_traceback``), and a
    test's ``pytest.raises``: two files stayed open after an interrupted fit until then (ninety-sixth session).
    The traceback's lines are kept; a debugger's post-mortem of those frames sees no locals.

    ``stopped_step_to``: a file the main process writes the step it stopped after to (``stopped_step``), for the
    process that launched this one, which no exception of this one's reaches."""
    so_far = RunSoFar(checkpoints_dir, names, stopped_step_to=stopped_step_to)
    try:
        # the watcher's in_full is called on the main process alone, as it says the line; a process lost (killed on
        # another node) ends every process too, the same checkpoint named after the line naming it (peer_death)
        with (stopping_together((KeyboardInterrupt,), lambda _message: so_far.said_by_the_main_process()[0],
                                interrupt_said_on="stdout", peer_gone_in_full=so_far.said_where_a_process_was_lost),
              a_peer_gone_stops_every_process()):
            yield so_far
    except KeyboardInterrupt as interrupted:  # one process, or a launch whose store could not carry it
        traceback.clear_frames(interrupted.__traceback__)  # frames still running (this one, train's) are skipped
        if so_far.loop is not None:
            # the step for the estimator, whose repr and predict say where its fit stopped (hundredth session)
            accelerator = so_far.loop.accelerator
            if accelerator.is_main_process:
                line, interrupted.step = so_far.said_by_the_main_process()
            else:
                interrupted.step = so_far.stopped_after()
                line = so_far.line(interrupted.step)
            # on each node's first process, as accelerate prints: another node's terminal had no line where the main
            # process alone printed it (the hundred-and-tenth session until its review)
            accelerator.print(f"\n{line}")
        else:
            so_far.say_without_an_accelerator()
            if (resumed := so_far.stopped_after()) is not None:  # a resume's checkpoint's step, for the estimator
                interrupted.step = resumed
                # a launch whose store could not carry the interrupt: its main process (rank 0, whose Accelerator may
                # not be made) writes it for the launching process, as said_by_the_main_process does
                if so_far.stopped_step_to is not None and os.environ.get("RANK", "0") == "0":
                    write_stopped_step(so_far.stopped_step_to, resumed)
        raise
