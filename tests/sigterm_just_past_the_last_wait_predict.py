"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: process 1 comes to the last wait for
every process 2 s late (the main process looks at its barrier every 50 ms by then), and as soon as its wait returns it
sends SIGTERM to the main process, writing the time to SIGTERM_SENT: a job's stop in the moments after the barrier,
while the main process may still sleep before its next look. With MAIN_BARRIER_LAG_S set, the main process's
barrier there is taken for complete only that long after it is (``lagging``): as under load, where its side of the
barrier completes after process 1's (the hundred-and-sixteenth session: CI beside four agents' probes)."""

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


class Lagging:
    """A barrier's ``Work`` taken for complete ``lag_s`` after it is, as the process group's thread that completes it
    would run so late under load."""

    def __init__(self, work, lag_s: float):
        self.work, self.lag_s, self.completed_at = work, lag_s, None

    def is_completed(self) -> bool:
        if self.completed_at is None and self.work.is_completed():
            self.completed_at = time.monotonic()
        return self.completed_at is not None and time.monotonic() >= self.completed_at + self.lag_s

    def get_future(self):
        return self.work.get_future()

    def wait(self):
        return self.work.wait()


def lagging(lag_s: float):
    """torch's barrier, its asynchronous ``Work`` lagging by ``lag_s``."""
    import torch.distributed as dist

    barrier = dist.barrier

    def lagging_barrier(*args, **kwargs):
        work = barrier(*args, **kwargs)
        return Lagging(work, lag_s) if kwargs.get("async_op") else work

    return lagging_barrier


def sigterm_to_the_main_process_just_past_the_last_wait() -> None:
    wait, calls = inference_distributed.wait_for_every_process, itertools.count(1)

    def wait_for_every_process(accelerator):
        import torch.distributed as dist

        call = next(calls)
        last = call == LAST_WAIT and os.environ.get("RANK") == "1"
        if call == LAST_WAIT and os.environ.get("RANK") == "0" and "MAIN_BARRIER_LAG_S" in os.environ:
            dist.barrier = lagging(float(os.environ["MAIN_BARRIER_LAG_S"]))
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
