"""tests/killed_at_the_last_wait_predict.py with the time of each step of a stop appended to $EVENTS (one line each:
time.time(), the process's RANK, what happened), for where_the_time_goes.py: gloo's error reaching peer_death and
leaving it, the error published, the watcher's end beginning, each of its waits and how it ended, the line said, the
exit."""
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, sys.argv.pop(1))  # the checkout's tests/, for the worker


def event(what: str) -> None:
    with open(os.environ["EVENTS"], "a") as events:
        events.write(f"{time.time():.3f} {os.environ.get('RANK')} {what}\n")


def timed(module, name: str, label: str, result=False):
    original = getattr(module, name)

    def call(*args, **kwargs):
        event(f"{label} begins")
        returned = original(*args, **kwargs)
        event(f"{label} returns" + (f" {returned}" if result else ""))
        return returned

    setattr(module, name, call)


if __name__ == "__main__":
    import killed_at_the_last_wait_predict as worker

    worker.sigterm_late_on_the_other_process()
    worker.killed_as_it_comes_to_the_last_wait()
    import accelerated_seg.peer_death as peer_death
    import accelerated_seg.predict_stop as predict_stop  # noqa: F401 - imports peer_death's function when called
    import accelerated_seg.ranks_stop_together as ranks_stop_together

    timed(peer_death, "ended_at_once_where_a_process_beside_died", "peer_death's look")
    timed(ranks_stop_together, "_publish", "publishing")
    timed(ranks_stop_together._Watcher, "_end", "the watcher's end")
    timed(ranks_stop_together, "_wait_for", "a wait of the end", result=True)
    timed(ranks_stop_together, "say_the_error", "saying the line")
    if hasattr(ranks_stop_together, "keep_where_this_process_runs"):  # since the hundred-and-fourteenth session
        timed(ranks_stop_together, "keep_where_this_process_runs", "keeping where it runs")
    exit_now = ranks_stop_together.exit_now
    ranks_stop_together.exit_now = lambda status: (event(f"exit {status}"), exit_now(status))
    from accelerated_seg.cli import end_process, main

    end_process(main(sys.argv[1:]))
