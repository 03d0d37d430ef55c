"""torch's log of a launch's shutdown left out where Ctrl-C ends the launch, as a one-process fit logs none: the
process that ended with Ctrl-C's status taken for a failure (a traceback of torch's), the agent's SIGINT received
and its stop of the other processes. Each record is decided as torch logs it, from what the record itself says
(the status, the signal), so a failure's lines are logged as they come, live, as ever."""
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


class _CtrlCShutdownLeftOut(logging.Filter):
    """Drops torch's records of a Ctrl-C's shutdown (``of_a_ctrl_c``); every other passes at once."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not of_a_ctrl_c(record)


@contextlib.contextmanager
def shutdown_logged_unless_interrupted():
    """torch's records of a Ctrl-C's shutdown of the launch inside left out on its loggers themselves (a handler the
    user added to them, or to a parent, sees none): its traceback of a process's status 130 read as a crash in a
    notebook under the fit's one line, until the hundred-and-ninth session. A failure's, and a preemption's (SIGTERM
    to the launching process), are logged as torch logs them, as they come: the session's first version held them
    until the launch ended, and torch's ``Terminating process N via signal SIGTERM`` of a failure, the only line
    while it waits 30 s for a process deaf to SIGTERM, came 30.1 s late, and not at all where a Ctrl-C then ended
    the wait (its review's probe)."""
    loggers, left_out = [logging.getLogger(name) for name in TORCH_LAUNCH_LOGGERS], _CtrlCShutdownLeftOut()
    for logger in loggers:
        logger.addFilter(left_out)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(left_out)
