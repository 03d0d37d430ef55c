"""Writing a small text file (JSON, YAML, CSV) so that it is never seen half-written.

A run rewrites metrics.json at every validation and summary.json at the end; a benchmark replaces
its earlier result. Killed in the middle of a plain ``write_text``, any of them would leave a
truncated file in place of the good one. Checkpoints, exports and NIfTI files have their own atomic
writers (checkpoint.py, data/io.py), since they are folders or binary formats.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path


def write_text_atomically(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path``: readers see the previous file or the whole new one, never half of it.

    The text goes to a hidden temporary file in the same folder (so that ``os.replace`` is a rename
    on one filesystem) and replaces ``path`` once complete. Parent folders are created.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path
