"""A command's printed lines said whatever bytes the paths in them hold.

Linux passes a file name's bytes through as they are, and a name saved in Latin-1 (``r\\xe9sultats``, a byte that is
not UTF-8) reaches Python as a surrogate escape (``'r\\udce9sultats'``), which a UTF-8 stream whose error handler is
strict cannot encode: ``print(f"wrote {path}")`` raised UnicodeEncodeError. Python's stdout is strict in a UTF-8
locale (``LANG=en_US.UTF-8``: most desktops and clusters) and under ``PYTHONIOENCODING=utf-8``; only the C locale
(Python's UTF-8 mode) passes the bytes through (surrogateescape). So ``predict --output`` such a folder wrote every
map and then ended in a traceback, status 1; ``synth``, ``export``, ``evaluate``, ``check``, ``cache`` and training's
lines alike, each after its work or in place of its one error line (until the hundred-and-twenty-third session,
``benchmarks/results/printed_paths_2026-12-07/``).

``paths_printable`` sets such a stream to show each of those bytes as ``\\xNN``, the byte's value, and any other
character the stream's encoding lacks as Python's stderr shows it (``\\xe9``, ``\\u65e5``: backslashreplace). stderr
is set alike, so one path reads the same in a command's error line as in its ``wrote`` line: Python's own stderr
shows the escaped byte as ``\\udce9``. A stream that passes bytes through (surrogateescape: the C locale, UTF-8 mode)
is left so: what reads the command's output there gets the name's own bytes, as ``find`` and ``ls`` give a pipe.
A newline in a name is printed as it is (the streams cannot tell a path's newline from a line's end).
"""

from __future__ import annotations

import codecs
import contextlib
import sys
from collections.abc import Iterator

#: The error handler ``paths_printable`` gives the streams (codecs.register_error, at import).
SHOWN_AS_BYTES = "accelerated_seg.shown_as_bytes"

#: The error handlers a stream is set from: Python's stdout in a UTF-8 locale (strict), and its stderr always.
_REFUSING = ("strict", "backslashreplace")


def _shown(error: UnicodeError) -> tuple[str, int]:
    """The characters ``error`` could not encode as text the stream can: a surrogate escape (U+DC80-U+DCFF, the byte
    it stands for) as ``\\xNN``, anything else as backslashreplace writes it."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    unencodable = error.object[error.start:error.end]
    shown = "".join(f"\\x{ord(character) - 0xDC00:02x}" if 0xDC80 <= ord(character) <= 0xDCFF
                    else character.encode("ascii", "backslashreplace").decode("ascii") for character in unencodable)
    return shown, error.end


codecs.register_error(SHOWN_AS_BYTES, _shown)


@contextlib.contextmanager
def paths_printable() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` set to show what their encoding cannot write (``_shown``) until the block
    ends, then put back as they were (``cli.main`` called from Python leaves its caller's streams as it found them).
    A stream that is no ``TextIOWrapper`` (a notebook's, a StringIO: both take any text) or that passes bytes through
    (surrogateescape) is left as it is."""
    changed = []
    for stream in (sys.stdout, sys.stderr):
        handler = getattr(stream, "errors", None)
        if handler in _REFUSING and callable(getattr(stream, "reconfigure", None)):
            try:
                stream.reconfigure(errors=SHOWN_AS_BYTES)
            except (OSError, ValueError):  # closed, or its flush met a reader gone: left as it is
                continue
            changed.append((stream, handler))
    try:
        yield
    finally:
        for stream, handler in changed:
            with contextlib.suppress(OSError, ValueError):  # a reader gone: cli._reader_went_away says it
                stream.reconfigure(errors=handler)
