"""A stop in a command's first seconds, before its own handling of signals is in: one line, and the signal's status.

A job's stop can come at any time: Slurm's SIGTERM (a time limit, ``scancel``), a requeue's SIGUSR1, a terminal's
Ctrl-C, in the first seconds too, while the command reads its arguments and imports torch, MONAI and accelerate (1-3
s on 2 CPU cores here; more for a launched rank). Each signal had Python's default there until the
hundred-and-eighteenth session: SIGTERM and SIGUSR1 ended the process at once, status -15 or -10 to a program reading
it and nothing said, and SIGINT's KeyboardInterrupt ended it with 130, nothing said either (the hundred-and-eighteenth
session's review, benchmarks/results/review_stopping_doc_2026-12-06/).

The command line's entry points call ``stopping_before_the_command`` first: ``cli.main`` run as the command (the
console script, ``python -m accelerated_seg``) and ``examples/train.py``. A plain ``import accelerated_seg`` (a
notebook's) and ``cli.main`` called from Python with its arguments leave the process's signals alone. From there
until ``handed_over``, where the command's own handling begins (``cli.main`` as it runs a command, a one-process
predict once its imports are done, ``checkpoint.PreemptionSignals`` as training begins, its handlers set in place of
ours first: ``taken_over``), SIGTERM, SIGUSR1 and SIGINT end the process at once, saying

    accelerated-seg predict stopped by SIGTERM before it began; nothing was written: run the same command again

on stderr (``interrupted (Ctrl-C)`` for SIGINT), with the status a shell gives the signal's end: 143, 138 or 130.
Nothing is written before those points, so nothing is lost, and nothing started there needs stopping (no loader
worker, no fork server); at once, rather than raised: the imports under way (torch's) may catch an exception and go
on, and a SIGTERM's 30 s before the scheduler's SIGKILL are not spent importing what will not run.

Two do not end the command at once:

- Training's SIGUSR1, a scheduler's notice to save (examples/slurm/train.sbatch requeues the job on a preempted
  run's status 0) is noted (``noting``) and handed to ``PreemptionSignals``, which acts on it as on one come in the
  setup: every rank stops after the first step and saves. Ended at once, one rank of a launch would leave the others
  waiting for it in the rendezvous, and the job would not be requeued.
- SIGTERM in a process of a launch of several (``launch_env.launched_processes``): until the launch's processes have
  met, its default is how torch's agent ends the processes left when one has ended (``PreemptionSignals`` keeps it
  so, on the same test). A launch of one (``torchrun --nproc_per_node 1``) has none left to end: its SIGTERM is taken
  as a lone process's (it kept its default there, -15 and nothing said, until the hundred-and-eighteenth session's
  review, benchmarks/results/review_early_signals_2026-12-06/). A launched predict says this line all the same from
  its checks on, once on each node, 143, where no process of the launch has ended
  (``launched_sigterm.said_once_until_the_processes_meet``, since the hundred-and-nineteenth session): the agent reaps
  an ended process before it signals the others, so the processes left tell its SIGTERM from a job's.

Nothing is changed where a handler of the caller's is in place, off the main thread, or in a process forked before
the handover (it gets each signal's default back: a loader's worker must not take its rank's stop for its own).
Python's own start and the console script's ``import accelerated_seg.cli`` (0.075-0.09 s here at a light load;
0.3-0.37 s from the process's start at load 7-9, the hundred-and-eighteenth session's review) come before ``main``: a
signal then still finds its default.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterable

from .exit_now import exit_now
from .launch_env import launched_processes
from .launcher_death import launcher_mark
from .launcher_report import say_once_on_this_node

#: Each signal taken here, with Python's default for it: a handler set by anyone else is left in place.
PYTHON_DEFAULTS = {signal.SIGTERM: signal.SIG_DFL, signal.SIGUSR1: signal.SIG_DFL,
                   signal.SIGINT: signal.default_int_handler}
#: How the line says each signal stopped the command (``sigterm.stopped_by``'s words).
STOPPED = {signal.SIGTERM: "stopped by SIGTERM", signal.SIGUSR1: "stopped by SIGUSR1",
           signal.SIGINT: "interrupted (Ctrl-C)"}

_taken: dict[int, object] = {}  # each signal whose handler is ours, with the one put back at the handover
_noting: frozenset[int] = frozenset()  # the signals noted for the command rather than ending it
_noted: list[int] = []  # those that came, first first
_command = "accelerated-seg"  # as the line names it


def stopping_before_the_command(command: str, noting: Iterable[int] = ()) -> None:
    """From here until ``handed_over``, SIGTERM, SIGUSR1 and SIGINT end this process at once with one line naming
    ``command`` (``accelerated-seg train``) and the signal's status, but for those of ``noting``, which are noted for
    the command (module docstring). On the main thread alone, and only where a signal has Python's default."""
    global _command, _noting
    if threading.current_thread() is not threading.main_thread():
        return
    _command, _noting = command, frozenset(noting)
    for signum, default in PYTHON_DEFAULTS.items():
        if signum == signal.SIGTERM and launched_processes() > 1:
            continue  # the agent's way to end the processes left when one has ended (module docstring)
        if signum not in _taken and signal.getsignal(signum) is default:
            signal.signal(signum, _stop_before_the_command)
            _taken[signum] = default


