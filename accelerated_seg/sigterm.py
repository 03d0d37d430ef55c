"""SIGTERM stops one-process ``predict`` as Ctrl-C does, and says so; and, since the hundred-and-second session, the
commands that always run in one process (``cli.ONE_PROCESS_COMMANDS``: synth, evaluate, cache --prune, export, ...).

A scheduler's time limit sends SIGTERM (SLURM, then SIGKILL after its KillWait, 30 s by default), as do
``scancel``, ``kill`` and a container's stop. Python's default for it ends the process at once: until the
hundred-and-first session predict said nothing, the case being written stayed a hidden temporary, and the
log did not say how many cases were written. Raised as an interrupt (``Terminated``, a KeyboardInterrupt) on
the main thread, it goes the way Ctrl-C goes: the case being written ends and is said, nothing is begun
after, and the last line counts what is written, naming SIGTERM; the process ends with SIGTERM's status, 143.

Those died at once on SIGTERM until the hundred-and-second session, status -15: synth, evaluate and cache --prune
without the line Ctrl-C has them say (what is whole, what the same command does), and export left its
``<output>.partial/`` folder beside the output (and, of a sharded checkpoint, the whole copy of its weights in the
temporary folder). That line now begins "<command> stopped by SIGTERM" (``stopped_by``); the others end as on
Ctrl-C, their temporaries removed, with status 143.

A requeue's SIGUSR1 stops them as SIGTERM does, its line naming it, status 138 (``StoppedBySIGUSR1``): the
one-process commands since the hundred-and-eighteenth session, a one-process predict since the hundred-and-nineteenth
(it ended at once before, -10, nothing said, a map being written left under its hidden name).

Training has its own handling (``checkpoint.PreemptionSignals``: the loop saves and stops). A launched
predict (several processes) takes SIGTERM so too once its processes have met, except where it is the launcher's
agent ending the processes left when one has died, which end at once (launched_sigterm.py, since the
hundred-and-ninth session: until then every process of a launched predict ended at once, saying nothing), and
SIGUSR1 as its SIGTERM since the hundred-and-twentieth (it ended each process at once, -10, nothing said).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

from .early_signals import at_pythons_default, taken_over

#: The status a process that SIGTERM ended gives, as a shell reports one it killed (128 + 15).
EXIT_TERMINATED = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised on the main thread where Ctrl-C's KeyboardInterrupt would be (``sigterm_as_an_interrupt``)."""


class StoppedBySIGUSR1(KeyboardInterrupt):
    """SIGUSR1, raised as ``Terminated`` is, where a command takes it as its SIGTERM (``sigterm_as_an_interrupt``'s
    ``signum``): the one-process commands (``cli._sigterm_as_ctrl_c``), which it ended at once, status -10, nothing
    said: synth until the hundred-and-eighteenth session (a case file left under its hidden temporary name beside the
    folder's marker), the others until that session's review (export's ``<output>.partial/`` left)."""


#: The interrupt each signal that ``sigterm_as_an_interrupt`` takes raises.
INTERRUPTS = {signal.SIGTERM: Terminated, signal.SIGUSR1: StoppedBySIGUSR1}


def raised_once(first: Callable[[int], object] = lambda signum: None) -> Callable[[int, FrameType | None], None]:
    """A SIGTERM handler that raises ``Terminated`` the first time and does nothing after: the stop is under way by
    then, and a second SIGTERM (a second ``kill``, a wrapper passing on the one it got) raised as the case being
    written is waited for cut that wait short: the case went unsaid, and under Python 3.10 to 3.12 the process left
    without it, its hidden temporary half-written (an interrupted ``Thread.join`` takes the thread for ended, CPython
    issue 90882), until the hundred-and-first session's review. A stop that takes too long is for SIGKILL to end.
    ``first``: called with the signal's number as each SIGTERM comes, before anything else; it may end the process
    (launched_sigterm.py, which ends it at once for the agent's SIGTERM alone, never for a SIGUSR1). Set for several
    signals (``stops_as_an_interrupt``), it raises the interrupt of the one it is called for (SIGUSR1's
    ``StoppedBySIGUSR1``), the first of them alone."""
    raised = False  # handlers run on the main thread alone, one inside another at most

    def raise_terminated(signum: int, frame: FrameType | None) -> None:
        nonlocal raised
        # Marked before ``first``: a handler run inside this one (a second signal as ``first`` decides, which the
        # agent's SIGTERM sent on after a job's makes likely) raises nothing into it. Raised there until the
        # hundred-and-twenty-eighth session, it cut ``first``'s decision short (launched_sigterm's: whether a process
        # beside this one died, ending this one at once), the stop raised on the main thread as the thread decided.
        first_one, raised = not raised, True
        first(signum)
        if first_one:
            raise INTERRUPTS[signum](signal.Signals(signum).name)

    raise_terminated.raises_a_stop = True  # ``raises_a_stop``
    return raise_terminated


def raises_a_stop(handler: object) -> bool:
    """Whether ``handler`` (``signal.getsignal``'s) is a stop's (``raised_once``): one that raises SIGTERM's or
    SIGUSR1's interrupt, where training's ``checkpoint.PreemptionSignals`` only notes the signal for a save."""
    return getattr(handler, "raises_a_stop", False) is True


def stop_signal(interrupt: BaseException | None) -> int | None:
    """The signal whose stop ``interrupt`` is: SIGTERM for ``Terminated``, SIGUSR1 for ``StoppedBySIGUSR1``, or the one
    an interrupt raised in their place says it carried (``signum``, as ``inference_cases.PredictInterrupted`` does,
    with the count of cases written); None for Ctrl-C's (and for no interrupt)."""
    for signum, raised in INTERRUPTS.items():
        if isinstance(interrupt, raised):
            return signum
    return getattr(interrupt, "signum", None)


