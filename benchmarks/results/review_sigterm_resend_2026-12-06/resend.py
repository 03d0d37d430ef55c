"""launched_sigterm's re-send of a SIGTERM to the main thread (``_main_thread_woken_once``), at its edges: does it
raise ``Terminated`` more than once, run the handler's decision more than once, or land after the span has put
SIGTERM's default back (the process then killed, -15, saying nothing)? (the review of the hundred-and-fifteenth
session)

    cd <worktree> && PYTHONPATH=<worktree> .venv/bin/python \
        benchmarks/results/review_sigterm_resend_2026-12-06/resend.py > .../resend.txt

Each trial is a child process whose parent is this one, alone with its command line (``processes_beside_this_one``
finds none beside it: no death to end at once), inside the span as a launched predict is:

- ``busy main``: SIGTERM to the process while the main thread runs Python (the kernel hands it to the main thread):
  the watcher's re-send races the handler.
- ``two to another thread``: two SIGTERMs 50 ms apart sent to another thread, the main thread asleep.
- ``as the span ends``: SIGTERM sent to another thread as the body's last step, the main thread leaving the span;
  a ``Terminated`` raised in leaving is caught.
Each child then sleeps 0.3 s outside the span and exits 0; its status and its count of ``Terminated`` raised and of
decisions asked (``first``) are printed.
"""

import subprocess
import sys
from collections import Counter

CHILD = r"""
import os, signal, sys, threading, time
from accelerated_seg import launched_sigterm
from accelerated_seg.sigterm import Terminated

kind = sys.argv[1]
raised, asked = 0, []
real = launched_sigterm.one_has_ended
launched_sigterm.one_has_ended = lambda beside: asked.append(1) or real(beside)
other = threading.Thread(target=threading.Event().wait, args=(5,), daemon=True)
other.start()
try:
    with launched_sigterm.sigterm_as_an_interrupt_unless_one_has_ended():
        try:
            if kind == "busy main":
                os.kill(os.getpid(), signal.SIGTERM)
                end = time.monotonic() + 1.0
                while time.monotonic() < end:
                    pass
            elif kind == "two to another thread":
                signal.pthread_kill(other.ident, signal.SIGTERM)
                threading.Timer(0.05, signal.pthread_kill, (other.ident, signal.SIGTERM)).start()
                time.sleep(2)
            else:  # the body's last step: the handler runs on the main thread as it leaves, or in leaving
                signal.pthread_kill(other.ident, signal.SIGTERM)
        except Terminated:
            raised += 1
            time.sleep(0.3)  # the stop under way, a second SIGTERM may come
except Terminated:
    raised += 1
time.sleep(0.3)
print(f"raised {raised} asked {len(asked)}", flush=True)
os._exit(0)
"""

for kind, trials in (("busy main", 10), ("two to another thread", 10), ("as the span ends", 30)):
    seen = Counter()
    for _ in range(trials):
        child = subprocess.run([sys.executable, "-c", CHILD, kind], capture_output=True, text=True, timeout=30)
        seen[f"status {child.returncode}: {child.stdout.strip() or child.stderr.strip()[-200:]}"] += 1
    print(f"{kind}, {trials} trials: {dict(seen)}", flush=True)
