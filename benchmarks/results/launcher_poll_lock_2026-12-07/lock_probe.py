"""CPython's ``Popen.poll`` with an exception raised from a signal handler into it (as torch's agent raises
``SignalException``), TRIES times at timer-chosen moments: how often its ``_waitpid_lock`` is left held, after which
``poll()`` returns None and ``wait(timeout)`` times out for ever. Usage: lock_probe.py TRIES."""
import signal
import subprocess
import sys
import time


class Stop(Exception):
    pass


def raise_stop(*args):
    raise Stop


signal.signal(signal.SIGALRM, raise_stop)
proc = subprocess.Popen(["sleep", "1000"])
left_held = raised = 0
started = time.time()
for number in range(int(sys.argv[1])):
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.00005 + (number % 50) * 0.000003)
        while True:
            proc.poll()
    except Stop:
        raised += 1
    if proc._waitpid_lock.locked():
        left_held += 1
        proc._waitpid_lock.release()  # so that the next try starts as the first
print(f"Python {sys.version.split()[0]}: {raised} exceptions raised into a loop of poll(), the lock left held "
      f"{left_held} times ({time.time() - started:.1f} s)")
proc.kill()
proc.wait()
