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
import re
import threading
import warnings
from collections.abc import Iterator


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


@contextlib.contextmanager
def recorded() -> Iterator[list[warnings.WarningMessage]]:
    """Every warning raised in the block, recorded and not shown whatever the filters say (for estimator's
    ``_said_again``), as ``catch_warnings(record=True)`` under ``simplefilter("always")`` records them, without a change
    of the filters Python counts: each (that pair made three a call) resets every module's record of the warnings it
    said, and the "once" filter's, so a loop of ``Segmentation.predict`` or ``evaluate`` said each warning of its
    inputs at every call, where Python says one once (until the hundred-and-twenty-fifth session). The "always"
    entry goes first in the filters' own list and out again (``_in_place``), and ``warnings.showwarning`` records.
    Python looks in a line's record before the filters: a warning it said at its own line already (no orientation,
    of a ``predict_file`` call on the same scan before) is not recorded, nor said again, as Python would not say it
    twice. Not a ``showwarning`` hook alone: the caller's filters would judge each warning at predict_file's line, in
    its temporary file's words (an "error" raised there, naming /tmp/tmp.../input_0000.nii.gz), and that line's
    record would say it once for all the lines calling predict
    (benchmarks/results/predict_warnings_once_2026-12-07/recording.txt). The hook is one for all the records in
    progress (``_record``): two threads' predicts overlapping each record their own thread's warnings, and the last
    out puts the caller's hook back (each its own left a dead record's hook in for good: r118's review). Under
    Python 3.14's context-aware filters alike (``_in_place``): its catch_warnings, taken there until the
    hundred-and-twenty-sixth session, reset those records all the same, and recorded none of a thread that does not
    inherit the caller's context (the pipeline's, reading the scans), nor any where ``warnings.showwarning`` is a
    hook that does not call Python's own (``logging.captureWarnings(True)``'s; MONAI's calls it): 3.14 records in its
    context's log from Python's own hook alone, and calls a replaced one first."""
    raised = []
    with _in_place(_entry("always"), record=raised):
        yield raised


@contextlib.contextmanager
def quieted(*warned: tuple[str, type[Warning]]) -> Iterator[None]:
    """The warnings ``warned`` (the regular expression their message starts with, their category) ignored in the
    block, as ``catch_warnings`` and ``filterwarnings("ignore", ...)`` ignore them, without their three changes of
    the filters a call (``recorded`` says what each reset: a loop of ``predict_file`` of an export MONAI warns of
    building, whose every call loads the model, and of ``Segmentation.evaluate``, which scores each case under it,
    said each warning of their scans at every call until r118's review)."""
    with _in_place(*(_entry("ignore", re.compile(message, re.I), category) for message, category in warned)):
        yield


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """Every warning ignored in the block, as ``catch_warnings`` and ``simplefilter("ignore")`` ignore them, without
    their changes of the filters (``recorded`` says what each reset): the processes of a launched
    ``predict_distributed`` but the main one, around the work every process repeats alike
    (``inference_distributed._warned_by_the_main_process``). "ignore" writes in no record of a line's warnings, so a
    warning of such a process's own cases is still said once, at its first call, not at every call of a loop
    (until the hundred-and-twenty-sixth session)."""
    with _in_place(_entry("ignore")):
        yield


@contextlib.contextmanager
def _in_place(*entries: tuple, record: list | None = None) -> Iterator[None]:
    """``entries`` (``_entry``'s) first in every list of filters a warning of the block is judged by
    (``_filter_lists``), and out again: the filters' version stays (``_filters_mutated`` not called), so no registry
    of a line's warnings is emptied, and "always" and "ignore" write in none (CPython's ``_warnings.c`` reads the
    filters at each warning, 3.11 to 3.14, and looks in the line's registry first; the version is what tells a
    registry the filters changed, nothing else keeps them). Each entry is taken out of the list it went in by
    ``list.remove`` (``_taken_out``), one step of C, which no other thread's change of the list comes between (the
    GIL held throughout, as no Python code runs in it: ``_entry`` says why; a free-threaded build's lock of the list
    alike), and which, an entry being equal to itself alone, takes ours and not an equal entry of the caller's. Found by
    its index and then deleted until the hundred-and-twenty-seventh session: another thread's ``warnings.simplefilter``
    between the two (Python's ``_add_filter`` takes no lock before 3.14) had that thread's entry deleted and ours left
    in for good, a ``resetwarnings`` an IndexError raised (benchmarks/results/own_warnings_take_out_race_2026-12-07/).
    An entry no longer there (a ``resetwarnings``, a catch_warnings of another thread putting its list back) is no
    error. Not as Python's catch_warnings, which puts back the whole list it found as it ends: what other threads put in
    meanwhile would go with it, and its
    ``_filters_mutated`` empties every line's registry, the reset these blocks are here to avoid. The block noted
    as the calling thread's meanwhile (``_noted``): ``record``, where it records."""
    lists = _filter_lists()
    for filters in lists:
        filters[:0] = entries
    try:
        with _noted(record, entries):
            yield
    finally:
        for filters in lists:
            for entry in entries:
                _taken_out(entry, filters)


