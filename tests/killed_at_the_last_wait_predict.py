"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: process 1 (process KILLED_RANK where
given) kills itself (SIGKILL, as the OOM killer does) as it comes to the last wait for every process (with
KILLED_PAST_IT set: just past it, as it ends), writing the time to KILLED_AT first; the other process has SIGTERM
blocked until SIGTERM_LATE_S after that, so that torch's agent's SIGTERM, which follows the death, comes after gloo's
"Connection closed by peer" in its wait, every time (the race a launch leaves to chance: gloo's error first in 1 of 7
probe runs in the hundred-and-tenth session's review). With END_AFTER_THE_STORE set, the other process's watcher, once
it has seen the stop, waits for the launch's store to end (its address refusing a connection: the main process's
node's agent ended) before its end reads the store, as a busy machine can hold it (the hundred-and-twenty-first
session: benchmarks/results/flaky_lost_at_once_2026-12-07/)."""

import itertools
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path


#: The process that kills itself; the other (of two) has its SIGTERM held back.
KILLED_RANK = os.environ.get("KILLED_RANK", "1")
#: predict_distributed's waits for every process, in the order called: before the gather of the cases' failures,
#: then the last wait.
LAST_WAIT = 2


def killed_as_it_comes_to_the_last_wait() -> None:
    import accelerated_seg.inference_distributed as inference_distributed

    wait, calls = inference_distributed.wait_for_every_process, itertools.count(1)

    def wait_for_every_process(accelerator):
        last = next(calls) == LAST_WAIT and os.environ.get("RANK") == KILLED_RANK
        if last and not os.environ.get("KILLED_PAST_IT"):
            killed()
        wait(accelerator)
        if last:  # KILLED_PAST_IT: as it ends, its wait complete (its teardown)
            killed()

    def killed() -> None:
        time_noted(Path(os.environ["KILLED_AT"]))
        os.kill(os.getpid(), signal.SIGKILL)

    inference_distributed.wait_for_every_process = wait_for_every_process


def time_noted(at: Path) -> None:
    """``time.time()`` written to ``at`` whole (under another name, then renamed): the test may read it at any time."""
    at.with_suffix(".part").write_text(repr(time.time()))
    at.with_suffix(".part").rename(at)


def sigterm_late_on_the_other_process() -> None:
    """SIGTERM blocked in every thread (each inherits the mask of the one that starts it: this, before any import
    starts one: a thread started earlier, unblocked, would take the agent's SIGTERM at once), then let through
    SIGTERM_LATE_S after process 1's death by one thread unblocking it, which takes a pending one."""
    if os.environ.get("RANK") == KILLED_RANK or "SIGTERM_LATE_S" not in os.environ:  # unset: the launch's own race
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})

    def let_through() -> None:
        while not Path(os.environ["KILLED_AT"]).exists():
            time.sleep(0.01)
        time.sleep(float(os.environ["SIGTERM_LATE_S"]))
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        threading.Event().wait()

    threading.Thread(target=let_through, daemon=True).start()


def end_after_the_store_on_the_other_process() -> None:
    """The other process's ``_Watcher._end`` held until the store's address refuses a connection (20 s at most)."""
    if os.environ.get("RANK") == KILLED_RANK or not os.environ.get("END_AFTER_THE_STORE"):
        return
    import accelerated_seg.ranks_stop_together as ranks_stop_together

    end = ranks_stop_together._Watcher._end

    def after_the_store(self, *args, **kwargs):
        address, deadline = (os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])), time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(address, timeout=1).close()
            except ConnectionRefusedError:
                break
            except OSError:
                pass
            time.sleep(0.05)
        return end(self, *args, **kwargs)

    ranks_stop_together._Watcher._end = after_the_store


if __name__ == "__main__":
    sigterm_late_on_the_other_process()  # before the imports below
    killed_as_it_comes_to_the_last_wait()
    end_after_the_store_on_the_other_process()
    from accelerated_seg.cli import end_process, main

    end_process(main(sys.argv[1:]))
