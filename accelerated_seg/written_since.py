"""Which of a command's output files a stop came after, told by the files themselves.

A command that writes each output under a temporary name and renames it into place (``os.replace``:
``data.io.write_nifti``, ``files.write_files_together``) never changes a file in place: a file written since a moment
is one whose identity (its inode, size and times) is no longer the one noted then. A stop's line says from this what
is written whole: ``predict --input``'s label map and probabilities (predict_input_stop.py), evaluate's metrics.csv
and summary.json (evaluate_stop.py). Moved out of predict_input_stop.py in the hundred-and-twenty-first session, when
evaluate's stop came to need it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

from .sigterm import stopped_by


def _identity(path: Path) -> tuple | None:
    """What a new file in ``path``'s place changes (its inode, size and times); None where there is none."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


class WrittenSince:
    """``paths`` (None among them: no such output) as they stood when ``note`` was called, to tell at a stop which
    have been written since."""

    def __init__(self, *paths: Path | None):
        self.paths = [path for path in paths if path is not None]
        self.before: dict[Path, tuple | None] | None = None  # None: not noted yet, so nothing written since

    def note(self) -> None:
        """Each path as it stands now (one assignment: a stop inside notes none)."""
        self.before = {path: _identity(path) for path in self.paths}

    def written(self, path: Path | None) -> bool:
        """Whether ``path`` has been written since ``note``."""
        if path is None or self.before is None:
            return False
        now = _identity(path)
        return now is not None and now != self.before[path]


def synced(*paths: Path | None) -> None:
    """The folders of ``paths`` (None: none) synced, each once: the renames into them made durable, before a line
    says the files are written whole (a stop can come between a rename and the writer's own sync of its folder). A
    path that is a symbolic link was written through (``files.written_through``): its rename was into the target's
    folder, which is the one synced (the link's own, synced until the hundred-and-twentieth session's review, saw no
    rename)."""
    from .files import sync_directory

    for folder in dict.fromkeys(Path(os.path.realpath(path)).parent for path in paths if path is not None):
        sync_directory(folder)


class _StopLine(Protocol):
    def stopped_line(self, stopped: str) -> str: ...


Outputs = TypeVar("Outputs", bound=_StopLine)


def said_if_stopped(command: str, outputs: Callable[[bool], Outputs], work: Callable[[Outputs], int]) -> int:
    """``work``'s status, given its outputs as they stand as it begins (``outputs(True)``: noted); a stop (Ctrl-C,
    SIGTERM, SIGUSR1) anywhere in it said in one line of what they hold (``stopped_line``), then raised on, for
    ``cli.main`` to end with the stop's status. Noted inside the try: a stop as they are noted says nothing was written
    (``outputs(False)``); before it, such a stop said nothing (the hundred-and-twenty-first session's review). Its
    lines flushed inside too: a stop as a pipe's slow reader holds them is said. evaluate, plan --json and benchmark
    data|infer|predict each wrote this try of their own until that session's end."""
    noted = None
    try:
        noted = outputs(True)
        status = work(noted)
        sys.stdout.flush()
        return status
    except KeyboardInterrupt as interrupt:
        noted = noted or outputs(False)  # nothing written yet
        print(noted.stopped_line(stopped_by(command, interrupt)), file=sys.stderr)
        raise
