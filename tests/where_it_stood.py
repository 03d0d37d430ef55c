"""Where a launched test's process stood, should its launch be held: written by the process itself, still alive
``AFTER_S`` after the test's stop began, for the test's failure message (``where_each_process_stood``).

A CI run's launch of tests/sigterm_before_a_kill_predict.py was held to torch's agent's SIGKILL, 30 s after its SIGTERM,
and said nothing: its log told neither where each process waited nor whether the stop was published, and 206 launches
since did not hold so (docs/known_issues.md, Open; benchmarks/results/ci_sigterm_kill_hang_2026-12-07/). Now each
process of that launch, ``AFTER_S`` after the time the test's stop began (the killed process's KILLED_AT), writes into
the test's folder every thread's Python stack (``stood.<rank>.stacks``: faulthandler's own thread, which needs no GIL,
whatever the process's threads are in) and its signal state and what it knows of the stop (``stood.<rank>.txt``:
``/proc``'s SigBlk, SigPnd, SigIgn and SigCgt, the process's and each thread's; what the worker adds). A process that
ends first writes nothing: a passing launch's end within 0.6-3.3 s of KILLED_AT (206 launches, load up to 9.3) leaves no
file, its stacks' file, open from the stop's begin, removed as it ends (``forget``). A launch held before the stop began
(no KILLED_AT) writes the same at ``by``: the test's STOOD_BY, 20 s before its own bound, whose message holds them too
(its review r124). Written by a thread of its own started before any other, with every signal blocked from its first
instruction: it never takes a signal meant for the process, which would change what the test looks at (which thread the
kernel hands a job's SIGTERM to: launched_sigterm.py's ``_main_thread_woken_once``). What a failure message then holds,
on a launch made to hang two ways: that folder's forced_hang.py and its output (the hundred-and-twenty-sixth session's
helper h142)."""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

#: Seconds after the stop began at which a process still alive writes where it stood: past every passing launch's end
#: (0.6-3.3 s after KILLED_AT in 206 launches, load up to 9.3), well inside torch's agent's SIGKILL, 30 s after its
#: SIGTERM, which comes with the stop.
AFTER_S = 12.0
#: How long after the stacks the notes are taken (``noted_if_held``).
NOTES_AFTER_S = 0.5
#: How often the thread looks for the stop's begin (its time written to a file by the killed process): the stacks'
#: time is counted from the time written, not from the look.
LOOK_S = 0.2
#: /proc/<pid>/status's lines kept: the process's signal state, and how many threads; of each thread, its own (the
#: signals sent to it alone, pending, and those it blocks).
STATUS_LINES = ("State", "Threads", "SigQ", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
THREAD_LINES = ("State", "SigPnd", "SigBlk")


def noted_if_held(begun: Path, folder: Path, rank: str, notes: Callable[[], list[str]] = list,
                  by: float = float("inf")) -> Callable[[], None]:
    """Start this process's thread that, once ``begun`` holds a time (``time.time()``'s), writes where this process
    (``rank``) stood ``AFTER_S`` after it into ``folder`` (module docstring), ``notes()``' lines added to its signal
    state; at ``by`` (a ``time.time()``) where ``begun`` is still not written then: a launch held before the stop
    began, for the test's own bound's message. Returns ``forget``: called as the process ends as the test wants it
    to, before ``AFTER_S`` (a passing launch's), it cancels the stacks and removes their file; never raises. Call
    before any other thread starts: every signal is blocked in this one from its start (a thread inherits the mask of
    the one that starts it)."""
    forgotten, lock, stacks = [], threading.Lock(), folder / f"stood.{rank}.stacks"
    opened: list = []  # the stacks' file, once the stop has begun
    due: list[float] = []  # when they are written (``time.time()``'s)

    def forget() -> None:
        with contextlib.suppress(Exception):  # noqa: BLE001 - the process ends now, whatever this meets
            with lock:
                forgotten.append(True)
                if opened and time.time() < due[0]:  # not where the stacks are written already: it was held
                    faulthandler.cancel_dump_traceback_later()
                    opened[0].close()
                    stacks.unlink(missing_ok=True)

    def watch() -> None:
        while not begun.exists() and time.time() < by:
            time.sleep(LOOK_S)
        with contextlib.suppress(Exception):  # noqa: BLE001 - a test's help: never the process's end
            begun_at = float(begun.read_text()) if begun.exists() else None
            at = by if begun_at is None else begun_at + AFTER_S
            when = "with the stop not begun" if begun_at is None else f"{AFTER_S:.0f} s after the stop began"
            with lock:
                if forgotten:
                    return
                due.append(at)
                opened.append(open(stacks, "w"))
                opened[0].write(f"process {rank} (pid {os.getpid()}): every thread's stack {when}, innermost first\n")
                opened[0].flush()  # before faulthandler writes to its file descriptor
                faulthandler.dump_traceback_later(max(0.01, at - time.time()), exit=False, file=opened[0])
            # just after the stacks, whose threads' then are not the notes' own asks of the launch's store
            time.sleep(max(0.0, at + NOTES_AFTER_S - time.time()))
            _written_whole(folder / f"stood.{rank}.txt", process_state() + _asked(notes))

    every = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        threading.Thread(target=watch, name="where-it-stood", daemon=True).start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, every)
    return forget


def process_state(pid: int | str = "self") -> list[str]:
    """``/proc``'s lines of a process's state (this one's by default), and each thread's name, wait channel and signal
    state."""
    lines = [f"process {os.getpid() if pid == 'self' else pid}, {time.time():.3f}: "
             + "; ".join(_status(f"/proc/{pid}/status"))]
    with contextlib.suppress(OSError):
        for task in sorted(os.listdir(f"/proc/{pid}/task"), key=int):
            with contextlib.suppress(OSError):
                name = Path(f"/proc/{pid}/task/{task}/comm").read_text().strip()
                wchan = Path(f"/proc/{pid}/task/{task}/wchan").read_text().strip()
                status = _status(f"/proc/{pid}/task/{task}/status", THREAD_LINES)
                lines.append(f"    thread {task} {name} (in {wchan}): " + "; ".join(status))
    return lines


def _status(path: str, kept: tuple[str, ...] = STATUS_LINES) -> list[str]:
    try:
        return [line.replace("\t", " ") for line in Path(path).read_text().splitlines() if line.split(":")[0] in kept]
    except OSError as error:
        return [str(error)]


def _asked(notes: Callable[[], list[str]]) -> list[str]:
    try:
        return notes()
    except Exception as error:  # noqa: BLE001 - said in the file, as the rest is
        return [f"notes failed: {error!r}"]


def _written_whole(path: Path, lines: list[str]) -> None:
    """``lines`` into ``path`` under another name, then renamed: the test reads it whole, or not at all."""
    path.with_suffix(".part").write_text("\n".join(lines) + "\n")
    path.with_suffix(".part").rename(path)


def where_each_process_stood(folder: Path) -> str:
    """For a failure message: what each process of the launch wrote of where it stood (``noted_if_held``), each file
    under its name; empty where none was held."""
    return "".join(f"\n--- {path.name}\n{path.read_text(errors='replace')}"
                   for path in sorted(folder.glob("stood.*")) if path.suffix in (".stacks", ".txt"))
