"""A ``Popen._waitpid_lock`` whose non-blocking acquire, once it succeeds, pauses WIDEN_S in Python code before
returning: a signal whose handler raises (torch's agent's ``SignalException``) lands there far more often than in
the few bytecodes the real window lasts. Used by launcher.py; and for the tests' own launches, imported by a ``.pth``
file put in the venv for the run (``import sys; sys.path.append('<this folder>'); import widen_poll``;
tests/startup/sitecustomize.py shadows a sitecustomize of ours), where it widens the lock of a process started as
``-m accelerate.commands.launch`` only. Run: WIDEN_S=0.5 pytest tests/test_inference_distributed.py -k "..."
(widened_tests_after.txt); the .pth removed after."""
import os
import subprocess
import sys
import threading
import time


class PausingLock:
    """A lock whose non-blocking acquire, when it succeeds, pauses ``pause_s`` in Python before returning."""

    def __init__(self, pause_s: float):
        self._lock = threading.Lock()
        self._pause_s = pause_s

    def acquire(self, blocking=True, timeout=-1):
        taken = self._lock.acquire(blocking, timeout)
        if taken and not blocking:
            time.sleep(self._pause_s)  # a signal here raises from this call: the caller's try not yet entered
        return taken

    def release(self):
        self._lock.release()

    def locked(self):
        return self._lock.locked()

    __enter__ = acquire

    def __exit__(self, *exc):
        self.release()


def widen_every_popen(pause_s: float) -> None:
    popen_init = subprocess.Popen.__init__

    def __init__(self, *args, **kwargs):
        popen_init(self, *args, **kwargs)
        self._waitpid_lock = PausingLock(pause_s)

    subprocess.Popen.__init__ = __init__


if os.environ.get("WIDEN_S") and "accelerate.commands.launch" in " ".join(getattr(sys, "orig_argv", [])):
    widen_every_popen(float(os.environ["WIDEN_S"]))
