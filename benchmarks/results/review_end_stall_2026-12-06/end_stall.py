"""The main process's ``_end`` (a watcher that has seen another process's error) while the launch's store stalls:
its host stopped (SIGSTOP) for 1, 3 and 8 s, then resumed; and stopped for good. Is the line said, when, and with
what status does the process end; what threads and fds are left (counted as stall.py does)? (the review of the
hundred-and-fifteenth session's bounded ``_end`` calls)

    cd <worktree> && PYTHONPATH=<worktree> .venv/bin/python \
        benchmarks/results/review_end_stall_2026-12-06/end_stall.py > .../end_stall.txt
    (PYTHONPATH=/work/main at 1dfecd36 for the code before the review's fix: end_stall_before.txt)

The store's server runs in a child process (as tests/test_ranks_stop_together.py's group_on_a_stoppable_store), this
process a group of one on it; ``_end`` is called as the watcher calls it, for a launch of two (rank 0), its
``exit_now`` and ``say_the_error`` recorded; the constants are the module's own (ANSWER_S 1 s, CONNECT_S 1 s,
GIVE_UP_AFTER_S 30 s) but LEFT_WAIT_S (the other rank, absent here, never reads the line).
"""

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

rst.LEFT_WAIT_S = 0.5
rst._deaf_to_sigterm = lambda: None  # not this probe's process
said, ended = [], []
rst.say_the_error = said.append
rst.exit_now = ended.append

with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
serving = (f"import time, torch.distributed as dist\nstore = dist.TCPStore('127.0.0.1', {port}, is_master=True, "
           "wait_for_workers=False)\nprint('up', flush=True)\ntime.sleep(600)")
server = subprocess.Popen([sys.executable, "-c", serving], stdout=subprocess.PIPE, text=True)
assert server.stdout.readline() == "up\n"
client = dist.TCPStore("127.0.0.1", port, is_master=False, wait_for_workers=False, timeout=timedelta(seconds=60))
dist.init_process_group("gloo", store=client, rank=0, world_size=1)
print(f"accelerated_seg from {os.path.dirname(rst.__file__)}; ANSWER_S {rst.ANSWER_S}, CONNECT_S {rst.CONNECT_S}, "
      f"GIVE_UP_AFTER_S {rst.GIVE_UP_AFTER_S}", flush=True)
print(f"before: threads {threading.active_count()}, fds {len(os.listdir('/proc/self/fd'))}", flush=True)
try:
    for stall_s in (1.0, 3.0, 8.0, None):
        said.clear(), ended.clear()
        watcher = rst._Watcher(f"accelerated_seg/probe/{stall_s}/", str)
        os.kill(server.pid, signal.SIGSTOP)
        if stall_s is not None:
            resume = threading.Timer(stall_s, os.kill, (server.pid, signal.SIGCONT))
            resume.start()
        started = time.monotonic()
        try:
            watcher._end(rst._Asking(watcher.prefix), "process 1: a bug", 0, 2)
            failed = ""
        except Exception as error:  # noqa: BLE001 - what the watcher's run takes for the store failing
            failed = f", _end raised {type(error).__name__}"
        took = time.monotonic() - started
        print(f"store stopped {'for good' if stall_s is None else f'{stall_s:.0f} s'}: ended {ended} after "
              f"{took:.1f} s, lines said {said}{failed}", flush=True)
        if stall_s is None:
            os.kill(server.pid, signal.SIGCONT)
        else:
            resume.join()
        time.sleep(1.5)  # a call left waiting answers once the store resumes
        print(f"  after: threads {threading.active_count()}, fds {len(os.listdir('/proc/self/fd'))}", flush=True)
finally:
    os.kill(server.pid, signal.SIGCONT)
    server.kill()
    server.wait()
os._exit(0)
