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
benchmarks/results/sigterm_before_a_kill_flaky_2026-12-06/). With STOOD_IN set, each process still alive
``where_it_stood.AFTER_S`` (12 s) after KILLED_AT writes into that folder every thread's stack, its signal state and
what it knows of the stop (``what_it_knows_of_the_stop``), for the test's failure message: a CI run's launch held to
the agent's SIGKILL said nothing of where (the hundred-and-twenty-sixth session's helper h142); with STOOD_BY (a
``time.time()``) too, at that time where KILLED_AT is not yet written (a launch held before the stop began: its review
r124)."""

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from killed_at_the_last_wait_predict import KILLED_RANK, killed_as_it_comes_to_the_last_wait, time_noted

kill = os.kill
#: Set once this process's watcher has answered the stop (ANSWERED_FIRST), for its kill to wait for.
answered = threading.Event()
#: When the killed process's wait saw the stop published (``time.time()``'s), for ``what_it_knows_of_the_stop``.
published_seen: list[float] = []
#: Called as this process ends as the test wants it to: ``where_it_stood.noted_if_held``'s ``forget``, where STOOD_IN
#: is set.
forgets: list[Callable[[], None]] = []


def the_jobs_stop_first(pid: int, number: int) -> None:
    """``os.kill`` for the killed process: its own SIGKILL comes once the other process's stop is published."""
    if pid == os.getpid() and number == signal.SIGKILL:
        from accelerated_seg.launched_sigterm import processes_beside_this_one
        from accelerated_seg.ranks_stop_together import an_error_is_published

        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the agent's, which it sends on: this process is to be killed
        for other in (os.getppid(), *(processes_beside_this_one() or [])):
            kill(other, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if an_error_is_published():
                published_seen.append(time.time())
                break
            time.sleep(0.005)
        if os.environ.get("ANSWERED_FIRST"):
            answered.wait(30)
        time_noted(Path(os.environ["DIED_AT"]))
        for forget in forgets:
            forget()
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
        for forget in forgets:
            forget()
        exit_now(status)

    ranks_stop_together.exit_now = noted


def what_it_knows_of_the_stop() -> list[str]:
    """For ``where_it_stood``: this process's stop handlers, whether it is in the span where SIGTERM is a stop
    (``launched_sigterm``) and its last wait's barrier, each watcher's state and what it read of the stop, what the
    launch's store holds of it, and on the killed process whether it saw the stop published and its watcher answer."""
    from accelerated_seg import last_wait, launched_sigterm
    from accelerated_seg import ranks_stop_together as together
    from where_it_stood import process_state

    handlers = ", ".join(f"{signum.name} {signal.getsignal(signum)!r}"
                         for signum in (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT))
    barrier = last_wait._last_barrier[:1]
    lines = [f"handlers: {handlers}",
             f"in launched_sigterm's span: {bool(launched_sigterm._SPAN)}; last wait's barrier: "
             f"{'not begun' if not barrier else 'not started' if barrier[0] is None else barrier[0].is_completed()}"]
    keys = [together.FIRST, together.INTERRUPTED, together.STOPPED_BY, together.PUBLISHED_BY, together.MESSAGE,
            "answered/0", "answered/1", f"{together.HELD}/1", together.SAID, f"{together.LEFT}/1"]
    for watcher in list(together._INSIDE):
        lines.append(f"watcher {watcher.prefix}: alive {watcher.is_alive()}, seen {watcher.seen.is_set()}, gave up "
                     f"{watcher.gave_up.is_set()}, done {watcher.done.is_set()}, the stop it read {watcher.stop}")
        try:
            store = together._store(watcher.prefix)
            held = together._within(lambda: [key for key in keys if store.check([key])], 2.0)
            lines.append(f"    the store holds: {', '.join(held) or 'none of ' + ', '.join(keys)}")
        except Exception as error:  # noqa: BLE001 - the store's (unanswered within 2 s, its host gone): said
            lines.append(f"    the store did not answer: {error!r}")
    lines.append(f"an error published: {together.an_error_is_published()}")
    lines += ["torch's agent (this process's parent, the launch's store's host):", *process_state(os.getppid())]
    if os.environ.get("RANK") == KILLED_RANK:
        lines.append(f"the killed process saw it published at {published_seen or 'no time'}; its watcher answered: "
                     f"{answered.is_set()}")
    return lines


if __name__ == "__main__":
    if os.environ.get("STOOD_IN"):  # first: its thread blocks every signal, as no thread started after it does
        from where_it_stood import noted_if_held

        forgets.append(noted_if_held(Path(os.environ["KILLED_AT"]), Path(os.environ["STOOD_IN"]), os.environ["RANK"],
                                     what_it_knows_of_the_stop, float(os.environ.get("STOOD_BY", "inf"))))
    if os.environ.get("RANK") == KILLED_RANK:
        os.kill = the_jobs_stop_first
        held_from_answering()
    else:
        its_end_noted()
    killed_as_it_comes_to_the_last_wait()
    from accelerated_seg.cli import end_process, main

    end_process(main(sys.argv[1:]))
