"""Ctrl-C held while Python imports, and raised once the import is done: a package is never left half imported.

CPython 3.11's import machinery is not safe against a KeyboardInterrupt. One raised inside a package's import
(``datasets``, torch's compiler modules, ``sympy``, which a first fit imports in its first second or two) left
that package in ``sys.modules`` with submodules never bound to it, and every later fit of the same notebook
failed, ``AttributeError: partially initialized module 'datasets' has no attribute 'utils'``, until the kernel
was restarted (docs/known_issues.md; the next fit of 5 of 8 fresh processes in
benchmarks/results/ctrl_c_during_imports/). Inside ``interrupts_between_imports``, a SIGINT (Ctrl-C, Jupyter's
"interrupt", ``_thread.interrupt_main``) that lands while the main thread imports is said to have come, and raised
as the outermost import returns: at once where no import is under way, else after it (0.15-1.5 s later in that
folder's runs).

Python raises SIGINT in the main thread alone, where its handler runs between two of the interrupted code's
instructions: the handler looks down the stack for importlib's frames. Where it finds one, it asks again a little
later (``_thread.interrupt_main``, which runs the handler as a signal would). A second Ctrl-C while one is held is
raised at once, so that an import that does not return can still be stopped. Nothing is held in another thread, nor
where SIGINT is ignored or left to the system (a shell's background job), nor under a handler of the caller's own
that does not raise: those stay as they are.
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator

#: The modules of importlib's machinery, by the ``__name__`` their frames run under, frozen or not.
IMPORT_MACHINERY = frozenset({"importlib._bootstrap", "importlib._bootstrap_external"})
#: How long a held interrupt waits before the handler asks again whether the import is done.
ASK_AGAIN_S = 0.05


def importing(frame, below: frozenset[int] = frozenset()) -> bool:
    """Whether ``frame``, or a frame it was called from, runs importlib's machinery: an import is under way. The
    walk stops at a frame of ``below`` (by ``id``): one already on the stack as the holding began, such as the
    frames of a script being imported whose fit is the call (``import my_experiment`` in a notebook); there every
    Ctrl-C would have been held to the end of the fit."""
    while frame is not None and id(frame) not in below:
        if frame.f_globals.get("__name__") in IMPORT_MACHINERY:
            return True
        frame = frame.f_back
    return False


def _stack(frame) -> list:
    """``frame`` and every frame it was called from."""
    frames = []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames


class _HeldDuringImports:
    """The SIGINT handler inside ``interrupts_between_imports``: ``raising``'s own, but for the imports."""

    def __init__(self, raising, outside: list):
        self.raising = raising  # the handler it stands in for, which raises KeyboardInterrupt
        # the frames on the stack as the holding began, kept so that no frame of the body takes one's id
        self.outside, self.below = outside, frozenset(map(id, outside))
        self.came = False  # an interrupt is held until the import is done
        self.stopped = False  # the call is ending: an interrupt is noted, and raised once the handler is put back
        self.asked = False  # the handler runs for its own ask, not a Ctrl-C
        self.lock = threading.RLock()  # taken again by a second Ctrl-C's handler run inside the first's hold
        self.timer: threading.Timer | None = None

    def __call__(self, signum, frame) -> None:
        asked, self.asked = self.asked, False
        if asked and not self.came:  # an ask for an interrupt raised since (a second Ctrl-C's): as the call ends too
            return
        if self.stopped:
            self.came = True
            return
        if self.came and not asked:  # a second Ctrl-C: an import that never returns can be stopped all the same
            self._raise(signum, frame)
            return
        if not importing(frame, self.below):
            self._raise(signum, frame)
            return
        if not self.came:
            self.came = True
            # line and newline in one write: a launcher's agent, given a terminal's Ctrl-C too, logs on the same
            # stderr (launcher_report.say_whole says why; not imported here, so early in a command's start)
            sys.stderr.write("interrupt: a module is being imported; stopping once it is (an import stopped half way "
                             "leaves its package broken for this session; Ctrl-C again to stop at once)\n")
            sys.stderr.flush()
        with self.lock:
            self.timer = threading.Timer(ASK_AGAIN_S, self._ask_again)
            self.timer.daemon = True
            self.timer.start()

    def _raise(self, signum, frame) -> None:
        """The interrupt raised now, and no more asking for it."""
        self.came = False
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
        self.raising(signum, frame)

    def _ask_again(self) -> None:
        with self.lock:
            if self.timer is not None:  # not stopped since
                self.asked = True
                _thread.interrupt_main()

    def stop(self) -> None:
        """No more asking, and from here an interrupt is only noted (``came``), to be raised once put back."""
        self.stopped = True
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
            self.timer, self.outside = None, []


def raises_keyboard_interrupt(handler) -> bool:
    """Whether SIGINT's ``handler`` raises KeyboardInterrupt as Python's own does: Python's, or one held during
    imports in front of Python's (``inference_distributed`` holds such an interrupt to the end of its work)."""
    while isinstance(handler, _HeldDuringImports):
        handler = handler.raising
    return handler is signal.default_int_handler


@contextlib.contextmanager
def interrupts_between_imports() -> Iterator[None]:
    """Inside, a Ctrl-C that lands while the main thread imports is raised as the import returns (module
    docstring). On the main thread only, and only where SIGINT's handler raises KeyboardInterrupt as Python's does;
    an interrupt still held as the body ends is raised there."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not raises_keyboard_interrupt(previous) or isinstance(previous, _HeldDuringImports):
        yield  # ignored, the system's, a caller's own; or held already by an outer call
        return
    held = _HeldDuringImports(previous, _stack(sys._getframe()))
    signal.signal(signal.SIGINT, held)
    try:
        yield
    finally:
        _put_back(held, previous)
    if held.came:  # the body ended with an import the interrupt waited for: raised here, as it would have been there
        raise KeyboardInterrupt


def _put_back(held: _HeldDuringImports, previous) -> None:
    """``previous`` as SIGINT's handler again, where ``held`` still is (a launch in the body may have set its own,
    and kept it). A Ctrl-C, or the timer's last ask, that lands meanwhile is noted in ``held``: raised from here,
    it left ``held`` in place for the rest of the session (``signal.signal`` runs a pending handler first), until
    the hundred-and-fourth session's review. One that lands before ``stop`` has begun is raised there, and the
    handler is put back all the same."""
    try:
        held.stop()
    finally:
        held.stop()
        if signal.getsignal(signal.SIGINT) is held:
            signal.signal(signal.SIGINT, previous)
