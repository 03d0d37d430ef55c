"""The step an interrupted launched run stopped after, handed from its main process to the process that launched it.

One process's fit learns the step from its KeyboardInterrupt (``interrupted_run`` sets its ``step``). The estimator's
own launch (``Segmentation(..., multi_gpu=True)``, accelerate's ``notebook_launcher``) does not: each process ends
with ``os._exit`` (``ranks_stop_together``), so nothing it knew comes back but its status, and the estimator said
the newest checkpoint's step for it, "after step N or later of M", until the hundred-and-tenth session. The launching
process names a file for the step (``fit_in_launched_process``'s argument); the main process writes it atomically
as it says its line, so a reader finds the whole number or no file (a resume stopped in its setup writes its
checkpoint's step since the hundred-and-eleventh session: ``RunSoFar.stopped_after``); where it finds none (a new run
stopped before its loop was set up, which has no step, or processes killed) the estimator says what it said before.
"""
from __future__ import annotations

import json
from pathlib import Path

from .files import write_text_atomically


def write_stopped_step(path: Path, step: int) -> None:
    """Write ``step`` to ``path``, whole or not at all. Said as a stop is said: a disk that refuses it (full,
    read-only) leaves the launching process to say what it says without it, not the line unsaid."""
    try:
        write_text_atomically(path, json.dumps({"step": step}))
    except OSError:
        pass


def stopped_step_read(path: Path) -> int | None:
    """The step ``write_stopped_step`` wrote to ``path``, None where it wrote none."""
    try:
        written = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    step = written.get("step") if isinstance(written, dict) else None
    return step if isinstance(step, int) and not isinstance(step, bool) else None
