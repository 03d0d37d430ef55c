"""A launch's store that is slow, not broken: its server process stopped (SIGSTOP) and resumed, its host still accepting
connections (the kernel's). What a watcher and a rank's asks do through it (review of the hundred-and-fourteenth
session's ANSWER_S: a poll or ask unanswered for 1 s taken for a blip).

    PYTHONPATH=<worktree> .venv/bin/python benchmarks/results/store_stall_2026-12-06/stall.py

1. Stalls of 1.5 s every 2 s, 30 of them: a watcher polling, a rank asking (``_asked``, an ``add`` of 1) every 0.5 s:
   the reconnects, the threads and fds of this process and the server's, what the asks counted in the store.
2. One stall of 35 s (past GIVE_UP_AFTER_S), then another rank publishes its error: does this rank's watcher end it?
3. This rank publishes its error as a stall of 3 s begins: does ``_publish`` return (its caller then raising the error,
   said by the caller) and does its watcher end the process too (the line said twice)?
"""

import atexit
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta

import torch.distributed as dist

from accelerated_seg import ranks_stop_together as rst

PREFIX = "accelerated_seg/probe/"


def server_process() -> tuple[subprocess.Popen, int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = (f"import time, torch.distributed as dist\ns = dist.TCPStore('127.0.0.1', {port}, is_master=True, "
            "wait_for_workers=False)\nprint('up', flush=True)\ntime.sleep(3600)")
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              stdin=subprocess.DEVNULL, text=True)
    atexit.register(server.kill)
    server.stdout.readline()
    return server, port


def client(port: int):
    return dist.TCPStore("127.0.0.1", port, is_master=False, wait_for_workers=False, timeout=timedelta(seconds=1800))


def fds(pid="self") -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def stalls(server, cycles=30, stop_s=1.5, period_s=2.0) -> None:
    reconnects, real = [], rst._reconnect
    rst._reconnect = lambda: reconnects.append(real()) or reconnects[-1]
    watcher = rst._Watcher(PREFIX, str)
    watcher.start()
    time.sleep(1.0)
    print(f"stalls of {stop_s} s every {period_s} s, {cycles}: before, threads {threading.active_count()} fds {fds()}"
          f" server fds {fds(server.pid)}", flush=True)
    started = time.monotonic()

    def pausing() -> None:
        for cycle in range(cycles):
            os.kill(server.pid, signal.SIGSTOP)
            time.sleep(max(0.0, started + cycle * period_s + stop_s - time.monotonic()))
            os.kill(server.pid, signal.SIGCONT)
            time.sleep(max(0.0, started + (cycle + 1) * period_s - time.monotonic()))

    pauser = threading.Thread(target=pausing, daemon=True)
    pauser.start()
    asks, raised, longest, threads = 0, 0, 0.0, 0
    while pauser.is_alive():
        asked = time.monotonic()
        try:
            rst._asked(PREFIX, lambda store: store.add("count", 1))
        except dist.DistError:
            raised += 1
        asks, longest = asks + 1, max(longest, time.monotonic() - asked)
        threads = max(threads, threading.active_count())
        time.sleep(0.5)
    time.sleep(3.0)
    counted = int(rst._store(PREFIX).add("count", 0))
    print(f"  reconnects {len(reconnects)} (answers {sorted(set(map(str, reconnects)))}); asks {asks}, raised {raised},"
          f" counted in the store {counted}; longest ask {longest:.2f} s", flush=True)
    print(f"  after: threads {threading.active_count()} (most {threads}) fds {fds()} server fds {fds(server.pid)};"
          f" watcher gave up {watcher.gave_up.is_set()}", flush=True)
    watcher.done.set()
    watcher.join(5)
    rst._reconnect = real


def long_stall(server, port, stall_s=35.0) -> None:
    ended = []
    rst.exit_now = lambda status: (ended.append((status, time.monotonic())), threading.Event().wait())
    rst._deaf_to_sigterm, rst.leave_for_the_launcher = (lambda: None), (lambda *args, **kwargs: None)
    rst.LEFT_WAIT_S = 0.1
    watcher = rst._Watcher(PREFIX + "long/", str)
    watcher.start()
    time.sleep(0.5)
    os.kill(server.pid, signal.SIGSTOP)
    time.sleep(stall_s)
    os.kill(server.pid, signal.SIGCONT)
    resumed = time.monotonic()
    group = dist.PrefixStore(f"{dist.group.WORLD.group_name}/", client(port))
    dist.PrefixStore(PREFIX + "long/", group).set(rst.MESSAGE, "process 1: out of memory")  # another rank's error
    time.sleep(5.0)
    print(f"one stall of {stall_s} s, then another rank's error: watcher gave up {watcher.gave_up.is_set()}, "
          f"ended this process {[(status, f'{at - resumed:.1f} s after') for status, at in ended] or 'never'}",
          flush=True)


def publish_in_a_stall(server, stall_s=3.0) -> None:
    said, ended = [], []
    rst.exit_now = lambda status: (ended.append((status, time.monotonic())), threading.Event().wait())
    rst.say_the_error = lambda line: said.append((line, time.monotonic()))
    watcher = rst._Watcher(PREFIX + "publish/", str)
    watcher.start()
    time.sleep(0.5)
    os.kill(server.pid, signal.SIGSTOP)
    threading.Timer(stall_s, os.kill, (server.pid, signal.SIGCONT)).start()
    started = time.monotonic()
    rst._publish(watcher, RuntimeError("process 0: a bug"))  # returns where it cannot publish: the caller raises
    returned = time.monotonic() - started
    time.sleep(stall_s + 5.0)
    print(f"this rank publishing as a stall of {stall_s} s begins: _publish returned after {returned:.1f} s (its caller "
          f"raising the error), the watcher said {[(line, f'{at - started:.1f} s') for line, at in said]}, ended "
          f"{[(status, f'{at - started:.1f} s') for status, at in ended]}", flush=True)


def main() -> None:
    print(f"accelerated_seg from {os.path.dirname(rst.__file__)}; ANSWER_S {getattr(rst, 'ANSWER_S', None)}",
          flush=True)
    server, port = server_process()
    dist.init_process_group("gloo", store=client(port), rank=0, world_size=1)
    stalls(server)
    long_stall(server, port)
    publish_in_a_stall(server)
    sys.stdout.flush()
    server.kill()
    os._exit(0)


if __name__ == "__main__":
    main()
