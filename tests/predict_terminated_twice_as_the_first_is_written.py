"""``accelerated-seg predict`` in one process, sent SIGTERM as its first case is written and again once it has met
the first (a second ``kill``, a wrapper passing on the one it got), run by test_inference_pipeline: the second comes
as predict waits for that case to be written."""

import itertools
import os
import signal
import sys
import threading
import time

import accelerated_seg.inference as inference
from accelerated_seg.cli import end_process, main

MET_WAIT_S = 60  # for the main thread to meet the first SIGTERM; a loaded CI machine can take seconds
SENT_AGAIN_AFTER_S = 0.2  # the first SIGTERM not met this long after it was sent is sent again (sent_until_met)
SECOND_AFTER_S = 0.2  # after the main thread met the first: predict is waiting for the case being written by then


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


def sent_until_met(met: threading.Event) -> None:
    """SIGTERM to this process until the main thread has met it. One that lands as the main thread goes to wait for
    this case is met only when the wait ends (test_inference_pipeline's interrupting_the_main_thread says why), and
    this thread waits for it first; sent again, it ends the wait. Python runs the handler once for those sent before
    it ran: still the first SIGTERM."""
    deadline = time.monotonic() + MET_WAIT_S
    while True:
        os.kill(os.getpid(), signal.SIGTERM)
        if met.wait(SENT_AGAIN_AFTER_S):
            return
        if time.monotonic() > deadline:
            raise AssertionError("the main thread never met the first SIGTERM")


def terminated_twice_as_the_first_is_written() -> None:
    """``inference.write_case`` (on the pipeline's writing thread) sends SIGTERM before writing the first case until
    the main thread has met it, sends it again, and then writes the case."""
    write_case, calls, met = inference.write_case, itertools.count(1), threading.Event()
    sigterm_met_noted(met)

    def terminated_twice_then_written(*args, **kwargs):
        if next(calls) == 1:
            sent_until_met(met)
            time.sleep(SECOND_AFTER_S)
            os.kill(os.getpid(), signal.SIGTERM)
        return write_case(*args, **kwargs)

    inference.write_case = terminated_twice_then_written


if __name__ == "__main__":
    terminated_twice_as_the_first_is_written()
    end_process(main(sys.argv[1:]))