def _taken_out(entry: tuple, filters: list) -> None:
    """``entry`` taken out of ``filters`` (``_in_place``'s ``list.remove``), and again while a copy of the list, one
    step of C too, still holds it. ``list.remove`` compares each entry before ours with ours, in C where they hold
    what ``filterwarnings`` puts in; an entry of someone's whose module or message is an object compared in Python
    (a library's matcher with an ``__eq__``, its action and category ours) lets another thread in there, and that
    thread's block taking out an entry before it shifted ours past the ``remove``, which went on and left ours in
    for good, no error said (a switch simulated there: benchmarks/results/review_own_warnings_take_out_2026-12-07/
    eq_race.py; h148's Left, until r126's review). The copy is read in Python, but it is ours alone; by timing no such
    pass was met in 3 s of blocks (each way about 10^5)."""
    while any(kept is entry for kept in filters[:]):
        with contextlib.suppress(ValueError):
            filters.remove(entry)


def _entry(action: str, message: re.Pattern | None = None, category: type[Warning] = Warning) -> tuple:
    """A filter entry as ``warnings.filterwarnings`` makes one, its module ``_EveryModule()`` in place of None: it
    matches every module as None does, and makes the entry equal to no other, an equal-looking one of the caller's
    included, so that ``list.remove`` finds ours alone; the other entries it passes are told apart in C (strings,
    classes, patterns, numbers, and the mark's own ``==``, object's), with no Python code run."""
    return (action, message, category, _EveryModule(), 0)


class _EveryModule:
    """The module of an entry of own_warnings' in the filters: Python's warnings call its ``match`` as they call a
    pattern's, with a warning's module (3.11 to 3.14), or with its file's path and a position where
    ``warn_explicit`` is given no module (``_py_warnings._match_filename`` on CPython's main branch, read, not run),
    and it matches all; it equals nothing but itself. Its ``match`` is ``slice``, a type of C's (``slice(text)``, or
    of a path and positions, is an object, true), not a function of Python's: CPython's ``get_filter`` walks the
    filters by index while a warning is judged, and Python code there lets another thread in, whose block taking
    its entries out shifts the list under the walk and has it pass the next entry by unjudged (the caller's
    "error", a ``silenced``'s "ignore"; 52 to 67 of about 270000 warnings of a thread while another looped
    ``quieted`` blocks, and the line's registry, written by the default the walk fell to, then kept the caller's
    "error" from that line for good: benchmarks/results/review_own_warnings_take_out_2026-12-07/scan_race.py).
    A function of Python's until r126's review."""

    __slots__ = ()

    match = slice  # no Python code in a warning's judging: no thread comes between (above)

    def __repr__(self) -> str:
        return "<every module: an entry of accelerated_seg.own_warnings>"


@contextlib.contextmanager
def _noted(raised: list | None, entries: tuple) -> Iterator[None]:
    """This thread's block among those in progress (``_RECORDINGS``) while it lasts: a record's list, or None for a
    ``silenced`` or ``quieted``, whose ``entries`` ``_record`` reads. The first record in progress puts the hook in,
    the last out puts the caller's back (each its own left a dead record's hook in for good: r118's review)."""
    mine = (threading.get_ident(), raised, entries)
    with _RECORDING_LOCK:
        if raised is not None and not _records():
            _CALLERS_HOOK[0], warnings.showwarning = warnings.showwarning, _record
        _RECORDINGS.append(mine)
    try:
        yield
    finally:
        with _RECORDING_LOCK:
            del _RECORDINGS[next(index for index, block in enumerate(_RECORDINGS) if block is mine)]
            if raised is not None and not _records() and warnings.showwarning is _record:  # one put in since: the
                warnings.showwarning = _CALLERS_HOOK[0]  # caller's


