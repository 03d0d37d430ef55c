"""The main process's watcher ending the process for an error published from a pipeline's stage, while another of
its threads holds the line's lock in a write that never finishes (a print into a pipe no one reads: a hung network
filesystem is the same) and its main thread waits in a collective the other process never enters (stuck too): does
the process end, and what ends it? SIGTERM, SIGINT and SIGTERM are sent at 35, 40 and 45 s, SIGKILL at $KILL_AFTER_S
(75 s unless set).

Two processes of a gloo group over TCP on this machine, each with LOCAL_RANK and WORLD_SIZE=2 as a launch gives them
(no torch elastic agent: outside it, as under srun or mpirun, nothing else ends them). Process 1 joins the group and
sleeps. Process 0 enters ``stopping_together``; a writer thread takes its lock and writes into a pipe whose reader
never reads; a stage thread publishes ``process 0, case case_1: ValueError: a bug`` (``stop_every_rank``); the main
thread enters an all_reduce.

Run (from /tmp, not a worktree: the children put their cwd first on sys.path, the package there with it):
     cd /tmp && PYTHONPATH=<package tree> .venv/bin/python \
         <worktree>/benchmarks/results/stop_end_bounds_2026-12-06/held_write_watcher.py
"""
import os
import signal
import socket
import subprocess
import sys
import time

SUBJECT = r'''
import os, sys, threading, time
import torch, torch.distributed as dist
from accelerated_seg.ranks_stop_together import stop_every_rank, stopping_together

dist.init_process_group("gloo", rank=int(os.environ["RANK"]), world_size=2)
if dist.get_rank() == 1:
    time.sleep(600)  # a process stuck: never in the collective, never ended
read_end, write_end = os.pipe()  # the read end stays open and is never read: a write past 64 KiB blocks for ever
with stopping_together((MemoryError,), lambda message: f"{message} (case_0 written whole in out; what the caller adds)") as writing:
    held = threading.Event()

    def write_that_hangs():
        with writing:
            held.set()
            os.write(write_end, b"x" * (1 << 20))

    threading.Thread(target=write_that_hangs, daemon=True).start()
    held.wait()
    stage = threading.Thread(target=stop_every_rank, args=(ValueError("process 0, case case_1: ValueError: a bug"),),
                             daemon=True)
    stage.start()
    print("published", flush=True)
    dist.all_reduce(torch.zeros(1))  # process 1 never comes
'''

with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": "2", "OMP_NUM_THREADS": "1"}
other = subprocess.Popen([sys.executable, "-c", SUBJECT], env={**env, "RANK": "1", "LOCAL_RANK": "1"},
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
child = subprocess.Popen([sys.executable, "-c", SUBJECT], env={**env, "RANK": "0", "LOCAL_RANK": "0"},
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
try:
    assert child.stdout.readline() == "published\n"
    start = time.monotonic()
    for at, sig in ((35, signal.SIGTERM), (40, signal.SIGINT), (45, signal.SIGTERM)):
        while time.monotonic() - start < at and child.poll() is None:
            time.sleep(0.1)
        if child.poll() is None:
            print(f"{time.monotonic() - start:.1f} s: still running, sent {sig.name}", flush=True)
            os.kill(child.pid, sig)
    while time.monotonic() - start < float(os.environ.get("KILL_AFTER_S", 75)) and child.poll() is None:
        time.sleep(0.1)
    if child.poll() is None:
        print(f"{time.monotonic() - start:.1f} s: still running after SIGTERM, SIGINT, SIGTERM: SIGKILL", flush=True)
        child.kill()
    child.wait()
    print(f"process 0 ended with {child.returncode} {time.monotonic() - start:.1f} s after the publish; its output:")
    print(child.stdout.read()[-1500:])
finally:
    other.kill()
    other.wait()
