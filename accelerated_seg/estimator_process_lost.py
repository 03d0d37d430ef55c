"""What the estimator's own launch raises where one of its processes died of a signal (killed outright: the OOM
killer, a ``kill -9``; or a crash), the others stopped by it: ``ProcessLost``, one exception a notebook can catch and
read, naming the process lost, the step the run stopped after and where ``fit(..., resume='latest')`` continues from.

The launched processes stop together and say that in one line (``peer_death``, ``lost_processes``), but their
statuses reach the launching process through torch elastic's agent alone, which raised its ``ChildFailedError``
(its traceback and table) out of ``fit``, and the estimator kept no record of the stop: its repr said "not trained
yet" (until the hundred-and-fifteenth session). Ctrl-C's stop is a KeyboardInterrupt (``interrupt_of_the_launch``),
a preemption's a return; this one is an error, since the fit did not do what was asked and no one asked it to stop.
"""
from __future__ import annotations

import signal
from pathlib import Path

from .stopped_step import stopped_step_read


class ProcessLost(RuntimeError):
    """A launched fit stopped because process ``process`` of ``processes`` died of ``signal`` (its name, e.g.
    ``SIGKILL``); ``step``: the step the run stopped after, as the processes' line names it (the main process lost,
    the process saying the line writes it; None where none was written: a new run's process killed before its loop
    was set up, or no process said the line); ``checkpoint``: the newest whole checkpoint a ``fit(...,
    resume='latest')`` continues from, the one the message names, None where none (set by ``fit``, which reads the
    run). A process dead of a signal once the launch wrote the run's summary.json is no ProcessLost: ``fit`` returns
    that run, warning (``after_the_run_ended``)."""

    def __init__(self, message: str, process: int, processes: int, signal: str, step: int | None = None,
                 checkpoint: Path | None = None):
        super().__init__(message)
        self.process, self.processes, self.signal, self.step, self.checkpoint = (process, processes, signal, step,
                                                                                 checkpoint)

    def __reduce__(self):  # pickled whole (a notebook's or a job's exception handed on), not by its message alone
        return ProcessLost, (str(self), self.process, self.processes, self.signal, self.step, self.checkpoint)

    def stopped_by(self) -> str:
        """What stopped the fit, for its record's words (``InterruptedFit.stopped_by``): ``a fit stopped by the loss
        of process 1 of 2 (SIGKILL) after step 2 of 6 in <run>``."""
        return f"stopped by the loss of process {self.process} of {self.processes} ({self.signal})"

    def with_ways_on(self, stopped: str, ways_on: str, checkpoint: Path | None) -> ProcessLost:
        """This stop said in full, once the estimator has read its run: ``stopped``, when and where it stopped
        (``InterruptedFit.stopped_after`` and the run), ``ways_on``, what a resume continues from."""
        return ProcessLost(f"fit: {_died(self.process, self.processes, self.signal)}, and the other processes "
                           f"stopped{stopped}; {ways_on}",
                           self.process, self.processes, self.signal, self.step, checkpoint)

    def after_the_run_ended(self, run: Path, summary: dict) -> str:
        """The warning of a launch whose process died of a signal after the run had ended as train ends it (its
        ``summary.json`` written by this launch, after the export): its model is whole and is the one taken. gloo
        can abort a process as it ends (``docs/strategies.md``, a rare SIGABRT at exit after a complete run), and
        the OOM killer may kill one then: said "the other processes stopped after step 4 or later of 4 ...: call
        fit(..., resume='latest') again", the trained model left untaken, until the hundred-and-fifteenth
        session's review of h80."""
        ended = "was preempted and saved" if summary.get("preempted") else "had finished and exported its model"
        return (f"fit: {_died(self.process, self.processes, self.signal)} after the run in {run} {ended} (step "
                f"{summary.get('step')}, its summary.json written): what it wrote is taken, nothing was lost")


def process_lost_in_the_launch(error: BaseException, processes: int,
                               stopped_step: Path | None = None) -> ProcessLost | None:
    """The ``ProcessLost`` of a launch of ``processes`` that ended with torch's ``ChildFailedError`` because its first
    process to end died of a signal (its status below 0: torch reads a signal's death so), its ``step`` the one the
    process saying the stop's line wrote to ``stopped_step`` (``RunSoFar.said_where_a_process_was_lost``); None for
    any other error (a process's own error, status 1, or an interrupt's 130, ``interrupt_of_the_launch``)."""
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    if not isinstance(error, ChildFailedError):
        return None
    rank, failure = error.get_first_failure()
    if failure.exitcode >= 0:
        return None
    try:
        name = signal.Signals(-failure.exitcode).name
    except ValueError:  # a number no signal of this platform has
        name = f"signal {-failure.exitcode}"
    step = None if stopped_step is None else stopped_step_read(stopped_step)
    return ProcessLost(f"fit: {_died(rank, processes, name)}, and the other processes stopped", rank, processes, name,
                       step)


def _died(process: int, processes: int, signal_name: str) -> str:
    """``process 1 of 2 died of SIGKILL (...)``: which process, and what a death of that signal usually is."""
    why = " (killed outright: the OOM killer, or a kill -9)" if signal_name == "SIGKILL" else ""
    return f"process {process} of {processes} died of {signal_name}{why}"
