"""An ``accelerated-seg`` command whose Ctrl-C (or SIGTERM) lands inside nibabel's ``ArrayProxy.__del__``, where
Python drops an exception raised: ``python signalled_in_a_finalizer.py INT|TERM N COMMAND ARGS...`` sends the signal
to its own process from inside the N-th such ``__del__`` on the main thread (signals' handlers run there alone), which
meets it at its next instruction, still inside the ``__del__``. Where it lands there by chance in a real command, here
it lands there every time. Run by the tests of check, evaluate and predict (tests/test_dropped_interrupts.py)."""

import os
import signal
import sys
import threading

from nibabel.arrayproxy import ArrayProxy

from accelerated_seg.cli import end_process, main


def signalled_in_the_finalizer_call(number: int, signum: int) -> None:
    """``ArrayProxy.__del__`` replaced by one that sends ``signum`` as the main thread's ``number``-th call begins."""
    closing, calls = ArrayProxy.__del__, 0

    def signalled_while_closing(self):
        nonlocal calls
        if threading.current_thread() is threading.main_thread():
            calls += 1
            if calls == number:
                os.kill(os.getpid(), signum)
        closing(self)

    ArrayProxy.__del__ = signalled_while_closing


if __name__ == "__main__":
    # Python's own SIGINT handler, as under a terminal: a shell starts a background job (``pytest ... &``, nohup)
    # with SIGINT ignored, which this process inherits and Python keeps; the SIGINT was then no interrupt at all
    # and the tests of check and evaluate failed, status 0 (conftest's ``ctrl_c_raises``, for in-process tests)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signalled_in_the_finalizer_call(int(sys.argv[2]), getattr(signal, f"SIG{sys.argv[1]}"))
    end_process(main(sys.argv[3:]))
