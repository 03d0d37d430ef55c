"""A Ctrl-C that Python drops inside a ``__del__`` raised all the same, between the files a loop reads.

Python runs a signal's handler between two instructions of whatever code runs then, a finalizer's too: nibabel's
``ArrayProxy.__del__``, which closes the file a header was read from, runs after every header a check reads. An
exception raised in a ``__del__`` cannot leave it: CPython hands it to ``sys.unraisablehook``, whose default prints
"Exception ignored in: <function ArrayProxy.__del__ ...>" and a traceback ending ``KeyboardInterrupt``, and the
program goes on. So ``accelerated-seg check`` went on past such a Ctrl-C (docs/known_issues.md, until the
hundred-and-seventh session), and past such a SIGTERM for good: its handler (``sigterm.raised_once``) acts on the
first alone.

Inside ``interrupts_kept`` the hook takes such an interrupt in, printing nothing (the command stops and says its own
line), and ``raise_a_dropped_interrupt``, called between files, raises it there; one still kept as the body ends is
raised as it ends. Not a SIGINT handler that notes each interrupt as it raises it: an interrupt that a caller catches
on purpose and goes on from (predict's case being finished) would be raised again. The hook sees the dropped ones
alone. Any other exception a finalizer raises goes to the hook that was there, its traceback said as before. On the
main thread only, the one that signals' handlers run on.

Not only nibabel's: any finalizer or weakref callback, importlib's ``_get_module_lock.<locals>.cb`` among them, which
runs as every import of a module ends. A training's setup (``train``: from its settings' checks through the launch's
rendezvous to the first step) and a launched predict's start (its checks and the inference stack's imports, to the
rendezvous) run inside ``interrupts_kept``; the rendezvous (``interrupt_in_the_rendezvous``) raises one kept before
it waits. Until the hundred-and-twenty-seventh session such a Ctrl-C was printed there, "Exception ignored in:
<function _get_module_lock.<locals>.cb ...>", and lost: a rank sent SIGINT alone went on, trained and exported
(docs/known_issues.md).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import TypeVar

_Item = TypeVar("_Item")


class _KeptInterrupts:
    """``sys.unraisablehook`` inside ``interrupts_kept``: an interrupt dropped by a finalizer kept (the first), any
    other exception handed to the hook it stands in for."""

    def __init__(self, previous):
        self.previous = previous
        self.dropped: KeyboardInterrupt | None = None
        self.ended = False  # its ``interrupts_kept`` left: it keeps nothing more, wherever it is still called from

    def __call__(self, unraisable) -> None:
        # a signal's interrupt is raised on the main thread alone: one another thread's finalizer drops is that
        # thread's own (its code raised it), not a Ctrl-C, and goes to the hook that was there as before
        if (not issubclass(unraisable.exc_type, KeyboardInterrupt) or not _on_the_main_thread()
                or self.ended):
            self.previous(unraisable)
            return
        if self.dropped is None:  # SIGTERM's ``Terminated`` kept as such, to end with its status
            interrupt = unraisable.exc_value if unraisable.exc_value is not None else unraisable.exc_type()
            # without its traceback, whose frames hold the object being finalized
            self.dropped = interrupt.with_traceback(None)


def _on_the_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _keeping() -> _KeptInterrupts | None:
    """The hook of the ``interrupts_kept`` the main thread is inside, if it is: one whose block has ended may still be
    in place, where another hook set inside the block was taken away after it and its own put back."""
    hook = sys.unraisablehook
    return hook if isinstance(hook, _KeptInterrupts) and not hook.ended else None


def raise_a_dropped_interrupt() -> None:
    """Raise the interrupt a finalizer dropped inside ``interrupts_kept``, if one did; on the main thread alone (a
    thread checking cases side by side leaves it to the main thread's ``interrupts_kept``)."""
    kept = _keeping()
    if kept is not None and kept.dropped is not None and _on_the_main_thread():
        dropped, kept.dropped = kept.dropped, None
        raise dropped


def between_files(items: Iterable[_Item]) -> Iterator[_Item]:
    """``items`` one by one, an interrupt dropped while the one before was read raised before the next is taken
    (``raise_a_dropped_interrupt``): for a comprehension that reads a file for each."""
    for item in items:
        raise_a_dropped_interrupt()
        yield item


@contextlib.contextmanager
def interrupts_kept() -> Iterator[None]:
    """Inside, an interrupt dropped by a finalizer is kept for ``raise_a_dropped_interrupt`` (module docstring); one
    still kept as the body ends is raised there. The hook that was there is put back on leaving. Nothing changes off
    the main thread; inside an outer ``interrupts_kept`` its hook goes on keeping, and one it keeps is raised as this
    body ends all the same (a check's loop inside training's setup raises it where it did outside)."""
    if not _on_the_main_thread():
        yield
        return
    if _keeping() is not None:
        yield
        raise_a_dropped_interrupt()  # the body ended without an exception of its own
        return
    kept = _KeptInterrupts(sys.unraisablehook)
    sys.unraisablehook = kept
    try:
        yield
    finally:
        kept.ended = True  # where it stays in place (below), or is put back later, it passes everything on
        if sys.unraisablehook is kept:  # else another hook set meanwhile (pytest's, a caller's) is left to its owner
            sys.unraisablehook = kept.previous
    if kept.dropped is not None:  # the body ended without an exception of its own
        raise kept.dropped
