"""Ctrl-C while a launched process waits for the others to meet: it ends the process, saying the caller's line.

A launch's processes meet in ``init_process_group`` (the Accelerator's, predict's ``PartialState``): each waits there,
in torch's C++ (the store's connection, gloo's mesh), until every other has come. No Python signal handler runs in
that wait. A SIGINT then (a terminal's Ctrl-C, which torch's agent sends on to every rank; ``kill -INT`` of the rank)
is only noted, to be raised once the wait returns, which it never does where another rank ended before it came: the
rank waited for the agent's SIGKILL, 30 s, and a launch interrupted in its first second ended after 30.5 s
(until the hundred-and-ninth session; benchmarks/results/sigint_one_rank_outside_steps/).

Inside ``ending_on_an_interrupt_in_the_rendezvous``, SIGINT is held, not raised where it lands (``_Held``), and a
watching thread hears of it through Python's wakeup fd (``signal.set_wakeup_fd``: written by Python's C-level
handler, in whichever thread the signal lands, while the main thread waits in C++ with the GIL released). Where the
processes have met within ``MEETING_WITHIN_S`` (torch has registered the process group, and the span ends), the held
interrupt is raised as the span ends, to the caller, whose stopping together (training's ``ranks_stop_together``)
ends every rank with its line once. Where they have not, the watcher says the caller's line and ends the process with
status 130, as an interrupted rank ends; nothing of the run exists yet to be left half-written.

Why held: raised where it landed, the interrupt of a rank whose wait the others' coming had just ended came inside
``init_process_group``, after the meeting in C++ and before torch registered the group: no store to tell the others
through, the rank ended alone, and another, met, failed in its first collective with gloo's "Connection reset by
peer" traceback (kill -INT of one rank as the others came within half a second: until the hundred-and-tenth
session). Told through the store instead, the interrupted rank would need the store's key made by hand from torch's
private prefixes; held, it reaches the one path every later interrupt takes.

The watcher cannot see a meeting in C++ that torch has not registered yet (another rank's side of it completes
first, this one's registration follows by the Python of ``init_process_group``'s end, tens of milliseconds on a busy
machine): another rank coming just as the watcher ended the process, ``MEETING_WITHIN_S`` after the SIGINT, failed in
its first collective with gloo's traceback (3 of 4 tries with rank 1 sent on 0.5 s after the SIGINT, none of 11 at
0-0.45 s or 0.55-1.0 s: benchmarks/results/sigint_one_rank_outside_steps/
ctrl_c_to_the_launcher_before_the_processes_meet.txt). So the ranks agree through marks in the launch's store
(``_Marks``): the watcher marks its rank leaving before it ends it, and waits for the meeting where every other rank
is already marked on its way in (while they stay marked); a rank entering the span with another marked leaving takes
its mark back and stays out of the rendezvous for the agent's SIGTERM (0 of 6 tries at 0.5 s with them). Only where
torch's agent holds the store (torchrun, accelerate launch); elsewhere the window stays.

Why not the other ways: SIGINT at its default action for the span ends the process with no line, killed by the
signal (status -2), which torch's table and the estimator's launch (``interrupt_of_the_launch``, which knows 130) take
for a failure; ``signal.sigwait`` in a thread needs SIGINT blocked in every other thread, and the threads already
started (torch's, a loader's) cannot be made to; a short rendezvous timeout would fail a launch whose nodes start
minutes apart.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator

from .dropped_interrupts import raise_a_dropped_interrupt
from .exit_now import exit_now
from .interrupts_between_imports import raises_keyboard_interrupt
from .launch_env import processes_yet_to_meet

#: How long after a SIGINT the processes have to meet (the span to end) before the watcher ends the process: a rank
#: waiting for the others when interrupted sees them come within it where they were on their way (a launch's ranks
#: reach the rendezvous within a second or so of each other), and its interrupt reaches them all.
MEETING_WITHIN_S = 0.5

#: How long the watcher waits for the meeting of ranks that have all said they are on their way into the rendezvous
#: (``_Marks``): it completes in milliseconds once they are there; bounded, so that Ctrl-C still ends a rank whose
#: partner said so and never came.
ON_THEIR_WAY_S = 5.0

#: How long a rank that finds another leaving (``_Marks``) waits for the agent's SIGTERM, which follows that one's end
#: within its monitor interval, before it goes on into the rendezvous all the same.
LEAVING_WAIT_S = 10.0

#: How long a client of the launch's store waits to connect, and for an answer: the store is torch's agent's, up
#: before any rank starts.
STORE_S = 5.0

#: The status of a process Ctrl-C ended (``ranks_stop_together.EXIT_INTERRUPTED``, which imports torch).
_EXIT_INTERRUPTED = 128 + signal.SIGINT

#: Written by the span's end to wake the watcher: no signal has the number 0.
_SPAN_ENDED = b"\0"


class _Held:
    """SIGINT's handler inside the span: the interrupt noted (``came``), to be raised as the span ends, where the
    processes have met, or ended with by the watcher, where they have not (module docstring)."""

    def __init__(self):
        self.came = False

    def __call__(self, signum, frame) -> None:
        self.came = True


class _Marks:
    """Marks in the store of torch's agent that keep an interrupted rank from ending as another meets it (module
    docstring, "The watcher cannot see a meeting"): each rank marks itself on its way into the rendezvous as it
    enters the span, then looks for a rank leaving; the watcher marks its rank leaving before it ends it, then looks
    for the others on their way. One store answers each in turn, so of two ranks marking at once at least one sees the
    other's mark:
    the one coming takes its mark back and stays out of the rendezvous (the agent's SIGTERM ends it), or the one
    leaving waits for the meeting, while the others stay marked, and stops with them. A rank that will not come (it
    stays out; an interrupt or an error ends it before the meeting) takes its mark back (``not_coming``). Our own
    keys, through torch's public TCPStore, where the agent holds the store (TORCHELASTIC_USE_AGENT_STORE); elsewhere
    (rank 0's own store, made only inside ``init_process_group``) none."""

    def __init__(self):
        self.store = None
        if os.environ.get("TORCHELASTIC_USE_AGENT_STORE") != "True":
            return
        from datetime import timedelta

        import torch.distributed as dist

        attempt, self.rank = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"), int(os.environ.get("RANK", "0"))
        self.key = f"accelerated_seg/rendezvous/{attempt}/{{}}/{{}}".format  # (coming or leaving, rank)
        self.others = [other for other in range(int(os.environ["WORLD_SIZE"])) if other != self.rank]
        made: list = []

        def connect() -> None:
            with contextlib.suppress(Exception):  # no store to reach: no marks, as before them
                made.append(dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False,
                                          wait_for_workers=False, timeout=timedelta(seconds=STORE_S)))

        # In a daemon thread waited for STORE_S: the store's timeout bounds torch's connect, not its lookup of
        # MASTER_ADDR's name (a host name on several nodes), 20 s with a name server not answering (hundred-and-
        # thirteenth session: benchmarks/results/store_name_lookup_2026-12-06); the thread, left waiting, is a daemon.
        connecting = threading.Thread(target=connect, name="interrupt-in-the-rendezvous-store", daemon=True)
        connecting.start()
        connecting.join(STORE_S)
        self.store = made[0] if made else None

    def coming(self) -> None:
        with contextlib.suppress(Exception):
            if self.store is not None:
                self.store.set(self.key("coming", self.rank), "1")

    def another_leaving(self) -> bool:
        try:
            return self.store is not None and any(self.store.check([self.key("leaving", other)])
                                                  for other in self.others)
        except Exception:  # the store gone (its agent ended): no one to keep out for
            return False

    def leaving(self) -> None:
        with contextlib.suppress(Exception):
            if self.store is not None:
                self.store.set(self.key("leaving", self.rank), "1")

    def every_other_coming(self) -> bool:
        try:
            return self.store is not None and self.store.check([self.key("coming", other) for other in self.others])
        except Exception:  # the store gone (its agent ended): no one is coming
            return False

    def not_coming(self) -> None:
        """This rank's mark on its way in taken back: it will not come (it stays out, or an interrupt or an error ends
        it first), so that a leaving rank waiting on the mark ends at once, not ``ON_THEIR_WAY_S`` later. Kept, the
        mark held a leaving rank those 5 s where both saw the other's (the one coming then stayed out too)."""
        with contextlib.suppress(Exception):
            if self.store is not None:
                self.store.delete_key(self.key("coming", self.rank))


class _Watcher(threading.Thread):
    """Reads the signal numbers Python's handler writes into ``reading``; ends the process on SIGINT (module
    docstring). ``previous``: the wakeup fd set before the span, given every byte, as it would have been."""

    def __init__(self, reading: socket.socket, previous: int, say: Callable[[], None], marks: _Marks):
        super().__init__(name="interrupt_in_the_rendezvous", daemon=True)
        self.reading, self.previous, self.say, self.marks = reading, previous, say, marks
        self.ended = threading.Event()  # the span has ended: the main thread takes any SIGINT from here
        self.lock = threading.Lock()  # the span ends, or the process does, not both half way

    def run(self) -> None:
        while not self.ended.is_set():
            try:
                numbers = self.reading.recv(64)
            except OSError:
                return
            if not numbers:
                return
            _forward(numbers, self.previous)
            if signal.SIGINT in numbers and not self.ended.wait(MEETING_WITHIN_S):
                self._end_the_process()

    def _end_the_process(self) -> None:
        with self.lock:
            # Met, the span slow to end (a busy machine): the main thread raises the interrupt as it ends, theirs to
            # stop together (the caller's ranks_stop_together). Ended here, the others failed in their first
            # collective (gloo's "Connection reset by peer", status 1), a probe of SIGINT to one rank as they met.
            if self.ended.is_set() or not processes_yet_to_meet():
                return
            # Leaving marked, then the others looked for: any on its way in since is kept out (``_Marks``); met by
            # those marked before, this rank stops with them
            self.marks.leaving()
            if self._met_within(ON_THEIR_WAY_S):
                return
            with contextlib.suppress(Exception):  # whatever the saying met (a reader gone), the process ends
                self.say()
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()
            # Looked at again: the saying's writes (and say_once_on_this_node's wait for another rank's line) release
            # the GIL, and the processes may have met meanwhile (torch registers the group in Python, needing the
            # GIL). Until the hundred-and-ninth session's review a rank met meanwhile was ended all the same; what is
            # left is the few instructions from this look to os._exit.
            if processes_yet_to_meet():
                exit_now(_EXIT_INTERRUPTED)

    def _met_within(self, wait_s: float) -> bool:
        """Whether the processes meet within ``wait_s``, while every other rank is marked on its way in (looked at
        again each time: one that takes its mark back, ``_Marks.not_coming``, will not come)."""
        waiting_until = time.monotonic() + wait_s
        while processes_yet_to_meet():
            if time.monotonic() > waiting_until or not self.marks.every_other_coming():
                return False
            time.sleep(0.02)
        return True

    def end(self, writing: socket.socket) -> None:
        with self.lock:
            self.ended.set()
        with contextlib.suppress(OSError):
            writing.send(_SPAN_ENDED)
        self.join()


def _forward(numbers: bytes, previous: int) -> None:
    """Give the wakeup fd set before the span (an event loop's own: asyncio runs its signal handlers for the numbers
    it reads there) the signal numbers written into the span's, as Python's handler would have given them."""
    if previous != -1:
        with contextlib.suppress(OSError):  # non-blocking (set_wakeup_fd's rule): a full one loses them, as before
            os.write(previous, numbers.replace(_SPAN_ENDED, b""))


def _forward_what_is_left(reading: socket.socket, previous: int) -> None:
    """The numbers still in ``reading`` once the watcher has ended (written after it read the span's end, or while it
    waited for the main thread to take a SIGINT), forwarded: until the hundred-and-ninth session's review (r42)
    they were lost with it."""
    reading.setblocking(False)
    while True:
        try:
            numbers = reading.recv(64)
        except OSError:  # none left
            return
        if not numbers:
            return
        _forward(numbers, previous)


@contextlib.contextmanager
def ending_on_an_interrupt_in_the_rendezvous(say: Callable[[], None]) -> Iterator[None]:
    """Inside, a SIGINT is held: raised as KeyboardInterrupt as the span ends where the processes have met within
    ``MEETING_WITHIN_S``, else the process ended with status 130 once ``say()`` has said what the caller says of an
    interrupt there (module docstring). Only in a launch of several whose processes have not met, on the main
    thread, and where SIGINT's handler raises KeyboardInterrupt (ignored, or the system's default, it stays as it
    is); elsewhere nothing changes. Put around the call that makes the process group (``make_accelerator``,
    ``PartialState``). A Ctrl-C that a finalizer dropped on the way here, kept by the caller's ``interrupts_kept``
    (training's setup, a launched predict's checks and imports), is raised first, before the wait: kept to the end of
    the caller's block, it went into the rendezvous and waited there for the others to come (dropped_interrupts.py);
    so is one dropped as this rank marks itself coming, once SIGINT is held."""
    raise_a_dropped_interrupt()
    if (threading.current_thread() is not threading.main_thread() or not processes_yet_to_meet()
            or not raises_keyboard_interrupt(signal.getsignal(signal.SIGINT))):
        yield
        return
    marks = _Marks()  # first: a SIGINT as it connects is raised, nothing else yet set
    try:
        marks.coming()
        if marks.another_leaving():  # met, it would end as it meets this one: left to the agent's SIGTERM (_Marks)
            marks.not_coming()
            time.sleep(LEAVING_WAIT_S)
            marks.coming()  # no SIGTERM came (a mark left by an earlier round of the launch): on its way in after all
    except BaseException:  # a SIGINT raised here (its handler not yet held): this rank is not coming
        marks.not_coming()
        raise
    reading, writing = socket.socketpair()
    writing.setblocking(False)  # as set_wakeup_fd requires: a signal handler must never block
    previous = signal.set_wakeup_fd(writing.fileno(), warn_on_full_buffer=False)
    watcher = _Watcher(reading, previous, say, marks)
    held, raising = _Held(), signal.getsignal(signal.SIGINT)
    try:
        # after the wakeup fd: a SIGINT from here is in it, for the watcher; one before is raised here, as ever
        signal.signal(signal.SIGINT, held)
        # and one a finalizer dropped since the first look (as the marks were set) raised now, before the wait: held
        # from here, none is dropped; kept, it went through the meeting and was raised as the caller's block ended,
        # after it (a launched predict saying "before the launch's processes met"), until the review r127
        raise_a_dropped_interrupt()
        watcher.start()
        yield
    finally:
        # The previous fd back first, so that a signal from here reaches it, then what the span's fd still holds
        # forwarded to it: ended before them, a signal between the two lost its number (asyncio, its handler).
        # warn_on_full_buffer back to its default, True, which Python cannot read back: asyncio's own (3.6-3.13's
        # add_signal_handler sets it so, a notebook's loop too: benchmarks/results/rendezvous_interrupt_held_2026-12-05),
        # where trio's False is not kept.
        signal.set_wakeup_fd(previous)
        if watcher.ident is not None:  # started
            watcher.end(writing)
        _forward_what_is_left(reading, previous)
        reading.close()
        writing.close()
        if processes_yet_to_meet():  # the body ended before the meeting (an error, an interrupt): not coming
            marks.not_coming()
        # Put back last, so that a SIGINT during the rest is held too, not raised half way through it; one held is
        # raised now, the processes having met (or the body failed before the watcher's time), as it would have been
        # where it landed: in place of an error the body raised meanwhile, which it prevented there.
        if signal.getsignal(signal.SIGINT) is held:
            signal.signal(signal.SIGINT, raising)
        if held.came:
            raise KeyboardInterrupt
