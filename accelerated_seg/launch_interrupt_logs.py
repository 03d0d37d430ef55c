"""torch's log of a launch's shutdown left out where the estimator's fit says that end in its own words, as a
one-process fit logs none: Ctrl-C's (the process that ended with Ctrl-C's status taken for a failure, a traceback
of torch's, the agent's SIGINT received and its stop of the other processes), and a process's death of a signal,
which fit raises as ``ProcessLost`` (the dead process's status and torch's traceback of its
``ProcessExitedException``, the stop of the others). Each record is decided as torch logs it, from what the record
itself says (the status, the signal), so a failure's lines (a process's own error, status 1) are logged as they
come, live, as ever."""
from __future__ import annotations

import contextlib
import logging
import signal
import sys

from .ranks_stop_together import EXIT_INTERRUPTED

#: torch's loggers of a launch's processes (its elastic process context, torch.multiprocessing's, under it) and of
#: its agent (torch 2.13's module loggers).
TORCH_LAUNCH_LOGGERS = ("torch.distributed.elastic.multiprocessing.api", "torch.multiprocessing.spawn",
                        "torch.distributed.elastic.agent.server.api")

#: The starts of torch's format strings of a shutdown's records (torch 2.13): a process's status
#: (``failed (exitcode: 130) local_rank: 1 ...``, with its traceback), the agent's signal
#: (``Received 2 death signal, shutting down workers``), and its stop of the others, before the status is read
#: (``Terminating process N via signal SIGTERM``) or after (``Closing process N via signal SIGINT``). Another torch's
#: are logged as they come, which tests/test_estimator.py's launches show.
SHUTDOWN_RECORDS = ("failed (exitcode: %s)", "Received %s death signal", "Terminating process %s via signal",
                    "Closing process %s via signal")


def _first_ended_status() -> int | None:
    """The status of the process whose end torch.multiprocessing's ``ProcessContext.join`` is stopping the others
    for, read from that call's frame (its ``self`` and ``error_index``, torch 2.13), or None outside it."""
    from torch.multiprocessing.spawn import ProcessContext

    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not ProcessContext.join.__code__:
        frame = frame.f_back
    if frame is None:
        return None
    context, index = frame.f_locals.get("self"), frame.f_locals.get("error_index")
    try:
        return context.processes[index].exitcode
    except (AttributeError, IndexError, TypeError):
        return None


def of_a_ctrl_c(record: logging.LogRecord) -> bool:
    """Whether ``record`` is one of torch's records of a launch's shutdown (``SHUTDOWN_RECORDS``) for Ctrl-C: a
    process's status 130 (``EXIT_INTERRUPTED``: it said Ctrl-C's line, ``fit_in_launched_process``,
    ``ranks_stop_together``), the others stopped because such a process ended first, SIGINT received by the agent
    or sent on by it. The records ``interrupt_of_the_launch`` takes the launch's end for Ctrl-C after; any other,
    or one whose arguments are not torch 2.13's, is not."""
    if not isinstance(record.msg, str) or not record.msg.startswith(SHUTDOWN_RECORDS):
        return False
    args = record.args if isinstance(record.args, tuple) else ()
    if record.msg.startswith("Terminating process"):  # logged before the status it follows from: read it
        return _first_ended_status() == EXIT_INTERRUPTED
    if record.msg.startswith("Closing process"):
        return len(args) > 1 and args[1] == signal.SIGINT.name
    if record.msg.startswith("Received"):
        return len(args) > 0 and args[0] == signal.SIGINT
    return len(args) > 0 and args[0] == EXIT_INTERRUPTED  # not 2, SIGINT's number: a process's own status 2


def of_a_death_by_signal(record: logging.LogRecord) -> bool:
    """Whether ``record`` is one of torch's records of a launch's shutdown for a process's death of a signal (killed
    outright, a segfault): its status below 0 (``failed (exitcode: -9) ...``, with the traceback of torch's
    ``ProcessExitedException: process 1 terminated with signal SIGKILL``), the others stopped because such a process
    ended first (``Terminating process N via signal SIGTERM``). The records ``process_lost_in_the_launch`` takes the
    launch's end for a ``ProcessLost`` after (or, the run ended first, a warning: ``after_the_run_ended``), whose
    message names the process, the signal, the step and the checkpoint: torch's lines under it, a traceback of its
    agent's own frames, read as a second failure in a notebook, until the hundred-and-sixteenth session. Meanwhile
    the processes left say the stop in their own line (``lost_processes``), and torch's ``Unable to shutdown process``
    of one deaf to its SIGTERM is still logged. A status of 0 or above (a process's own error, 1: torch's
    ``ChildFailedError`` is raised then), or arguments not torch 2.13's, are not."""
    if not isinstance(record.msg, str):
        return False
    if record.msg.startswith("Terminating process"):  # logged before the status it follows from: read it
        status = _first_ended_status()
        return status is not None and status < 0
    args = record.args if isinstance(record.args, tuple) else ()
    return (record.msg.startswith("failed (exitcode: %s)") and len(args) > 0 and isinstance(args[0], int)
            and args[0] < 0)


def said_by_the_fit(record: logging.LogRecord) -> bool:
    """Whether ``record`` is one of torch's records of a shutdown the fit says in its own words (``of_a_ctrl_c``,
    ``of_a_death_by_signal``)."""
    return of_a_ctrl_c(record) or of_a_death_by_signal(record)


class _SaidByTheFitLeftOut(logging.Filter):
    """Drops torch's records of a shutdown the fit says in its own words (``said_by_the_fit``); every other passes at
    once."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not said_by_the_fit(record)


@contextlib.contextmanager
def shutdown_logged_unless_the_fit_says_it():
    """torch's records of a shutdown of the launch inside that the fit says in its own words (``said_by_the_fit``)
    left out on its loggers themselves (a handler the user added to them, or to a parent, sees none): its traceback of
    a process's status 130 read as a crash in a notebook under the fit's one line, until the hundred-and-ninth
    session; its traceback of a process's death of a signal under ``ProcessLost``, until the hundred-and-sixteenth.
    A failure's (a process's own error), and a preemption's (SIGTERM to the launching process), are logged as torch
    logs them, as they come: the hundred-and-ninth session's first version held them until the launch ended, and
    torch's ``Terminating process N via signal SIGTERM`` of a failure, the only line while it waits 30 s for a process
    deaf to SIGTERM, came 30.1 s late, and not at all where a Ctrl-C then ended the wait (its review's probe)."""
    loggers, left_out = [logging.getLogger(name) for name in TORCH_LAUNCH_LOGGERS], _SaidByTheFitLeftOut()
    for logger in loggers:
        logger.addFilter(left_out)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(left_out)