def by_sigterm(interrupt: BaseException) -> bool:
    """Whether ``interrupt`` is SIGTERM's (``stop_signal``)."""
    return stop_signal(interrupt) == signal.SIGTERM


def stopped_by(command: str, interrupt: BaseException) -> str:
    """How the line that says what ``interrupt`` left begins: "evaluate stopped by SIGTERM" for SIGTERM's,
    "evaluate stopped by SIGUSR1" for SIGUSR1's (``stop_signal``), "evaluate interrupted" for Ctrl-C's."""
    signum = stop_signal(interrupt)
    return f"{command} interrupted" if signum is None else f"{command} stopped by {signal.Signals(signum).name}"


def exit_status(interrupt: BaseException) -> int:
    """The status a command that ``interrupt`` stopped ends with, as a shell reports the signal's end: 143 for
    SIGTERM's, 138 for SIGUSR1's (``stop_signal``), 130 for Ctrl-C's."""
    return 128 + (stop_signal(interrupt) or signal.SIGINT)


@contextlib.contextmanager
def sigterm_as_an_interrupt(first: Callable[[int], object] = lambda signum: None,
                            signum: int = signal.SIGTERM) -> Iterator[None]:
    """While active, SIGTERM raises ``Terminated`` on the main thread, the first one alone (``raised_once``, which
    calls ``first`` as each comes). Only where Python's default is in place (a program that set its own handler, or an
    ignored SIGTERM, keeps it), or early_signals' handler standing in for it in a command's first seconds, replaced
    with no default between (``early_signals.taken_over``: a one-process predict's), and on the main thread, the only
    one a handler can be set from; Python's default is put back on leaving. ``signum``: the signal taken so, SIGUSR1
    raising ``StoppedBySIGUSR1``; a command taking both takes them together (``stops_as_an_interrupt``)."""
    with stops_as_an_interrupt(first, (signum,)):
        yield


@contextlib.contextmanager
def stops_as_an_interrupt(first: Callable[[int], object] = lambda signum: None,
                          signums: tuple[int, ...] = tuple(INTERRUPTS)) -> Iterator[None]:
    """``sigterm_as_an_interrupt`` for each of ``signums`` (a one-process command's SIGTERM and SIGUSR1), with one
    handler: the first of them alone is raised, whichever it is. Each taken apart, a SIGTERM after a SIGUSR1 (or the
    reverse: a requeue's notice, then the time limit's stop) was raised in the wait for the map being written, which
    it cut short: predict left it under its hidden name, unsaid, and its line named the second signal (the
    hundred-and-nineteenth session's review, benchmarks/results/review_predict_sigusr1_2026-12-06/)."""
    handler = raised_once(first)
    with contextlib.ExitStack() as taken:
        if threading.current_thread() is threading.main_thread():
            for signum in signums:
                if at_pythons_default(signum):
                    taken_over(signum, handler)
                    taken.callback(_put_back_the_default, signum)
        yield


#: The statuses a command that a stop ended returns (``exit_status``: Ctrl-C's 130, SIGUSR1's 138, SIGTERM's 143).
STOP_STATUSES = frozenset(128 + signum for signum in (signal.SIGINT, *INTERRUPTS))


def deaf_once_stopped(status: int, preempted: bool = False) -> None:
    """SIGTERM and SIGUSR1 ignored for what is left of a command-line process that a stop ended (``status`` one of
    ``STOP_STATUSES``), or whose training a notice stopped with a save (``preempted``, status 0, which a requeue
    reads): its line is said and its files are whole, so a second signal has nothing to change. The command's handling
    had put Python's defaults back as it ended, and the interpreter's shutdown after it (0.1-0.5 s of torch's and
    MONAI's teardown on 2 CPU cores) is long enough for a second signal to land in: a SIGUSR1 after a SIGTERM's stop
    ended predict with -10 (138 to a shell), a second SIGTERM with -15, where "a second changes nothing" (stopping.md)
    promised 143, and a second SIGTERM after a preempted train's line ended 3 of 6 such runs with -15, until the
    hundred-and-twenty-fifth session (helper h139's walk). Ignored, not handled: the shutdown sets a Python handler
    back to the default (``_PySignal_Fini``), never an ignored signal. On the main thread alone, and only where
    Python's default is in place (a caller's handler is left as it is); a shutdown that hangs is for SIGKILL (or
    Ctrl-C) to end, as a stop that takes too long is."""
    if not (status in STOP_STATUSES or preempted) or threading.current_thread() is not threading.main_thread():
        return
    for signum in INTERRUPTS:
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, signal.SIG_IGN)


def _put_back_the_default(signum: int = signal.SIGTERM) -> None:
    """Python's default for ``signum``, put back. ``signal.signal`` runs the handlers of signals pending before it sets
    one: a first SIGTERM come just then is raised there, and the default was left unset, every later SIGTERM then
    ignored by the handler left in place (the hundred-and-first session's review). Set, then that one raised. Any
    interrupt: a command taking SIGTERM and SIGUSR1 puts back one as the other is pending, whose interrupt left the
    first's handler in place until the hundred-and-eighteenth session's review."""
    try:
        signal.signal(signum, signal.SIG_DFL)
    except KeyboardInterrupt:  # Terminated, StoppedBySIGUSR1, Ctrl-C's
        signal.signal(signum, signal.SIG_DFL)  # nothing pending now
        raise
