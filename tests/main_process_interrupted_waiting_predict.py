"""``accelerated-seg predict --split windows`` under a launch, run by test_inference_distributed: the main process
is interrupted (a SIGINT to it alone, as Python raises it on its main thread) while it waits for its second case to be
read, its first being written, and process 1 has gone on into that case's reduction."""

import itertools
import os
import signal
import sys
import threading
import time

import accelerated_seg.inference_cases as inference_cases
from accelerated_seg.cli import end_process, main


def interrupted_waiting_for_the_second_case() -> None:
    """``inference_cases.prepare_case`` of the second case (on the pipeline's reading thread) interrupts the main thread
    once that thread waits for it, then reads the case as it would."""
    prepare_case, calls = inference_cases.prepare_case, itertools.count(1)

    def prepare_case_interrupting(*args, **kwargs):
        if next(calls) == 2:
            time.sleep(2.0)  # the first case's network ends, and the main thread waits for this one
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        return prepare_case(*args, **kwargs)

    inference_cases.prepare_case = prepare_case_interrupting


if __name__ == "__main__":
    if os.environ.get("RANK") == "0":
        interrupted_waiting_for_the_second_case()
    end_process(main(sys.argv[1:]))
