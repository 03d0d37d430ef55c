"""Command: cd /tmp/wt_r124 && PYTHONPATH=$PWD/tests /work/main/.venv/bin/python \
    benchmarks/results/review_ci_sigterm_kill_hang_2026-12-07/mask_probe.py > .../mask_probe.txt
(r124.) Which threads of a process with where_it_stood.noted_if_held's thread block which signals: its own thread
and faulthandler's watchdog (armed from it, and, for comparison, armed from the main thread, whose mask blocks
nothing), each thread's SigBlk from /proc; then 20 process-directed SIGTERMs to the process whose main thread sleeps:
each handled (Python runs handlers in the main thread whichever thread the kernel hands it to: the masks above are
what says no signal is handed to the new threads)."""

import faulthandler
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from where_it_stood import AFTER_S, noted_if_held


def masks(title):
    print(title)
    for task in sorted(os.listdir("/proc/self/task"), key=int):
        name = Path(f"/proc/self/task/{task}/comm").read_text().strip()
        blk = [line.split()[1] for line in Path(f"/proc/self/task/{task}/status").read_text().splitlines()
               if line.startswith("SigBlk")][0]
        print(f"  thread {task} {name}: SigBlk {blk}")


with tempfile.TemporaryDirectory() as folder:
    begun = Path(folder) / "killed"
    forget = noted_if_held(begun, Path(folder), "0")
    threading.Thread(target=time.sleep, args=(3,), name="later-thread").start()
    time.sleep(0.1)
    masks("before the stop began (the where-it-stood thread, a thread started after it):")
    begun.write_text(str(time.time()))
    time.sleep(1.0)
    masks(f"after it began (faulthandler's watchdog armed from that thread, due in {AFTER_S} s):")
    forget()
    time.sleep(0.3)
    masks("after forget (the dump cancelled):")
    print("files left:", sorted(p.name for p in Path(folder).iterdir() if p.name != "killed"))
faulthandler.dump_traceback_later(60, file=sys.stderr)
time.sleep(0.2)
masks("faulthandler's watchdog armed from the main thread (nothing blocked there):")
faulthandler.cancel_dump_traceback_later()

taken = []
signal.signal(signal.SIGTERM, lambda number, frame: taken.append(threading.current_thread().name))
forget = noted_if_held(Path("/nonexistent/never"), Path("/tmp"), "x")
for _ in range(20):
    threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGTERM)).start()  # from another thread: process-directed
    time.sleep(0.3)
print(f"20 SIGTERMs: handled {len(taken)} times, in {set(taken)}")
