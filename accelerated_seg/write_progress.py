"""Whether a write another thread does under a lock is still making progress, for the main process's end at a stop.

At a stop of a launch of several, the main process's watcher waits for a write under ``stopping_together``'s lock
(a case's maps, a checkpoint) before it says the line naming what is written whole (``ranks_stop_together``). Under
torch elastic its agent SIGKILLs the process 30 s after its SIGTERM, so that wait ends at ``LINE_BY_S`` (25 s) and the
write is said cut short. Outside it (srun, mpirun, a launcher of one's own) nothing ends the process, and a write that
is only long (a 512x512x400 probability map takes 68 s on 2 cores: benchmarks/results/stop_end_bounds_2026-12-06/
map_write_time.txt) was cut short all the same, its case lost to the next run, where it used to finish (the
hundred-and-seventeenth session, until its review). Here the write's own thread tells a long write from a hung one:
one that runs (its CPU time) or writes (its bytes handed to the kernel) is making progress; one on a hung network
filesystem or writing to a pipe no one reads does neither. Linux's ``/proc``; elsewhere nothing is known, and the write
is taken for hung.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
from collections.abc import Iterator


class WritingLock:
    """``threading.Lock``, knowing the thread that holds it (``holder``, its native id; None where free), for its
    progress to be read (``progress``). What ``stopping_together`` yields."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.holder: int | None = None

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        taken = self._lock.acquire(blocking, timeout)
        if taken:
            self.holder = threading.get_native_id()
        return taken

    def release(self) -> None:
        self.holder = None
        self._lock.release()

    def locked(self) -> bool:
        return self._lock.locked()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc_info) -> None:
        self.release()


def under_an_agent() -> bool:
    """Whether torch elastic's agent runs this process (torchrun, ``accelerate launch``): its SIGKILL follows its
    SIGTERM within 30 s (``ranks_stop_together.AGENT_KILL_S``). ``launcher_death.LAUNCHER_MARKS``'s mark of it."""
    return "TORCHELASTIC_RUN_ID" in os.environ


def progress(thread_id: int | None) -> tuple[int, int] | None:
    """Thread ``thread_id``'s CPU time (clock ticks) and bytes written so far (``wchar``: handed to the kernel, a
    pipe's or a file's), both of which stop growing where a write hangs; None where unknown (no such thread, not
    Linux)."""
    if thread_id is None:
        return None
    try:
        with open(f"/proc/self/task/{thread_id}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rpartition(")")[2].split()  # the name before ")" may hold spaces
        with open(f"/proc/self/task/{thread_id}/io", encoding="ascii") as io:
            written = next(int(line.split()[1]) for line in io if line.startswith("wchar:"))
        return int(fields[11]) + int(fields[12]), written  # utime and stime, stat's 14th and 15th fields
    except (OSError, ValueError, IndexError, StopIteration):
        return None


@contextlib.contextmanager
def ended_by_a_further_signal() -> Iterator[None]:
    """SIGINT and SIGTERM at their default inside: one ends the process at once, as it ends any program (130, 143).
    Where the main process waits on for a write making progress, past the bound the stop's first signal was given
    (``ranks_stop_together``): its watcher has made it deaf to SIGTERM (``_deaf_to_sigterm``), and its main thread,
    in a collective or waiting for that watcher, runs no Python handler of SIGINT. Through libc, from any thread;
    put back as they were on the way out. Nothing changes where there is no C library to ask."""
    try:
        libc = ctypes.CDLL(None)
        libc.signal.argtypes, libc.signal.restype = [ctypes.c_int, ctypes.c_void_p], ctypes.c_void_p
    except Exception:  # noqa: BLE001 - no C library (Windows): as it was
        yield
        return
    before = {number: libc.signal(number, 0) for number in (signal.SIGINT, signal.SIGTERM)}  # 0: SIG_DFL
    try:
        yield
    finally:
        for number, handler in before.items():
            libc.signal(number, handler)
