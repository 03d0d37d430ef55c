"""The wake's handler installed and put back (launched_sigterm._a_wake_for_the_main_thread), in-process, through
``sigterm_as_an_interrupt_unless_one_has_ended`` as a launched predict enters it.
Run: PYTHONPATH=<worktree> python install_restore.py > install_restore.txt 2>&1"""
import signal
import threading
import time

from accelerated_seg.launched_sigterm import WAKE, sigterm_as_an_interrupt_unless_one_has_ended as span


def name(handler):
    return getattr(handler, "__name__", handler)


def ours(signum, frame):
    pass


print("1. SIGURG at its default: inside", end=" ")
with span():
    print(name(signal.getsignal(WAKE)), end="; ")
print("after", name(signal.getsignal(WAKE)))

print("2. a handler of the caller's (as asyncio's or a notebook's): inside", end=" ")
signal.signal(WAKE, ours)
with span():
    print(name(signal.getsignal(WAKE)), end="; ")
print("after", name(signal.getsignal(WAKE)))
signal.signal(WAKE, signal.SIG_DFL)

print("3. SIG_IGN set by the caller: inside", end=" ")
signal.signal(WAKE, signal.SIG_IGN)
with span():
    print(name(signal.getsignal(WAKE)), end="; ")
print("after", name(signal.getsignal(WAKE)))
signal.signal(WAKE, signal.SIG_DFL)

print("4. left by an exception: after", end=" ")
try:
    with span():
        raise ValueError
except ValueError:
    pass
print(name(signal.getsignal(WAKE)), "SIGINT:", name(signal.getsignal(signal.SIGINT)))

print("5. nested (a span inside a span): inside the inner", end=" ")
with span():
    with span():
        print(name(signal.getsignal(WAKE)), end="; ")
    print("between", name(signal.getsignal(WAKE)), end="; ")
print("after", name(signal.getsignal(WAKE)))

print("6. a SIGINT sent to another thread, a handler of the caller's on SIGURG (no wake):", end=" ")
signal.signal(WAKE, ours)
stop = threading.Event()
other = threading.Thread(target=stop.wait, daemon=True)
other.start()
started = time.monotonic()
try:
    with span():
        threading.Timer(0.2, signal.pthread_kill, (other.ident, signal.SIGINT)).start()
        time.sleep(3)
except KeyboardInterrupt:
    pass
print(f"raised {time.monotonic() - started:.2f} s in (the sleep: 3 s)")
stop.set()
signal.signal(WAKE, signal.SIG_DFL)

print("7. a forked child inside the span: its SIGURG handler", end=" ")
import os
with span():
    pid = os.fork()
    if pid == 0:
        os.kill(os.getpid(), WAKE)  # a no-op handler: the child goes on
        time.sleep(0.05)
        os._exit(0 if name(signal.getsignal(WAKE)) == "_woken" else 1)
    _, status = os.waitpid(pid, 0)
print("(inherited, no-op): child status", os.waitstatus_to_exitcode(status))
