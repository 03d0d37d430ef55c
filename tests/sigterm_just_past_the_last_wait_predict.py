"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: process 1 comes to the last wait for
every process 2 s late (the main process looks at its barrier every 50 ms by then), and as soon as its wait returns it
sends SIGTERM to the main process, writing the time to SIGTERM_SENT: a job's stop in the moments after the barrier,
while the main process may still sleep before its next look."""

import itertools
import os
import signal
import sys
import time
from pathlib import Path

import accelerated_seg.inference_distributed as inference_distributed
from accelerated_seg.cli import end_process, main
from accelerated_seg.launched_sigterm import processes_beside_this_one

#: predict_distributed's waits for every process, in the order called: before the gather of the cases' failures,
#: then the last wait.
LAST_WAIT = 2


def sigterm_to_the_main_process_just_past_the_last_wait() -> None:
    wait, calls = inference_distributed.wait_for_every_process, itertools.count(1)

    def wait_for_every_process(accelerator):
        last = next(calls) == LAST_WAIT and os.environ.get("RANK") == "1"
        if last:
            time.sleep(2)
        wait(accelerator)
        if last:
            main_process, = processes_beside_this_one()
            os.kill(main_process, signal.SIGTERM)
            sent = Path(os.environ["SIGTERM_SENT"])  # whole before the test reads it
            sent.with_suffix(".part").write_text(repr(time.time()))
            sent.with_suffix(".part").rename(sent)

    inference_distributed.wait_for_every_process = wait_for_every_process


if __name__ == "__main__":
    sigterm_to_the_main_process_just_past_the_last_wait()
    end_process(main(sys.argv[1:]))
