"""A run's prints must not stop it once nobody reads them any more.

A run's output often goes through a pipe: ``accelerate launch ... | tee run.log``, a scheduler's log
collector. When the reader dies first (a SIGKILL of the launcher's process group takes ``tee`` with
it), every later write raises BrokenPipeError, Python ignoring SIGPIPE: the first print after the
stop signal ended rank 0 during its save, or validation's print before it, losing every step since
the last checkpoint, and the other rank with it in a broken collective (the eighty-sixth session's
review). While a run is on, ``sys.stdout`` and ``sys.stderr`` are wrapped so that a write that finds
its reader gone sends that file descriptor to /dev/null instead: the stream, the progress bar that
holds it and the interpreter's last flush then write nowhere, and the run saves and stops. What the
run left in a stream's buffer is flushed under the guard as the run ends, so a reader gone by then is
met there too.
"""

from __future__ import annotations

import contextlib
import os
import sys


class _Surviving:
    """A text stream whose writes and flushes survive a reader that is gone; the rest is the stream's."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._to_nowhere()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._to_nowhere()

    def _to_nowhere(self) -> None:
        """The descriptor itself, so that what holds the stream or the descriptor writes nowhere too."""
        nowhere = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(nowhere, self._stream.fileno())
        finally:
            os.close(nowhere)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextlib.contextmanager
def surviving_a_closed_output():
    """``sys.stdout`` and ``sys.stderr`` wrapped (see the module) until the block ends. A stream with no
    file descriptor (pytest's capture, a StringIO) is no pipe and is left as it is; a notebook's has one
    and is wrapped, which changes nothing there (it forwards to the kernel, and never raises). Only
    ``write`` and ``flush`` are guarded: nothing on a run's path writes otherwise. A logger whose handler
    took the stream before the wrap (MONAI's, DeepSpeed's) needs no guard: logging reports a write that
    fails on ``sys.stderr`` and goes on, as ``warnings`` ignores one."""
    wrapped = {}
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            stream.fileno()
        except (AttributeError, OSError, ValueError):
            continue
        wrapped[name] = _Surviving(stream)
        setattr(sys, name, wrapped[name])
    failed = True
    try:
        yield
        failed = False
    finally:
        unflushed = []
        for name, surviving in wrapped.items():
            # What the run printed may wait in the stream's buffer still (up to 8 KiB where stdout is a
            # pipe and Python runs without -u, which torchrun gives its ranks): flushed here, under the
            # guard, a reader gone by now is met here. Until the eighty-seventh session the CLI's own
            # flush met it after a whole run, or a saved preemption: status 141, and a one-process
            # ``accelerate launch`` failed with status 1.
            try:
                surviving.flush()
            except Exception as error:  # any other (ENOSPC: stdout redirected to a full disk's file)
                unflushed.append(error)
            if isinstance(getattr(sys, name), _Surviving):  # given back whatever the flush met
                setattr(sys, name, surviving._stream)
        # A run's own error is what to report: a flush's beside it turned the one-line message of a
        # refused run (or of a checkpoint a full disk could not hold) into an OSError traceback
        if unflushed and not failed:
            raise unflushed[0]
