"""Where a process-directed SIGINT lands in a launched predict's process whose main thread sleeps (a Python wait), and
whether that main thread is woken to raise KeyboardInterrupt (the hundred-and-twenty-fourth session's look at the CI
failure of test_ctrl_c_by_windows_stops_every_process_with_one_line_and_status_130: both processes outlived torch's
agent's 30 s after a Ctrl-C, no line said). As sigterm_on_another_thread_2026-12-06/delivery.py did for SIGTERM.

    cd <worktree> && PYTHONPATH=<worktree> /work/main/.venv/bin/python \
        benchmarks/results/ctrl_c_by_windows_hang_2026-12-07/delivery.py > .../delivery.txt
    (PYTHONPATH=/work/main for the code before the fix: delivery_before.txt)

Each trial starts a child that enters launched_sigterm's span (as a launched predict does once its processes meet)
and sleeps 20 s in ``time.sleep`` on its main thread, as process 1 of the test sleeps in its share of a case;
beside it, threads of its own:

- ``thread-directed``: SIGINT sent by the child, from a timer's thread, to one of its own other threads
  (``signal.pthread_kill``) 0.3 s after it is ready: the C handler runs on that thread, as where the kernel hands a
  process-directed signal to another thread.
- ``main thread blocks it``: the main thread blocks SIGINT (``pthread_sigmask``), SIGINT then sent to the process
  (``os.kill``) as torch's agent sends it on: the kernel hands it to another thread (the test's
  ``taken-by-another-thread`` case, ONE_RANK_SIGINT_ELSEWHERE).
- ``watcher's polls``: a thread started every 0.2 s, as a watcher's poll does, SIGINT then sent to the process.
- ``threads made without pause``: a thread started and joined without pause, widening the window.

The parent reads from a file how long after the signal the main thread raised KeyboardInterrupt; "not woken" where it
had not 3 s after (it would at the end of its 20 s sleep: a launched process then outlives the agent's 30 s wait).
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import os, signal, sys, threading, time
from pathlib import Path
from accelerated_seg.launched_sigterm import sigterm_as_an_interrupt_unless_one_has_ended

out, kind = Path(sys.argv[1]), sys.argv[2]
stop = threading.Event()

def making(pause_s):
    while not stop.is_set():
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        time.sleep(pause_s)

with sigterm_as_an_interrupt_unless_one_has_ended():
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    if kind == "watcher's polls":
        threading.Thread(target=making, args=(0.2,), daemon=True).start()
    elif kind == "threads made without pause":
        threading.Thread(target=making, args=(0.0,), daemon=True).start()
    elif kind == "main thread blocks it":
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        (out.parent / "ready").write_text("")
        if kind == "thread-directed":  # sent from a third thread: sent from the main thread, it runs the handler there
            threading.Timer(0.3, signal.pthread_kill, (other.ident, signal.SIGINT)).start()
        time.sleep(20)
        out.write_text("slept to the end")
    except KeyboardInterrupt:
        out.write_text(f"{time.time()}")
stop.set()
os._exit(0)
"""


def trial(kind: str) -> float | None:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        # run in the temporary folder: ``-c`` puts the working folder first on sys.path
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(out), kind], cwd=folder)
        try:
            while not (Path(folder) / "ready").exists():
                time.sleep(0.01)
            time.sleep(0.3)
            sent = time.time()
            if kind != "thread-directed":  # there the child signals its own thread 0.3 s after it is ready: now
                child.send_signal(signal.SIGINT)
            deadline = time.monotonic() + 3.0
            while not out.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            text = out.read_text() if out.exists() else ""
            return float(text) - sent if text and text[0].isdigit() else None
        finally:
            child.kill()
            child.wait()


if __name__ == "__main__":
    trials = int(os.environ.get("TRIALS", "20"))
    kinds = (("thread-directed", 3), ("main thread blocks it", 3), ("watcher's polls", trials),
             ("threads made without pause", trials))
    for kind, count in kinds:
        woken = [trial(kind) for _ in range(count)]
        late = [w for w in woken if w is not None]
        print(f"{kind}: {len(late)} of {count} woken"
              + (f" (after {min(late) * 1000:.0f}-{max(late) * 1000:.0f} ms)" if late else "")
              + f", {count - len(late)} not woken within 3 s", flush=True)
