"""torch's log of a launch's shutdown held until the launch has ended, and dropped where Ctrl-C ended it, as a
one-process fit logs none: the process that ended with Ctrl-C's status taken for a failure (a traceback of torch's),
the agent's SIGINT received and its stop of the other processes. A failure's lines are logged as ever, at its end."""
from __future__ import annotations

import contextlib
import logging

from .estimator_launch import interrupt_of_the_launch

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


class _ShutdownHeld(logging.Filter):
    """Holds the records of a launch's shutdown back from every handler (``SHUTDOWN_RECORDS``); others pass."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[logging.LogRecord] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(SHUTDOWN_RECORDS):
            self.held.append(record)
            return False
        return True


@contextlib.contextmanager
def shutdown_logged_unless_interrupted():
    """torch's records of the launch's shutdown inside held on its loggers themselves (a handler the user added to
    them, or to a parent, sees them as torch's), then logged once the launch has ended, unless Ctrl-C ended it
    (``interrupt_of_the_launch``): its traceback of a process's status 130 (``fit_in_launched_process``,
    ``ranks_stop_together``) read as a crash in a notebook under the fit's one line, until the hundred-and-ninth
    session. A failure's, and a preemption's (SIGTERM to the launching process), are logged as torch logs them."""
    loggers, shutdown = [logging.getLogger(name) for name in TORCH_LAUNCH_LOGGERS], _ShutdownHeld()
    for logger in loggers:
        logger.addFilter(shutdown)
    interrupted = False
    try:
        yield
    except BaseException as error:
        interrupted = interrupt_of_the_launch(error) is not None
        raise
    finally:
        for logger in loggers:
            logger.removeFilter(shutdown)
        for record in [] if interrupted else shutdown.held:
            logging.getLogger(record.name).handle(record)
