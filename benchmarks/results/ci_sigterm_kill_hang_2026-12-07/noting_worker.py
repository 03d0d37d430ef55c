"""(Copied from ../sigterm_before_a_kill_flaky_2026-12-06/, with h140's additions: each SIGTERM/SIGUSR1 handler's run on
the main thread, deaf_once_stopped, end_process, run_lock.let_go_before_exiting noted; faulthandler's traceback of
every thread written to PROBE_LOG.<rank>.stacks on SIGUSR2, which probe_hang.py's watchdog sends to a launch's
processes still alive 12 s after KILLED_AT.)

The launched test's worker (tests/sigterm_before_a_kill_predict.py) run as it is, with each step of the stop noted
to PROBE_LOG (one JSON line per step: the process's RANK, the step, time.time()), for probe_flaky.py. Patched in this
process alone, around the package's functions, none of their behaviour changed:

  the killed process: each SIGTERM it sends (the job's stop), the SIGKILL of itself (its death), its answer;
  the other: its publish of the stop, its watcher's end beginning, the first look of that end that sees the other
  process ended (``EndedInTheStop.look``), its exit (``exit_now``), and its answer.
"""

import json
import os
import runpy
import signal
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[3] / "tests"
sys.path.insert(0, str(TESTS))


def note(step: str) -> None:
    line = json.dumps({"rank": os.environ.get("RANK"), "step": step, "at": time.time()}) + "\n"
    fd = os.open(os.environ["PROBE_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, line.encode())  # one write of a short line on O_APPEND: whole beside the other process's
    finally:
        os.close(fd)


def noted(step: str, function, after: bool = False):
    def call(*args, **kwargs):
        if not after:
            note(step)
        result = function(*args, **kwargs)
        if after:
            note(f"{step} -> {result!r}")
        return result
    return call


def noting() -> None:
    from accelerated_seg import lost_processes, ranks_stop_together

    kill = os.kill

    def noted_kill(pid: int, number: int) -> None:
        if number == signal.SIGKILL and pid == os.getpid():
            note("dies (SIGKILL of itself)")
        elif number == signal.SIGTERM:
            note(f"sends SIGTERM to {'its parent' if pid == os.getppid() else pid}")
        kill(pid, number)

    os.kill = noted_kill  # before the worker's module keeps os.kill as its own kill
    lost_processes.answer = noted("answers the stop", lost_processes.answer)  # the killed one's, imported late
    ranks_stop_together.answer = noted("answers the stop", ranks_stop_together.answer)
    ranks_stop_together._publish = noted("publishes", ranks_stop_together._publish)
    ranks_stop_together._Watcher._end = noted("watcher's end begins", ranks_stop_together._Watcher._end)
    ranks_stop_together.exit_now = noted("exits", ranks_stop_together.exit_now)
    look = lost_processes.EndedInTheStop.look

    def first_seeing_look(self) -> int:
        before = len(self.ranks)
        seen = look(self)
        if seen and not before:
            note(f"sees {self.ranks} ended")
        return seen

    lost_processes.EndedInTheStop.look = first_seeing_look

    import faulthandler

    faulthandler.register(signal.SIGUSR2, file=open(f"{os.environ['PROBE_LOG']}.{os.environ.get('RANK')}.stacks", "w"),
                          all_threads=True)
    from accelerated_seg import cli, run_lock, sigterm

    raised_once = sigterm.raised_once

    def noting_raised_once(*args, **kwargs):
        handler = raised_once(*args, **kwargs)

        def noting_handler(signum, frame):
            note(f"handler runs for {signum} at {frame.f_code.co_name if frame else None}")
            return handler(signum, frame)

        noting_handler.raises_a_stop = True
        return noting_handler

    sigterm.raised_once = noting_raised_once
    cli.deaf_once_stopped = noted("deaf_once_stopped", cli.deaf_once_stopped)
    cli.end_process = noted("end_process", cli.end_process)
    run_lock.let_go_before_exiting = noted("let_go_before_exiting", run_lock.let_go_before_exiting)


if __name__ == "__main__":
    noting()
    sys.argv[0] = str(TESTS / "sigterm_before_a_kill_predict.py")
    runpy.run_path(sys.argv[0], run_name="__main__")
