"""Writing a file so that it is never seen half-written.

A run rewrites metrics.json at every validation and summary.json at the end; a benchmark replaces
its earlier result; the report and a saved model replace earlier ones. Killed in the middle of a
plain write, any of them would leave a truncated file in place of the good one. Checkpoints,
exports and NIfTI files have their own atomic writers (checkpoint.py, data/io.py), since they are
folders or need an fsync.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Callable


def replace_atomically(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Call ``write(temporary)`` and then put the result at ``path``: readers see the previous file or
    the whole new one, never half of it.

    The temporary file is hidden, in the same folder (so that ``os.replace`` is a rename on one
    filesystem), and named uniquely, so concurrent writers never share one; it is removed if
    ``write`` fails. Parent folders are created.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path


def write_text_atomically(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` with :func:`replace_atomically`."""
    return replace_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))