def _filter_lists() -> list[list]:
    """The lists of filters a warning raised now is judged by: ``warnings.filters``, the module's; and under Python
    3.14's ``-X context_aware_warnings`` (a free-threaded build's default), inside a catch_warnings (the caller's, or
    pytest's around a test), that context's own list, which 3.14's ``get_filter`` reads instead of the module's, never
    both: the ``_filters`` of the value of ``warnings._warnings_context``, a ContextVar, as ``get_filter`` finds it
    (3.14's ``warnings`` exports the variable in every version read; ``_get_filters``, which reads it too, in some).
    Both lists are taken: the context's for the calling thread and the threads that inherit its context (``-X
    thread_inherit_context``, a free-threaded build's default), the module's for a thread started without it (the
    pipeline's in a default build), as the module's list was every thread's before. Read in CPython 3.14's
    ``Lib/_py_warnings.py`` (``_get_context``, ``catch_warnings``) and ``Python/_warnings.c``
    (``get_warnings_context_filters``), not run: no Python 3.14 was at hand. Before 3.14, the module's list alone."""
    module_filters = warnings.filters
    context_var = getattr(warnings, "_warnings_context", None)
    context_filters = getattr(context_var.get(None), "_filters", None) if context_var is not None else None
    if context_filters is None or context_filters is module_filters:  # none set, or the global context's (the same)
        return [module_filters]
    return [context_filters, module_filters]


#: The blocks of own_warnings in progress (the thread that began each, its record or None, its entries), oldest
#: first, and the hook of the caller's the first record put aside; under the lock.
_RECORDINGS: list[tuple[int, list | None, tuple]] = []
_CALLERS_HOOK: list = [None]
_RECORDING_LOCK = threading.RLock()  # re-entered by a warning of a signal handler run while held


def _records() -> list[list]:
    """The records in progress, oldest first (under the lock)."""
    return [raised for _, raised, _ in _RECORDINGS if raised is not None]


def _record(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` while ``recorded`` records: the warning goes to the newest record of the thread that
    raised it, or of the thread that thread works for (``working_for``: predict's pipeline threads), or, raised by
    a thread of neither (another caller's), to the newest of all; with none in progress (the hook put back by a
    catch_warnings of another thread that saw it), to the caller's. One that a ``silenced`` or ``quieted`` of its
    own thread ignores, newer than that thread's record, is dropped, as that block's "ignore" would: only another
    thread's "always", put in later and so before it in the filters (every thread's), let it by; that thread's record
    took it until the hundred-and-twenty-seventh session (a ``predict_file``'s MONAI words of building its model,
    said by a Segmentation.predict of another thread). A pipeline thread's warning went to the newest record of all
    until r126's review: two threads' ``Segmentation.predict`` at once said each other's scans' warnings
    (benchmarks/results/review_own_warnings_take_out_2026-12-07/threads.py)."""
    with _RECORDING_LOCK:
        hook, records = _CALLERS_HOOK[0], _records()[-1:]
        for thread in (threading.get_ident(), _WORKING_FOR.thread):
            own = _threads_own_record(thread, message, category)
            if own is _IGNORED:
                return
            if own is not None:
                records = [own]
                break
    if records:
        records[-1].append(warnings.WarningMessage(message, category, filename, lineno, file, line))
    elif hook is not None and hook is not _record:
        hook(message, category, filename, lineno, file, line)
    else:
        warnings._showwarning_orig(message, category, filename, lineno, file, line)


_IGNORED = object()  # _threads_own_record's answer for a warning a block of the thread ignores


def _threads_own_record(thread: int | None, message, category) -> list | object | None:
    """The newest record of ``thread``'s blocks in progress (under the lock), ``_IGNORED`` where a ``silenced`` or
    ``quieted`` of its, newer than that record, takes the warning, or None where the thread has no record."""
    for began, raised, entries in reversed(_RECORDINGS):
        if began != thread:
            continue
        if raised is not None:
            return raised
        if any(_ignores(entry, message, category) for entry in entries):
            return _IGNORED
    return None


def working_for(thread: int) -> None:
    """The calling thread's warnings, while a record is in progress, go where those of ``thread`` go (``_record``):
    the initializer of predict's pipeline threads (``inference_pipeline.pipelined``), given the ident of the thread
    that starts them. Python keeps no thread's parent."""
    _WORKING_FOR.thread = thread


class _WorkingFor(threading.local):
    """The thread the calling thread works for (``working_for``), one value a thread; None where it works for
    none (a class's default: a missing attribute's AttributeError cost a record about 0.5 us a warning)."""

    thread: int | None = None


_WORKING_FOR = _WorkingFor()


def _ignores(entry: tuple, message, category) -> bool:
    """Whether an entry of ``silenced``'s or ``quieted``'s takes the warning, as Python's filters judge it."""
    action, pattern, of_category = entry[:3]
    return action == "ignore" and issubclass(category, of_category) and \
        (pattern is None or pattern.match(str(message)) is not None)
