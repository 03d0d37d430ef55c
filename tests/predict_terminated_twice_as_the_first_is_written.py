"""``accelerated-seg predict`` in one process, sent SIGTERM as its first case is written and again once it has met
the first (a second ``kill``, a wrapper passing on the one it got), run by test_inference_pipeline: the second comes
as predict waits for that case to be written. ``SECOND_SIGNAL`` (the environment's, SIGTERM by default): the second
signal's name, SIGUSR1 for a requeue's notice after the time limit's stop; ``SECOND_AT=line``: the second sent as
predict's stopped line is written (on stderr) instead."""

import itertools
import os
import signal
import sys
import threading
import time

import accelerated_seg.inference_cases as inference_cases
from accelerated_seg.cli import end_process, main

from signals_sent import sent_until_handled  # beside it

MET_WAIT_S = 60  # for the main thread to meet the first SIGTERM; a loaded CI machine can take seconds
SECOND_AFTER_S = 0.2  # after the main thread met the first: predict is waiting for the case being written by then
SECOND = signal.Signals[os.environ.get("SECOND_SIGNAL", "SIGTERM")]


def sigterm_met_noted(met: threading.Event) -> None:
    """The SIGTERM handler predict installs sets ``met`` as it runs (on the main thread), whatever it is."""
    install = signal.signal

    def installing(signum, handler):
        if signum != signal.SIGTERM or not callable(handler):
            return install(signum, handler)

        def noted(signum, frame):
            met.set()
            return handler(signum, frame)

        return install(signum, noted)

    signal.signal = installing


def terminated_twice_as_the_first_is_written() -> None:
    """``inference_cases.write_case`` (on the pipeline's writing thread) sends SIGTERM before writing the first case
    until the main thread has met it, sends ``SECOND``, and then writes the case."""
    write_case, calls, met = inference_cases.write_case, itertools.count(1), threading.Event()
    sigterm_met_noted(met)

    def terminated_twice_then_written(*args, **kwargs):
        if next(calls) == 1:
            # until the main thread has met it (signals_sent says why); Python runs the handler once for those
            # sent before it ran: still the first SIGTERM
            sent_until_handled(lambda: os.kill(os.getpid(), signal.SIGTERM), met, MET_WAIT_S)
            if os.environ.get("SECOND_AT") != "line":
                time.sleep(SECOND_AFTER_S)
                os.kill(os.getpid(), SECOND)
        return write_case(*args, **kwargs)

    inference_cases.write_case = terminated_twice_then_written


class SecondAsTheLineIsSaid:
    """stderr, sending ``SECOND`` to this process as the stopped line is written, before it is."""

    def __init__(self, stream):
        self.stream, self.sent = stream, False

    def write(self, text: str) -> int:
        if not self.sent and "stopped by" in text:
            self.sent = True
            os.kill(os.getpid(), SECOND)
        return self.stream.write(text)

    def __getattr__(self, name):
        return getattr(self.stream, name)


if __name__ == "__main__":
    terminated_twice_as_the_first_is_written()
    if os.environ.get("SECOND_AT") == "line":
        sys.stderr = SecondAsTheLineIsSaid(sys.stderr)
    end_process(main(sys.argv[1:]))
