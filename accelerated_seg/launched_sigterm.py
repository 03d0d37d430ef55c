"""SIGTERM to a launched ``predict``: a stop to say, or torch's agent ending the processes left when one has ended.

torch's elastic agent (``accelerate launch``, ``torchrun``) sends SIGTERM to the processes it started in two cases:
when it is stopped itself (a time limit, ``scancel``, ``kill`` of the launcher, each of which may also reach the
processes directly), and to end those left once one of them has ended (killed outright: the OOM killer, SIGKILL, a
crash). The first is a stop to finish the maps being written and say so, as Ctrl-C is; the second must end the
process at once, as SIGTERM's default does: a process stopping as for Ctrl-C waited for the dead one to answer (the
main process, its line said, 10.6 s in the hundred-and-first session's try), and one in a collective named SIGTERM,
not the death, as what stopped it. Until the hundred-and-ninth session every SIGTERM had its default in a launched
predict: nothing was said, and a map being written stayed a hidden temporary.

The two are told apart by the agent's own order: it polls its processes (``Popen.poll``, which reaps one that has
ended) and only then signals the others (torch 2.13, ``SubprocessContext._poll``). So a SIGTERM that finds a process
of this node's launch gone, of those there when the processes met, is the agent's ending of the rest; any other is a
stop. The agent signals only the processes of its own node, whose deaths it alone sees: those beside this one are
the processes with the same parent and the same command line (``processes_beside_this_one``), read from ``/proc``.
Where there is no ``/proc`` (macOS), SIGTERM keeps its default, as before.

A process that has ended is no death where it ended well: once every process has come to predict's last wait for
every process (``last_wait.every_process_came_to_the_last_wait``: this process's barrier there is complete, or
completes within ``last_wait.CATCH_UP_S``, as it does after the last process's under load), each has written its
share and none waits for another, and a process of the launch ends, status 0, as soon as it is past it.
A SIGTERM then (a job's stop in a run's last moments: the main process saying its last line) is a stop, said, 143:
until the hundred-and-tenth session it found that process gone and ended the main process at once, saying nothing.
Told by this process's own barrier rather than by a mark the ended one leaves (in the launch's store, or a file):
the barrier is what the question is about (is anyone still waited for?), it needs nothing written nor read from a
store that may be ending with the launch, and it holds for a process that died after the wait too, where nothing
was waited for either. Where no one has come yet, a process gone did die: none ends well before that wait, since
each waits there for all (the zombie's exit status in ``/proc/<pid>/stat`` would tell too, but only until the agent
reaps it, within its 0.1 s poll).

Nor is a death one to end at once where a process's error is published already (``ranks_stop_together``): a process that
met an error and was then killed (before the main process's watcher had seen the error, and so before it was deaf to
SIGTERM) left its error said by no one, the main process -15 (with that watcher looking every 2 s: at the last wait 4 of
4, in a case's reduction 2 of 2; the hundred-and-eleventh session's review). The SIGTERM is then a stop, and the
published error's stop says its line with its status, as ``peer_death`` leaves it where gloo's error comes first.

Before the processes meet (predict's checks, its imports, the rendezvous: ``said_once_until_the_processes_meet``)
nothing is written and no process waits for another's answer: a job's SIGTERM ends each process at once, its line said
once on each node (``accelerated-seg predict stopped by SIGTERM before it began; nothing was written: run the same
command again``), status 143, where SIGTERM's default ended it saying nothing, -15, until the hundred-and-nineteenth
session (benchmarks/results/predict_sigusr1_2026-12-06/launched_before_the_meeting*). No processes have met there to
count from, so a death is told by how many are left: fewer processes beside this one than ``LOCAL_WORLD_SIZE`` less one
(the agent reaps the ended one before it signals, and a zombie has no command line to match), or one of those there as
the span began ended; the agent's SIGTERM then ends the process with the default, as before (its table: the killed
process -9 first, this one -15). A process that the job's stop reaches after another has ended of it takes that one's
end for a death and ends with the default, saying nothing: the line was said by the first. Training keeps SIGTERM's
default until its processes meet (early_signals.py).

The question is asked as the signal comes, on a thread of its own woken by Python's wakeup fd, whose answer the
handler waits for and acts on (``DECIDED_WITHIN_S``; it asked too until review r130, and waited for ever where the
main thread it interrupted held the store's lock): the handler runs on the main thread only between two of its Python
steps, and a main thread in a C++ call (a collective whose other process has died: NCCL's waits for its timeout) would
have held the process until the agent's SIGKILL, 30 s later, where the default ended it at once. That thread also
sends the signal on to the main thread where the kernel handed it to another, whose handler then ran only once the
main thread's wait returned by itself (``_main_thread_woken_once``, since the hundred-and-fifteenth session). A
SIGINT the kernel hands to another thread wakes the main thread too, since the hundred-and-twenty-fourth session, its
handler left to run there once (``_a_wake_for_the_main_thread``).

SIGUSR1 (a requeue's notice, Slurm's ``--signal=USR1@60``) is taken as a job's SIGTERM in both spans, its line naming
it, status 138, since the hundred-and-twentieth session: it had Python's default from the command's start on, and
ended each process at once, -10, nothing said, a map being written left under its hidden name
(benchmarks/results/launched_predict_sigusr1_2026-12-07/). The agent never sends it, so it is always a stop, never
the ending of the processes left when one has died: a process that has ended (that stop's first, 138) is no death to
it. Taken together with SIGTERM (``sigterm.stops_as_an_interrupt``): the first of the two is the stop, whichever it
is, and decides the span as it comes; a later one is that stop's too (a notice, then the time limit's SIGTERM).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

from .early_signals import at_pythons_default, taken_over
from .exit_now import exit_now, remove_own_multiprocessing_folder
from .last_wait import every_process_came_to_the_last_wait, forget_the_last_wait
from .processes_beside import stat_fields
from .ranks_stop_together import an_error_is_published
from .sigterm import INTERRUPTS, stops_as_an_interrupt

#: The signals a launched predict takes as a job's stop: SIGTERM and SIGUSR1 (``sigterm.INTERRUPTS``).
STOPS = tuple(INTERRUPTS)


def processes_beside_this_one() -> list[int] | None:
    """The other processes of this node's launch: those with this one's parent and command line. None where
    ``/proc`` cannot tell (not Linux)."""
    try:
        parent, command = os.getppid(), _command_line(os.getpid())
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) != os.getpid()]
    except OSError:
        return None
    return [pid for pid in pids if _parent(pid) == parent and _command_line(pid) == command]


def one_has_ended(beside: list[int]) -> bool:
    """Whether a process of ``beside`` has ended: reaped (gone from ``/proc``, or its number taken by another
    process), or a zombie its parent has not reaped yet."""
    return any(_parent(pid) != os.getppid() or _state(pid) in ("Z", "X", None) for pid in beside)


def one_is_not_reaped(beside: list[int]) -> bool:
    """Whether a process of ``beside`` has ended and its parent (the launch's agent on this node) has not reaped it
    yet: a zombie. The agent reads its status only as it reaps it (``peer_death``)."""
    return any(_state(pid) == "Z" for pid in beside)


@contextlib.contextmanager
def sigterm_as_an_interrupt_unless_one_has_ended() -> Iterator[None]:
    """While active, in a launch whose processes have met: SIGTERM raises ``sigterm.Terminated`` on the main thread
    (a stop, said as Ctrl-C's is), unless a process beside this one has ended before every process came to the last
    wait, when it ends the process at once with SIGTERM's default (module docstring); SIGUSR1 raises
    ``sigterm.StoppedBySIGUSR1``, a stop always. A SIGINT that the kernel handed to another thread wakes the main
    thread's wait, where its handler runs (``_a_wake_for_the_main_thread``). Nothing changes where ``/proc`` cannot
    tell, off the main thread, or where SIGTERM has a handler of the caller's (a SIGUSR1 handler of the caller's is
    kept, SIGTERM taken)."""
    beside = processes_beside_this_one()
    if (beside is None or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    forget_the_last_wait()  # an earlier run's in this process, if any, says nothing of this one's
    # reentrant: a second SIGTERM (a job's stop reaches the process and its agent, which sends it on) may run the
    # handler again inside the first's, on the main thread, just as it begins to decide (``in_the_handler``)
    deciding, decided = threading.RLock(), []

    def ended_at_once_where_one_has_ended(signum: int) -> None:
        # Decided once, as the first stop comes (by the thread, or the handler where no thread watches): the handler
        # may run long after, once the main thread leaves a C++ call, when the stop under way has ended the others. A
        # SIGUSR1 first is a stop: the agent's SIGTERM after the ends it brings (138) is that stop's, not a death's.
        with deciding:
            if not decided:
                decided.append(signum == signal.SIGTERM and one_has_ended(beside)
                               and not every_process_came_to_the_last_wait() and not an_error_is_published())
        if decided[0]:
            end_at_once()

    def decided_by_the_thread() -> None:
        # The handler's, while the thread watches (it has each signal's byte before the handler runs): its decision
        # waited for, within DECIDED_WITHIN_S, and acted on; none by then, the stop is raised and the thread acts on
        # its own once it has decided. Not decided on the main thread: the question asks the store (a lock of
        # ranks_stop_together's, a thread started and joined), and the main thread, interrupted, may hold what it
        # takes: in a fresh store client's making (``_made_within``, _STAND_IN_LOCK held around its thread's start)
        # the handler waited for that lock for ever, and the thread, which had begun to decide, for the handler
        # (review r130: benchmarks/results/review_handler_inside_itself_2026-12-08/store_lock_probe*).
        until = time.monotonic() + DECIDED_WITHIN_S
        while not decided and time.monotonic() < until:
            time.sleep(_LOOK_S)
        if decided and decided[0]:
            end_at_once()

    # the handler has run on the main thread; it was woken once; the handler runs now. Lists, not threading.Event:
    # a handler runs between any two steps of the main thread, those of its own lines among them, and holds no lock
    # that it may meet again inside itself
    handled, woken, handling, watched = [], [], [], []

    def in_the_handler(signum: int) -> None:
        # Nothing in a handler run inside itself (a second stop as the first is decided: a job's SIGTERM and the
        # agent's, sent on, come together): the first decides and acts, and its handler raises nothing into the
        # first's (``raised_once``). ``handled`` was a threading.Event until the hundred-and-twenty-eighth session:
        # the second SIGTERM ran the handler inside the first's ``Event.set``, the Event's lock held, and its own
        # ``set`` waited for that lock for ever: no line said, the launch killed by the agent 30 s on (a CI run of the
        # hundred-and-twenty-seventh session: benchmarks/results/ci_sigterm_kill_hang_2026-12-07/).
        if handling:
            return
        handling.append(True)
        try:
            handled.append(True)
            if watched:
                decided_by_the_thread()
            else:  # the span's first and last steps, the thread not yet or no longer given the signals
                ended_at_once_where_one_has_ended(signum)
        finally:
            handling.clear()

    def as_it_comes(signum: int) -> None:
        if signum == signal.SIGINT:  # Ctrl-C's: its own handler (Python's, the last wait's) runs on the main thread
            wake()
            return
        ended_at_once_where_one_has_ended(signum)
        _main_thread_woken_once(handled, woken, signum)

    taken = _stops_taken()
    with stops_as_an_interrupt(first=in_the_handler, signums=taken), _a_wake_for_the_main_thread() as wake, \
            _asked_as_it_comes(as_it_comes, taken + ((signal.SIGINT,) if wake is not None else ()),
                               own=(WAKE,) if wake is not None else ()):
        _SPAN[:] = [beside]
        watched.append(True)
        try:
            yield
        finally:
            watched.clear()
            _SPAN.clear()


#: How long a launched predict's stop handler waits for its thread's decision (``decided_by_the_thread``), where the
#: longest it takes is about 5 s: the last wait's ``CATCH_UP_S`` (1 s), then the store asked (``ANSWER_S``, 1 s), a
#: fresh client made after a blip (``CONNECT_S`` twice, 1 s each) and asked again (1 s). Waited for in full only where
#: the main thread holds what the decision takes; it then raises its stop, lets go, and the thread decides and acts.
DECIDED_WITHIN_S = 10.0
_LOOK_S = 0.005


def _main_thread_woken_once(handled: list, woken: list, signum: int = signal.SIGTERM) -> None:
    """``signum`` (the stop that came: SIGTERM, SIGUSR1) sent to the main thread, once, where it has come but its
    handler has not run there. The kernel hands a signal sent to the process to any of its threads that does not block
    it; where that is not the main thread, Python's C handler runs on that thread and wakes no wait of the main thread's
    (``time.sleep``, a lock's, a queue's), which runs the handler only once it returns by itself: a launched predict's
    process asleep in its share of a case slept on, the main process waiting for it in a collective, until the agent's
    SIGKILL 30 s later, no line said. A thread starting as the signal comes can take it (its start sets its signal mask,
    and the kernel then looks at what is pending for the process): SIGTERM to a process in this span whose main thread
    slept, a thread of its own starting threads without pause, left that thread asleep in 3 and 5 of 20 tries, none
    since this (the hundred-and-fifteenth session: benchmarks/results/sigterm_on_another_thread_2026-12-06; the
    suspected cause of a CI run's one failure of that kind, not reproduced end to end). Sent to the main thread, it
    wakes such a wait, as one the kernel hands there does; a second SIGTERM raises nothing (``raised_once``), and one to
    a main thread in a C call that runs no handler (a collective) changes nothing. Once: this signal's own byte comes
    back to the thread that calls this."""
    if handled or woken:
        return
    woken.append(True)
    with contextlib.suppress(Exception):  # noqa: BLE001 - the main thread ended meanwhile: nothing to wake
        signal.pthread_kill(threading.main_thread().ident, signum)


#: The signal that wakes the main thread where the kernel handed a SIGINT to another of its threads
#: (``_a_wake_for_the_main_thread``): one no library here uses, ignored at its default, its handler doing nothing.
WAKE = getattr(signal, "SIGURG", None)


@contextlib.contextmanager
def _a_wake_for_the_main_thread() -> Iterator[Callable[[], None] | None]:
    """Inside, a call that wakes the main thread's wait (``time.sleep``, a lock's, a queue's, a future's), so that it
    runs the Python handlers of the signals that came meanwhile: ``WAKE`` sent to the main thread alone, whose handler
    does nothing, cuts the wait short (EINTR), and Python runs every handler pending before it waits again. For SIGINT,
    which the kernel may hand to any thread of the process, as SIGTERM (``_main_thread_woken_once``): Python's C handler
    then ran on that thread, and the main thread slept on, its KeyboardInterrupt raised only once its wait returned by
    itself. A launched predict's process 1 asleep in its share of a case, the main process waiting for it in the case's
    reduction, both outlived the agent's 30 s after a Ctrl-C, no line said (a CI run of the hundred-and-twenty-third
    session; benchmarks/results/ctrl_c_by_windows_hang_2026-12-07/). Not SIGINT sent on to the main thread, as SIGTERM
    is: where the kernel had handed it there already, as a rule, its handler would run twice, and a second Ctrl-C means
    something (the last wait's "Ctrl-C again to stop at once"), where a second SIGTERM raises nothing. None where
    ``WAKE`` has a handler of another's (or no such signal), off the main thread; its default is put back on leaving
    (a wake sent after it is ignored)."""
    if (WAKE is None or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(WAKE) is not signal.SIG_DFL):
        yield None
        return
    main_thread = threading.main_thread().ident

    def wake() -> None:
        with contextlib.suppress(Exception):  # noqa: BLE001 - the main thread ended meanwhile: nothing to wake
            signal.pthread_kill(main_thread, WAKE)

    signal.signal(WAKE, _woken)
    try:
        yield wake
    finally:
        signal.signal(WAKE, signal.SIG_DFL)


def _woken(signum: int, frame) -> None:
    """``WAKE``'s handler: nothing; the wait it cut short runs the pending ones (``_a_wake_for_the_main_thread``)."""


@contextlib.contextmanager
def said_once_until_the_processes_meet(say: Callable[[int], None]) -> Iterator[None]:
    """Until a launch's processes meet (predict's checks, its imports, the rendezvous): a job's SIGTERM ends this
    process at once, status 143, once ``say(signum)`` has said the caller's line (once on this node:
    ``say_once_on_this_node``; nothing is written before the meeting), where SIGTERM's default ended it saying nothing,
    -15, until the hundred-and-nineteenth session; the agent's SIGTERM to the processes left when one has ended still
    ends it at once with the default, saying nothing ("Before the processes meet", module docstring). SIGUSR1 ends it
    so too, its line naming it, status 138, whatever has ended (the agent never sends it; -10 and nothing said until
    the hundred-and-twentieth session). Acted on by a thread as the signal comes (``_asked_as_it_comes``), whatever the
    main thread is in: the rendezvous waits in C++, where no Python handler runs (interrupt_in_the_rendezvous.py).
    Nothing changes where ``/proc`` or torch elastic's ``LOCAL_WORLD_SIZE`` cannot tell the two apart, off the main
    thread, or where SIGTERM has a handler of the caller's (a SIGUSR1 handler of the caller's is kept)."""
    on_this_node = os.environ.get("LOCAL_WORLD_SIZE", "")
    beside = processes_beside_this_one()
    if (beside is None or not on_this_node.isdigit() or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return
    acting = threading.Lock()

    def as_it_comes(signum: int) -> None:
        if not acting.acquire(blocking=False):  # a second stop (the agent's SIGTERM, passing the job's on): under way
            return
        now = processes_beside_this_one()  # an ended process's cmdline is empty: a zombie is not among them
        if signum == signal.SIGTERM and (now is None or len(now) < int(on_this_node) - 1 or one_has_ended(beside)):
            end_at_once()  # the agent's ending of the processes left: it reaps the ended one before it signals
        with contextlib.suppress(Exception):  # whatever the saying meets (a reader gone), the process ends
            say(signum)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        exit_now(128 + signum)

    taken = _stops_taken()
    with _asked_as_it_comes(as_it_comes, taken):
        for signum in taken:  # after the wakeup fd: no stop goes unseen
            taken_over(signum, _acted_on_by_the_thread)
        try:
            yield
        finally:
            for signum in taken:  # before the thread ends: no stop goes unacted on
                signal.signal(signum, signal.SIG_DFL)


def _stops_taken() -> tuple[int, ...]:
    """The stops a span takes: SIGTERM (its caller has checked it has Python's default), and SIGUSR1 where it has
    Python's default (cli's handover put it back) or early_signals' handler standing in for it, not a handler of the
    caller's, which its thread would otherwise act on too (and send on to the main thread, the handler run twice)."""
    return tuple(signum for signum in STOPS if signum == signal.SIGTERM or at_pythons_default(signum))


def _acted_on_by_the_thread(signum: int, frame) -> None:
    """SIGTERM's and SIGUSR1's Python handler in ``said_once_until_the_processes_meet``: nothing, the thread acts on
    it."""


#: The processes beside this one (``processes_beside_this_one``) while ``sigterm_as_an_interrupt_unless_one_has_ended``
#: is active; empty outside it.
_SPAN: list[list[int]] = []


def beside_while_a_death_ends_at_once() -> list[int] | None:
    """The processes beside this one where a SIGTERM after one's death ends this process at once (inside
    ``sigterm_as_an_interrupt_unless_one_has_ended``, on Linux); None elsewhere (``peer_death``)."""
    return _SPAN[0] if _SPAN else None


@contextlib.contextmanager
def _asked_as_it_comes(ask: Callable[[int], None], signums: tuple[int, ...] = (signal.SIGTERM,),
                       own: tuple[int, ...] = ()) -> Iterator[None]:
    """``ask(signum)`` on a thread of its own as each signal of ``signums`` comes, whatever the main thread is in:
    Python's C-level handler writes each signal's number to the wakeup fd at once (``signal.set_wakeup_fd``). On
    leaving, the fd is put back, and the thread has read what was written before and ended, its pipe closed, before
    this returns: it was left to end on its own until the hundred-and-ninth session's review, still running with its
    pipe open just after leaving in 7 of 10 in-process tries, so a SIGTERM's byte could be acted on after the span was
    left. It is told to end by a byte of its own (``_SPAN_ENDED``), not by the pipe's end: a process forked inside the
    span holds the writing end for as long as it runs. The bytes of ``own`` (a signal the span sends itself: the
    wake's, ``_a_wake_for_the_main_thread``) are not passed on to the earlier fd, which would not have had them: an
    event loop's was given a SIGURG after each SIGINT from the hundred-and-twenty-fourth session until its review."""
    not_passed_on = (_SPAN_ENDED[0], *own)
    reading, writing = os.pipe()
    os.set_blocking(writing, False)  # as set_wakeup_fd asks
    try:
        previous = signal.set_wakeup_fd(writing, warn_on_full_buffer=False)
    except ValueError:  # not the main thread
        os.close(reading)
        os.close(writing)
        yield
        return

    def watch() -> None:
        with contextlib.suppress(OSError):
            while numbers := os.read(reading, 64):
                if previous != -1:  # an event loop's own fd, given every byte as it would have been
                    with contextlib.suppress(OSError):
                        os.write(previous, bytes(number for number in numbers if number not in not_passed_on))
                for signum in dict.fromkeys(number for number in numbers if number in signums):  # in order, once
                    ask(signum)
                if _SPAN_ENDED in numbers:
                    break
        os.close(reading)

    watcher = threading.Thread(target=watch, name="sigterm-as-it-comes", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        try:
            os.write(writing, _SPAN_ENDED)  # after the signals' bytes written before it: the thread reads them first
        except OSError:  # the pipe full (64 KiB of signals unread): its end ends the thread, unless a fork holds it
            os.close(writing)
            writing = -1
        watcher.join()
        if writing != -1:
            os.close(writing)


#: Written by the span's end to end ``_asked_as_it_comes``'s thread: no signal has the number 0.
_SPAN_ENDED = b"\0"


def end_at_once() -> None:
    """End this process with SIGTERM's default, as if no handler had been set: through libc, from any thread
    (Python's ``signal.signal`` works in the main thread alone). As the agent's SIGTERM after a death ends it: status
    -15, nothing said (also ``peer_death``'s, where gloo's error reaches this process before that SIGTERM)."""
    import ctypes

    with contextlib.suppress(Exception):
        sys.stderr.flush()
        libc = ctypes.CDLL(None)
        libc.signal.argtypes, libc.signal.restype = [ctypes.c_int, ctypes.c_void_p], ctypes.c_void_p
        libc.signal(signal.SIGTERM, 0)  # SIG_DFL, (void (*)(int)) 0 in Linux's signal.h
    # a thread that blocks SIGTERM (one a library started so) would leave it pending, and os._exit below say 143
    with contextlib.suppress(Exception):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    remove_own_multiprocessing_folder()  # the signal's default skips multiprocessing's clean-up, as os._exit does
    os.kill(os.getpid(), signal.SIGTERM)
    os._exit(128 + signal.SIGTERM)  # not reached: the signal's default ended the process


def _state(pid: int) -> str | None:
    fields = stat_fields(pid)
    return fields[0] if fields else None


def _parent(pid: int) -> int | None:
    fields = stat_fields(pid)
    return int(fields[1]) if fields else None


def _command_line(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read()
    except OSError:
        return None
