"""(The hundred-and-twentieth session's review: sigterm_on_another_thread_2026-12-06/delivery.py with the signal
chosen by SIGNAL, SIGTERM or SIGUSR1, to measure the waking of the main thread for SIGUSR1.)

Where a process-directed SIGTERM lands in a launched predict's process whose main thread sleeps (a Python wait),
and whether that main thread is woken to raise ``Terminated`` (the hundred-and-fifteenth session's look at the CI
failure of test_sigterm_to_a_launched_predict_stops_every_process_with_one_line_and_status_143).

    cd <worktree> && PYTHONPATH=<worktree> .venv/bin/python \
        benchmarks/results/sigterm_on_another_thread_2026-12-06/delivery.py > .../delivery.txt
    (PYTHONPATH=/work/main for the code before the fix: delivery_before.txt)

Each trial starts a child that enters launched_sigterm's span (as predict does) and sleeps 20 s in ``time.sleep`` on
its main thread, as process 1 of the test sleeps in its share of a case; beside it, threads of its own:

- ``thread-directed``: SIGTERM sent by the child, from a timer's thread, to one of its own other threads
  (``signal.pthread_kill``) 0.3 s after it is ready: the C handler runs on that thread, as where the kernel hands a
  process-directed signal to another thread.
- ``watcher's polls``: a thread started every 0.2 s, as a watcher's poll does since the hundred-and-fourteenth
  session (``_within``), SIGTERM then sent to the process (``os.kill``) as torch's agent sends it.
- ``threads made without pause``: a thread started and joined without pause, widening the window.

The parent reads from a file how long after the signal the main thread raised ``Terminated``; "not woken" where it
had not 3 s after (it would at the end of its 20 s sleep: a launched process then outlives the agent's 30 s wait).
"""

import os
import signal
import subprocess
import sys
import tempfile

SIGNUM = getattr(signal, os.environ.get('SIGNAL', 'SIGTERM'))
import time
from pathlib import Path

CHILD = r"""
import os, signal, sys, threading, time
from pathlib import Path
from accelerated_seg.launched_sigterm import sigterm_as_an_interrupt_unless_one_has_ended
from accelerated_seg.sigterm import INTERRUPTS
SIGNUM = getattr(signal, os.environ['SIGNAL'])
Terminated = INTERRUPTS[SIGNUM]

out, kind = Path(sys.argv[1]), sys.argv[2]
stop = threading.Event()

def making(pause_s):
    while not stop.is_set():
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        time.sleep(pause_s)

with sigterm_as_an_interrupt_unless_one_has_ended():
    if kind == "watcher's polls":
        threading.Thread(target=making, args=(0.2,), daemon=True).start()
    elif kind == "threads made without pause":
        threading.Thread(target=making, args=(0.0,), daemon=True).start()
    else:
        other = threading.Thread(target=stop.wait, daemon=True)
        other.start()
    try:
        (out.parent / "ready").write_text("")
        if kind == "thread-directed":  # sent from a third thread: sent from the main thread, it runs the handler there
            threading.Timer(0.3, signal.pthread_kill, (other.ident, SIGNUM)).start()
        time.sleep(20)
        out.write_text("slept to the end")
    except Terminated:
        out.write_text(f"{time.time()}")
stop.set()
os._exit(0)
"""


def trial(kind: str) -> float | None:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        # run in the temporary folder: ``-c`` puts the working folder first on sys.path, a checkout's package there
        # taking the place of PYTHONPATH's
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(out), kind], cwd=folder)
        try:
            while not (Path(folder) / "ready").exists():
                time.sleep(0.01)
            time.sleep(0.3)
            sent = time.time()
            if kind != "thread-directed":  # there the child signals its own thread 0.3 s after it is ready: now
                child.send_signal(SIGNUM)
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
    for kind, count in (("thread-directed", 3), ("watcher's polls", trials), ("threads made without pause", trials)):
        woken = [trial(kind) for _ in range(count)]
        late = [w for w in woken if w is not None]
        print(f"{kind}: {len(late)} of {count} woken"
              + (f" (after {min(late) * 1000:.0f}-{max(late) * 1000:.0f} ms)" if late else "")
              + f", {count - len(late)} not woken within 3 s", flush=True)
