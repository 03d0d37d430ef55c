"""A signal sent until the main thread has handled it, for tests that interrupt it from another thread.

CPython runs a signal's handler between bytecodes of the main thread, and a lock's wait ends early (EINTR) for a
signal that comes while it blocks. One that comes after the main thread's last look for signals and before it
blocks (releasing the GIL on the way lets the sending thread run just then) is handled only once that wait ends:
a real Ctrl-C then waits for the stage the main thread waits for, but a test whose stage waits for the handler
waits for ever. Sent again, it ends the wait. Two of four fresh-clone CI runs of the hundredth session met it.
"""

import threading
import time
from typing import Callable

#: A signal not handled this long after it was sent is sent again.
SENT_AGAIN_AFTER_S = 0.2


def sent_until_handled(send: Callable[[], None], handled: threading.Event, within_s: float) -> None:
    """``send()`` again every ``SENT_AGAIN_AFTER_S`` until ``handled`` is set (by the handler, which must take a
    second signal sent before it ran as the same one); AssertionError after ``within_s``."""
    deadline = time.monotonic() + within_s
    while True:
        send()
        if handled.wait(SENT_AGAIN_AFTER_S):
            return
        assert time.monotonic() < deadline, "the main thread never met the signal"
