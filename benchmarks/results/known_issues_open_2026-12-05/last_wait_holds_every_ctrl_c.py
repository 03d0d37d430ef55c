"""Does a second Ctrl-C in distributed predict's last wait stop the process? (hundred-and-sixth session)

The wait is stood in for by a 1 s sleep under ``_InterruptAfterTheWork.held()``, as predict_distributed holds it
around ``accelerator.wait_for_everyone()``; two SIGINTs are sent 0.1 s apart during it.

Historical: a record of the hold before the hundred-and-seventh session fixed it (last_wait.py, its probes in
benchmarks/results/last_wait_second_ctrl_c/). ``_InterruptAfterTheWork`` went with the fix: this no longer runs (an
ImportError); the .txt beside it is what it said then.

    PYTHONPATH=. .venv/bin/python benchmarks/results/known_issues_open_2026-12-05/last_wait_holds_every_ctrl_c.py \
        > benchmarks/results/known_issues_open_2026-12-05/last_wait_holds_every_ctrl_c.txt 2>&1
"""

import os
import signal
import threading
import time

from accelerated_seg.inference_distributed import _InterruptAfterTheWork

interrupt = _InterruptAfterTheWork()
interrupt.held()
for delay in (0.2, 0.3):
    threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT)).start()
start = time.monotonic()
try:
    time.sleep(1.0)  # the last wait
    print(f"two SIGINTs held: the wait ran its {time.monotonic() - start:.2f} s to its end")
except KeyboardInterrupt:
    print(f"a SIGINT stopped the wait after {time.monotonic() - start:.2f} s")
print("an interrupt came while held:", interrupt.released())
