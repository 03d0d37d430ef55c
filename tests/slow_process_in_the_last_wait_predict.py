"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: process 1 reaches the last wait for
every process LAST_WAIT_SLOW_S seconds late, as a process held up would; the main process, in that wait (its Ctrl-C
held already), writes its pid to LAST_WAIT_ENTERED for the test to interrupt it there."""

import itertools
import os
import sys
import time
from pathlib import Path

import accelerated_seg.inference_distributed as inference_distributed
from accelerated_seg.cli import end_process, main

#: predict_distributed's waits for every process, in the order called: before the gather of the cases' failures,
#: then the last wait.
LAST_WAIT = 2


def slow_in_the_last_wait_on_process_1() -> None:
    wait, calls = inference_distributed.wait_for_every_process, itertools.count(1)

    def wait_for_every_process(accelerator):
        if next(calls) == LAST_WAIT:
            entering_the_last_wait()
        wait(accelerator)

    inference_distributed.wait_for_every_process = wait_for_every_process


def entering_the_last_wait() -> None:
    if os.environ.get("RANK") == "1":
        time.sleep(float(os.environ["LAST_WAIT_SLOW_S"]))
        return
    entered = Path(os.environ["LAST_WAIT_ENTERED"])  # whole before the test reads it
    entered.with_suffix(".part").write_text(str(os.getpid()))
    entered.with_suffix(".part").rename(entered)


if __name__ == "__main__":
    slow_in_the_last_wait_on_process_1()
    end_process(main(sys.argv[1:]))
