"""A launched ``predict``'s last wait for every process: the first Ctrl-C there held, a second raised at once.

Once a process has written its share of the cases, it waits for the others (predict_distributed's last wait). An
interrupt there is held, and raised as the wait returns: every process is past it then, so none waits for this one,
and none need be stopped (published instead, it reached processes that had left, and the interrupted one ended 10 s
late: the hundredth session). Where another process is held up, the wait may not return: a second Ctrl-C is raised
at once, inside ``stopping_together``, which ends every process with status 130 and the main process's line naming
the cases written whole. Until the hundred-and-seventh session every Ctrl-C was held, however often pressed, and
could not have been raised anyway: the wait was torch's barrier, one call into C++ during which Python runs no
signal handler (a SIGINT 0.30 s into a gloo barrier that another process entered at 2.00 s was raised at 2.00 s;
benchmarks/results/last_wait_second_ctrl_c/). The wait now starts the barrier and looks at it in Python's own
steps, between which a handler runs: after 1 ms, then at doubling intervals up to ``POLL_S``. predict_distributed
waits so before the gather of the cases' failures too, where a process that has written its share waits for the
others first (split=cases): an interrupt there is not held (the others are still at work, inside
``stopping_together``) and stops every process at once.

Held as ``interrupts_between_imports`` holds a Ctrl-C during an import: the first said and held, a second raised at
once, on the main thread alone, and only where SIGINT's handler raises KeyboardInterrupt as Python's does. Its
handler is not reused: it tells a Ctrl-C to hold by the frames on the stack (an import under way; here none is, and
it would raise the first at once), and it raises a held one itself, asking again until the import returns; here the
held one is raised by the caller once it has left ``stopping_together`` (``PredictInterrupted``, with the count of
the cases), and where the hold begins and ends is known by the code's place, not by its stack.

A terminal's second Ctrl-C reaches the launcher too, whose agent, stopping the processes already (it sent the first
on), ends them with SIGTERM, which since the hundred-and-ninth session stops a launched predict as a stop of its own
(launched_sigterm.py): where that SIGTERM came before the second SIGINT, the user who pressed Ctrl-C twice read
"predict stopped by SIGTERM in process 1 ..." and each process ended with 143 (its review: 2 SIGINTs 0.5 s apart to
the launch's process group, process 1 held up in its last wait). A SIGTERM after a Ctrl-C held here is raised as the
interrupt it ends (``sigterm_after_a_held_interrupt_as_it``): "predict interrupted in ...", 130, as a second Ctrl-C.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator

from .interrupts_between_imports import raises_keyboard_interrupt
from .launcher_report import say_whole
from .sigterm import Terminated

#: The longest the wait sleeps between two looks at the barrier: the most a second Ctrl-C waits to be raised where
#: it reached another thread of the process (one that reaches the main thread ends its sleep at once).
POLL_S = 0.05
#: Its first sleep, each doubling to ``POLL_S``: where the others are there already, as a rule, the wait returns
#: within a few ms. With ``POLL_S`` alone each wait took 50 ms or more, two per launched predict: the process that
#: came last to it waited 50.3 ms (median), 0.1-0.5 ms in torch's barrier, 1.2-1.3 ms since (hundred-and-seventh
#: session's review; benchmarks/results/last_wait_second_ctrl_c/wait_cost.py).
FIRST_LOOK_S = 0.001


class InterruptInTheLastWait:
    """SIGINT's handler from ``held`` to ``released`` (predict_distributed's last wait): the first interrupt said and
    noted (``released`` tells it), a second raised at once, any after it noted only (the process is ending, its line
    about to be said). Held only on the main thread, the one Python raises it in, and only where Python's own handler
    would raise it: a SIGINT ignored (as a script's shell starts a background job) or handled by a handler of the
    caller's is left to it (when first written in the hundredth session, one that came there was raised though
    ignored)."""

    def __init__(self, process_index: int = 0):
        self.process_index = process_index
        self.came, self.raised, self.handler = False, False, None

    def held(self) -> None:
        if (threading.current_thread() is threading.main_thread()
                and raises_keyboard_interrupt(signal.getsignal(signal.SIGINT))):
            self.handler = signal.signal(signal.SIGINT, self._came)

    def _came(self, signum, frame) -> None:
        if self.raised:  # a third, as the second stops every process
            return
        if self.came:  # a second: the wait may be for a process that never comes
            self.raised = True
            raise KeyboardInterrupt
        self.came = True
        # one write: the launcher's agent, given a terminal's Ctrl-C too, logs on the same stderr (say_whole says why)
        say_whole(f"interrupt: process {self.process_index} has written its share and is waiting for the others; it "
                  f"stops when they are done (Ctrl-C again to stop at once)", sys.stderr)

    @contextlib.contextmanager
    def sigterm_after_a_held_interrupt_as_it(self) -> Iterator[None]:
        """A SIGTERM's ``Terminated`` raised inside, after a Ctrl-C was held, raised as Ctrl-C's KeyboardInterrupt: the
        launcher's agent ending the processes on a terminal's second Ctrl-C (module docstring)."""
        try:
            yield
        except Terminated:
            if not self.came:
                raise
            raise KeyboardInterrupt from None

    def released(self) -> bool:
        """The handler back as it was; whether an interrupt came while held."""
        if self.handler is not None:
            signal.signal(signal.SIGINT, self.handler)
            self.handler = None
        return self.came


#: The last wait's barrier on this process (``None`` until started), from ``the_last_wait``'s start; empty before.
_last_barrier: list = []


@contextlib.contextmanager
def the_last_wait() -> Iterator[None]:
    """Around predict_distributed's last wait: the barrier ``wait_for_every_process`` starts inside is noted for
    ``every_process_came_to_the_last_wait``, and stays noted after (the run's last moments)."""
    _last_barrier[:] = [None]
    yield


def forget_the_last_wait() -> None:
    """No last wait noted (a launched predict's SIGTERM span begins: ``launched_sigterm``)."""
    _last_barrier.clear()


def every_process_came_to_the_last_wait() -> bool:
    """Whether every process of the launch has come to this process's last wait, its barrier complete and without an
    error: each has done its share of the work, and none waits for another any more. A barrier that ended in an error
    is complete too (gloo's "Connection reset by peer" as a process killed before it is reaped): that process died
    before it came, which the hundred-and-tenth session's review found taken for every process come. A barrier
    started but not complete yet is given ``CATCH_UP_S`` to complete (``_completed_soon``). Asked from any thread
    (gloo's and NCCL's ``is_completed`` and their future take their own lock)."""
    barrier = _last_barrier[0] if _last_barrier else None
    return barrier is not None and _completed_soon(barrier) and _without_an_error(barrier)


#: How long a question about the last wait gives its barrier, started but not complete, to complete before taking it
#: for a process still to come. The process that comes last has its barrier complete first: the others' are complete
#: only once its message reaches them, and their own thread in the process group has run, which under load comes
#: later. A SIGTERM sent the moment that process's wait returned (a job's stop in a run's last moments; every process
#: of a launch gets it at once) found the main process's barrier not yet complete, and stopped every process: the
#: main process said "predict stopped by SIGTERM in process 0 (every case is written whole ...)" with torch's table
#: of failures, where the run was complete (CI under a load of ~27 on 2 cores; its repeat beside busy loops: the
#: hundred-and-sixteenth session, benchmarks/results/sigterm_last_wait_load_2026-12-06/). That lag, beside four busy
#: loops on 2 cores: median 0.3 ms, 90th percentile 16 ms, at most 39 ms of 40 (barrier_lag.py there); the bound is
#: 25 times that most, and it is what a stop costs more where a process is truly still to come (at its work), against
#: the 3-13 s that stop takes to say its line (ranks_stop_together). A barrier that fails (a process died) is complete
#: at once, and costs nothing more.
CATCH_UP_S = 1.0


def _completed_soon(barrier) -> bool:
    """Whether ``barrier`` is complete, or completes within ``CATCH_UP_S``: looked at every ``FIRST_LOOK_S``."""
    deadline = time.monotonic() + CATCH_UP_S
    while not barrier.is_completed():
        if time.monotonic() >= deadline:
            return False
        time.sleep(FIRST_LOOK_S)
    return True


def _without_an_error(work) -> bool:
    """Whether ``work``, complete, ended without an error: its future's value, which raises the error. Not
    ``is_success`` or ``exception``, which would say it too, but print that they are deprecated (torch 2.13)."""
    try:
        work.get_future().value()
    except Exception:  # the barrier's error; or a backend without futures, which cannot tell: taken for an error
        return False
    return True


def wait_for_every_process(accelerator) -> None:
    """``accelerator.wait_for_everyone()`` in steps a signal handler runs between (module docstring): torch's
    barrier, started (``async_op``) and looked at after sleeps of ``FIRST_LOOK_S`` doubling to ``POLL_S``. On the
    devices accelerate's own barrier uses (its process's GPU; none on the CPU, where gloo runs it). Without a process
    group of several (one process), as accelerate's.

    An interrupt raised here leaves the barrier pending, its thread in torch's process group waiting for the others:
    the process must then end with ``os._exit``, as ``stopping_together``'s watcher ends it (and cli's ``end_process``
    a launched one). An interpreter's shutdown, or ``destroy_process_group``, waits for that barrier: still running
    20 s after, the other process never coming, where ``os._exit`` ended it in 0.02 s (hundred-and-seventh session's
    review; benchmarks/results/last_wait_second_ctrl_c/pending_barrier_at_exit.py).

    Raises:
        RuntimeError: the barrier's, where a process ended in it (gloo's "Connection closed by peer"), as before.
    """
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        accelerator.wait_for_everyone()
        return
    on_the_cpu = accelerator.device.type == "cpu"
    work = dist.barrier(async_op=True, device_ids=None if on_the_cpu else [accelerator.local_process_index])
    if _last_barrier and _last_barrier[0] is None:  # inside the_last_wait
        _last_barrier[0] = work
    pause = FIRST_LOOK_S
    while not work.is_completed():
        time.sleep(pause)
        pause = min(2 * pause, POLL_S)
    work.wait()  # the barrier's error, where it ended in one
