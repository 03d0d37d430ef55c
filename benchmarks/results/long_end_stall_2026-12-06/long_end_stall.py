"""The main process's end (its watcher has seen another process's error) while the launch's store stalls 20, 26, 29
and 35 s (its host stopped, SIGSTOP, as the watcher's ``_end`` begins): how many lines are said, by which thread,
when, and with what status the process ends? (the hundred-and-sixteenth session; the shorter stalls of the review
before it are in benchmarks/results/review_end_stall_2026-12-06)

    cd <worktree> && PYTHONPATH=<worktree> /work/main/.venv/bin/python \
        benchmarks/results/long_end_stall_2026-12-06/long_end_stall.py > .../long_end_stall_<when>.txt

Each case is a process of its own, a process group of one whose store's server runs in a child process (as
tests/test_ranks_stop_together.py's group_on_a_stoppable_store), taken for the main process of a launch of two
(``launched_processes`` and ``get_world_size`` say 2: the other process, absent, never reads the line, so the end
waits LEFT_WAIT_S, 3 s, after it, as where the other is killed). Every constant is the module's own. Inside
``stopping_together`` another process's error is published, then the main thread:
  waits: meets a collective that the other's end broke ("Connection closed by peer") once its watcher has seen the
         error, so it waits for its watcher (``wait_for_the_end``), then raises, and says what it raised, as a command
         says its error ("error: ...");
  held:  stays in a collective that does not break (the other process stalled with the store): only the watcher can
         end the process.
A line is one that starts "error: " on stderr; each is printed with the second it came after the stall began.
"""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta

STALLS_S = (20.0, 26.0, 29.0, 35.0)


def one_case(mode: str, stall_s: float) -> None:
    import torch.distributed as dist

    from accelerated_seg import ranks_stop_together as rst
    from accelerated_seg.launcher_report import say_the_error

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    serving = (f"import time, torch.distributed as dist\nstore = dist.TCPStore('127.0.0.1', {port}, is_master=True, "
               "wait_for_workers=False)\nprint('up', flush=True)\ntime.sleep(600)")
    server = subprocess.Popen([sys.executable, "-c", serving], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              stdin=subprocess.DEVNULL, text=True)  # not this case's pipes: the parent reads them to EOF
    assert server.stdout.readline() == "up\n"
    client = dist.TCPStore("127.0.0.1", port, is_master=False, wait_for_workers=False,
                           timeout=timedelta(seconds=1800))  # a launch's: the process group's 30 min
    dist.init_process_group("gloo", store=client, rank=0, world_size=1)
    dist.get_world_size = lambda *args, **kwargs: 2
    rst.launched_processes = lambda: 2
    started = []

    def stamped(say):
        def saying(line):
            say(f"{line} [{time.monotonic() - started[0]:.1f} s after the stall began]")
        return saying

    rst.say_the_error = stamped(rst.say_the_error)
    end = rst._Watcher._end

    def stalled_end(watcher, *args):
        started.append(time.monotonic())
        os.kill(server.pid, signal.SIGSTOP)
        while open(f"/proc/{server.pid}/stat").read().rsplit(")", 1)[1].split()[0] != "T":  # stopped: none answered
            time.sleep(0.001)
        resume = threading.Timer(stall_s, os.kill, (server.pid, signal.SIGCONT))
        resume.daemon = True
        resume.start()
        return end(watcher, *args)

    rst._Watcher._end = stalled_end
    try:
        with rst.stopping_together((MemoryError,), lambda message: message):
            watcher = rst._INSIDE[-1]
            rst._store(watcher.prefix).set(rst.MESSAGE, "process 1: out of memory")  # as process 1 publishes it
            if mode == "held":
                threading.Event().wait()
            watcher.seen.wait()
            raise RuntimeError("Connection closed by peer")  # gloo's, the other process ended
    except RuntimeError as error:
        stamped(say_the_error)(str(error))
        sys.stderr.flush()
        os._exit(1)  # the server is left for the parent to end


def main() -> None:
    import accelerated_seg

    print(f"accelerated_seg from {os.path.dirname(accelerated_seg.__file__)}", flush=True)
    cases = [(mode, stall_s) for mode in ("waits", "held") for stall_s in STALLS_S]
    running = []
    for mode, stall_s in cases:  # all at once: each sleeps through its stall
        started = time.monotonic()
        running.append((mode, stall_s, started, subprocess.Popen(
            [sys.executable, __file__, mode, str(stall_s)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True)))
    for mode, stall_s, started, case in running:
        try:
            case.wait(timeout=120)
            took = f"{time.monotonic() - started:.1f} s"
        except subprocess.TimeoutExpired:
            took = "still running after 120 s: killed"
        with contextlib.suppress(ProcessLookupError):
            os.killpg(case.pid, signal.SIGKILL)  # it, where it still runs, and its store's server, stopped or not
        out, err = case.communicate()
        lines = [line for line in err.splitlines() if line.startswith("error: ")]
        print(f"{mode}, store stalled {stall_s:.0f} s: status {case.returncode}, {len(lines)} line(s), "
              f"{took} from its start", flush=True)
        for line in lines:
            print(f"    {line}", flush=True)
        if case.returncode not in (0, 1) or "Traceback" in err:
            print("    stderr: " + err[-1500:].replace("\n", "\n    "), flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 3:
        one_case(sys.argv[1], float(sys.argv[2]))
    else:
        main()