def handed_over() -> int | None:
    """The command's own handling begins: each signal's handler taken here is put back (Python's default), and the
    first signal noted for the command (``noting``) is returned for it to act on as if it came now; None where none
    came, or where ``stopping_before_the_command`` took nothing (a notebook's ``train``). A signal come just before
    is acted on here: ``signal.signal`` runs the handlers of the signals pending before it sets one."""
    _put_back()
    noted = _noted[0] if _noted else None
    _noted.clear()
    return noted


def taken_over(signum: int, handler) -> object:
    """``handler`` set for ``signum`` by the command's own handling, in place of ours with no moment of Python's default
    between (``PreemptionSignals``: ``handed_over`` first had put SIGUSR1's default back, and one come in the 20-35 us
    before the loop's handler ended a training run at once, -10, nothing said, until the hundred-and-eighteenth
    session's review); then ``handed_over`` for the rest. Returns the handler before, the default where it was ours: a
    signal come just before is acted on as ``signal.signal`` sets it (noted, or ending the process)."""
    previous = signal.signal(signum, handler)
    if previous is _stop_before_the_command:
        previous = _taken.pop(signum, PYTHON_DEFAULTS[signum])
    return previous


def at_pythons_default(signum: int) -> bool:
    """Whether ``signum`` has Python's default, or our handler standing in for it until the handover: a command's own
    handling that takes a signal only from its default (``sigterm.sigterm_as_an_interrupt``) takes it from ours too,
    with ``taken_over``, so that no default comes between (a one-process predict's SIGTERM and SIGUSR1)."""
    return signal.getsignal(signum) in (PYTHON_DEFAULTS[signum], _stop_before_the_command)


def stopped_before_it_began(command: str, signum: int) -> str:
    """The line said when ``signum`` ends ``command`` before it began."""
    return f"{command} {STOPPED[signum]} before it began; nothing was written: run the same command again"


def _stop_before_the_command(signum: int, frame) -> None:
    if signum in _noting:
        _noted.append(signum)
        return
    line = stopped_before_it_began(_command, signum)
    if launcher_mark() is not None:  # once on this node where a terminal's Ctrl-C reached every rank
        say_once_on_this_node(line, sys.stderr, line, error=False)
    else:
        print(line, file=sys.stderr, flush=True)
    try:
        sys.stdout.flush()
    except (OSError, ValueError):  # its reader gone, or closed: the line is said on stderr
        pass
    exit_now(128 + signum)


def _put_back() -> None:
    """Each signal's handler taken here, where it is still ours, back to Python's default."""
    while _taken:
        signum, default = _taken.popitem()
        if signal.getsignal(signum) is _stop_before_the_command:
            signal.signal(signum, default)


def _forked() -> None:
    """In a process forked before the handover, each signal taken here has its default again, nothing noted."""
    try:
        _put_back()
    except ValueError:  # forked from a thread Python does not take for the child's main one
        _taken.clear()
    _noted.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)
