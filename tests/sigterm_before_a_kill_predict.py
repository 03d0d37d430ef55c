"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: process 1 (process KILLED_RANK where
given) is killed outright (SIGKILL, as the OOM killer) as it comes to the last wait for every process, a job's stop
racing the kill: it first sends SIGTERM to torch's agent (its parent) and to the other process, and dies once the
other has taken it for a stop and published it in the launch's store, its own watcher held from answering that stop
(a process killed before it could answer; with ANSWERED_FIRST set, once its watcher has answered it: a process killed
after it answered, finishing its file, r84's review). The other's SIGTERM thus comes before the death, every time,
where a launch leaves it to chance (the stop before the death in 2 of 4 probe launches: benchmarks/results/
sigterm_before_a_kill_2026-12-06/). Its kill is killed_at_the_last_wait_predict.py's, the time written to KILLED_AT as
it begins the job's stop; the time of its SIGKILL itself is written to DIED_AT, and the time the other process's
watcher ends that process (``exit_now``) to ENDED_AT: the span the stop's waits take after the death, apart from the
end of torch's agent and of the launcher after it (the hundred-and-nineteenth session:
benchmarks/results/sigterm_before_a_kill_flaky_2026-12-06/)."""

import os
import signal
import sys
import threading
import time
from pathlib import Path

from killed_at_the_last_wait_predict import KILLED_RANK, killed_as_it_comes_to_the_last_wait, time_noted

kill = os.kill
#: Set once this process's watcher has answered the stop (ANSWERED_FIRST), for its kill to wait for.
answered = threading.Event()


def the_jobs_stop_first(pid: int, number: int) -> None:
    """``os.kill`` for the killed process: its own SIGKILL comes once the other process's stop is published."""
    if pid == os.getpid() and number == signal.SIGKILL:
        from accelerated_seg.launched_sigterm import processes_beside_this_one
        from accelerated_seg.ranks_stop_together import an_error_is_published

        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the agent's, which it sends on: this process is to be killed
        for other in (os.getppid(), *(processes_beside_this_one() or [])):
            kill(other, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while not an_error_is_published() and time.monotonic() < deadline:
            time.sleep(0.005)
        if os.environ.get("ANSWERED_FIRST"):
            answered.wait(30)
        time_noted(Path(os.environ["DIED_AT"]))
    kill(pid, number)


def held_from_answering() -> None:
    """This process's watcher never answers a stop it sees (``_Watcher._end``): it is killed before it could; with
    ANSWERED_FIRST, it answers, and is killed then."""
    from accelerated_seg import ranks_stop_together
    from accelerated_seg.lost_processes import answer

    def end(watcher, store, message, rank, ranks):
        if os.environ.get("ANSWERED_FIRST"):
            answer(store, rank)
            answered.set()
        threading.Event().wait()

    ranks_stop_together._Watcher._end = end


def its_end_noted() -> None:
    """The other process: the time its watcher ends it (``ranks_stop_together.exit_now``) written to ENDED_AT."""
    from accelerated_seg import ranks_stop_together

    exit_now = ranks_stop_together.exit_now

    def noted(status: int) -> None:
        time_noted(Path(os.environ["ENDED_AT"]))
        exit_now(status)

    ranks_stop_together.exit_now = noted


if __name__ == "__main__":
    if os.environ.get("RANK") == KILLED_RANK:
        os.kill = the_jobs_stop_first
        held_from_answering()
    else:
        its_end_noted()
    killed_as_it_comes_to_the_last_wait()
    from accelerated_seg.cli import end_process, main

    end_process(main(sys.argv[1:]))
