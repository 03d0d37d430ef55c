"""accelerated_seg's own warnings: a category of their own, and how the command line says them.

From Python they are warnings like any other (a UserWarning, which ``warnings.filterwarnings`` and
``pytest.warns`` take). The command line says each as one line, ``warning: <message>``, as ``evaluate``
and ``check`` say theirs: Python's own form added the library's file and line and the source line that
raised it (``…/inference.py:436: UserWarning: …`` and ``images = _read_channels(...)`` under it), noise to
someone who typed a command (until the ninety-first session). Other libraries' warnings (MONAI's, torch's,
nibabel's) keep Python's form, which says where to look in their code.

What a command prints as part of its own account (training's and ``benchmark train``'s through
``accelerator.print``, so from the main process alone; ``check``'s and ``evaluate``'s) reads the same,
``warning: <message>``, on stdout beside the lines it qualifies: a log of a run keeps it next to the strategy
or the step it is about. Those began ``WARNING:`` until the ninety-second session.
"""

from __future__ import annotations

import contextlib
import warnings


class AcceleratedSegWarning(UserWarning):
    """Something that works, but perhaps not as its user means it (a scan without orientation, an export
    whose preprocessing code is older, an output folder that cannot be locked); the message names the file
    or setting and what to do."""


@contextlib.contextmanager
def said_as_lines():
    """Our warnings formatted as ``warning: <message>`` until the block ends, the others as before.

    Only the text is changed (``warnings.formatwarning``): the filters (said once per place, ``-W``,
    a non-main process's silence) and the writing (to stderr, a closed stderr ignored) stay Python's.
    MONAI's import replaces ``warnings.showwarning`` for good, keeping the one it found, so that one is
    left alone: a replacement taken back when the block ends would be kept by MONAI's."""
    python_format = warnings.formatwarning

    def formatted(message, category, filename, lineno, line=None) -> str:
        if issubclass(category, AcceleratedSegWarning):
            return f"warning: {message}\n"
        return python_format(message, category, filename, lineno, line)

    warnings.formatwarning = formatted
    try:
        yield
    finally:
        warnings.formatwarning = python_format
