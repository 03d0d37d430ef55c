"""A stop (Ctrl-C, SIGTERM, SIGUSR1 raised by a handler of Python's or ours) held across a few renames that belong
together, and raised as they end.

``files.write_files_together`` renames its files into place one after the other, microseconds apart: evaluate's
metrics.csv and summary.json, the estimator's exported weights and config.json. A stop is raised on the main thread
wherever its handler runs, between two renames too, and left one file new beside the other's old one (metrics.csv
of this evaluation beside an earlier summary.json: helper h114's probe, which evaluate's stop line had to say),
where its docstring said only a kill could. Held, the files are all in place (and their folder synced) before it is
raised, as a kill alone can still split them. Held as ``last_wait`` and ``interrupt_in_the_rendezvous`` hold a
Ctrl-C: the handler replaced by one that notes it, put back after, and the noted signals handed to it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

#: The signals whose handler raises a stop on the main thread (sigterm.py takes SIGTERM and SIGUSR1 so).
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """Inside, a stop whose handler is Python code (Python's KeyboardInterrupt, sigterm's ``raised_once``, training's
    ``PreemptionSignals``' note) is noted, not run; on leaving, each handler is put back and called for the signals
    noted, in the order they came, so that a stop is raised after the body, where it would have been raised inside.
    A signal ignored or at the system's default (a kill, which nothing here could hold) is left as it is, and so is
    every signal off the main thread, the only one a handler can be set from (there a stop is raised on the main
    thread anyway, not among the renames)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    put_back: dict[int, object] = {}

    def note(signum, frame) -> None:
        came.append(signum)

    try:
        for signum in STOPS:  # one pending as it is replaced is run by signal.signal: raised here, nothing done yet
            if callable(handler := signal.getsignal(signum)):
                put_back[signum] = handler
                signal.signal(signum, note)
        yield
    finally:
        for signum, handler in put_back.items():
            signal.signal(signum, handler)  # one pending now is run first: by ``note``, and handed on below
        for signum in came:
            put_back[signum](signum, None)
