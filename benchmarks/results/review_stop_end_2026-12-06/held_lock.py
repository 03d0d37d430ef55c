"""The main process's end while another of its threads holds the line's lock in a write that does not finish (a file
on a hung network filesystem, here a sleep of 300 s): does the process end, and can SIGTERM or SIGINT end it?
One process of a group of one (gloo, a FileStore), taken for a launch of two; the main thread raises the error.
Run: PYTHONPATH=<tree> python held_lock.py   (killed with SIGKILL after $KILL_AFTER_S, 75 s unless set)"""
import os
import signal
import subprocess
import sys
import time

CHILD = r'''
import sys, tempfile, threading, time
import torch.distributed as dist
from accelerated_seg import ranks_stop_together
from accelerated_seg.ranks_stop_together import stopping_together
ranks_stop_together.launched_processes = lambda: 2
dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0, world_size=1)
started = time.monotonic()
try:
    with stopping_together((RuntimeError,), str) as writing:
        held = threading.Event()
        def write_that_hangs():
            with writing:
                held.set()
                time.sleep(300)
        threading.Thread(target=write_that_hangs, daemon=True).start()
        held.wait()
        print("raising", flush=True)
        started = time.monotonic()
        raise RuntimeError("process 0: a bug")
finally:
    print(f"the caller goes on {time.monotonic() - started:.1f} s after its raise", flush=True)
'''

child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
start = time.monotonic()
assert child.stdout.readline() == "raising\n"
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
out = child.stdout.read()
print(f"ended with {child.returncode} after {time.monotonic() - start:.1f} s; its output:")
print(out[-1500:])
