"""own_warnings' records and silences under Python 3.14's context-aware filters (``-X context_aware_warnings``, a
free-threaded build's default), simulated on this Python: 3.14 judges a warning raised inside a catch_warnings by
that context's own list (the ``_filters`` of ``warnings._warnings_context``'s value), not the module's
``warnings.filters``, and its catch_warnings still empties every line's record of the warnings it said. The real 3.14
was not run here. And on this Python, the filters as they were after a block interrupted, reset inside, ended
while another thread's is in progress, or met at its end by another thread's change of the filters; and what a
thread's record takes of other threads' warnings."""

import contextvars
import operator
import re
import sys
import threading
import types
import warnings

import pytest

from accelerated_seg import own_warnings
from accelerated_seg.own_warnings import quieted, recorded, silenced

BLOCKS = [recorded, lambda: quieted(("MONAI's words", UserWarning)), silenced]
BLOCK_NAMES = ["recorded", "quieted", "silenced"]


@pytest.fixture
def context_aware(monkeypatch):
    """Python 3.14 under ``-X context_aware_warnings``, as own_warnings reads it (``_filter_lists``):
    ``warnings._warnings_context`` holding the context the caller is in, whose list of filters the test gives
    (``set_context``). The flag itself is not read, as 3.14's ``get_filter`` reads the variable alone."""
    context_var = contextvars.ContextVar("warnings_context")
    monkeypatch.setattr(warnings, "_warnings_context", context_var, raising=False)
    mutations = []
    mutated = warnings._filters_mutated
    monkeypatch.setattr(warnings, "_filters_mutated", lambda: (mutations.append(1), mutated())[1])
    tokens = []

    def set_context(filters: list) -> list:
        """The context's list set; the changes of the filters counted from here."""
        tokens.append(context_var.set(types.SimpleNamespace(_filters=filters)))
        mutations.clear()
        return mutations

    yield set_context
    for token in reversed(tokens):
        context_var.reset(token)


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_NAMES)
def test_under_context_aware_filters_a_loop_says_a_warning_of_the_callers_once_as_python_does(block, context_aware):
    """Under 3.14's context-aware filters ``recorded`` and ``quieted`` took catch_warnings (until the
    hundred-and-twenty-sixth session), whose every entry and exit resets Python's records of the lines that said a
    warning: a loop of predicts or evaluates said each warning at every call, where Python says one once."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        mutations = context_aware(warnings.filters)  # the caller's context's list: this Python reads it
        for _ in range(3):
            warnings.warn("a warning of the caller's, once at its line", UserWarning)
            with block():
                warnings.warn("MONAI's words, unsaid", UserWarning)
        assert [str(warning.message) for warning in seen] == ["a warning of the caller's, once at its line"]
        assert not mutations


def test_under_context_aware_filters_the_entries_go_in_the_callers_context_and_the_modules_list(context_aware):
    """3.14 reads a caller's catch_warnings context's list alone, never the module's, and a thread that does not
    inherit the caller's context (the pipeline's, in a default build) the module's: "always" and "ignore" go in both,
    first, and out again, the warnings of the block recorded, none of the filters changed."""
    context = [("default", None, Warning, None, 0)]
    module = list(warnings.filters)
    mutations = context_aware(context)
    with recorded() as raised:
        assert context[0] is warnings.filters[0] and context[0][:3] == ("always", None, Warning)
        assert context[0][3].match("any.module") and context[0][3].match("/a/file", 3)  # every module, every file
        assert context[0][4] == 0
        assert context[1:] == [("default", None, Warning, None, 0)] and warnings.filters[1:] == module
        warnings.warn("a scan's warning", UserWarning)
    assert [str(warning.message) for warning in raised] == ["a scan's warning"]
    with quieted(("MONAI's words", UserWarning)):
        assert context[0][0] == warnings.filters[0][0] == "ignore"
        assert context[0][1].pattern == warnings.filters[0][1].pattern == "MONAI's words"
    assert context == [("default", None, Warning, None, 0)] and warnings.filters == module
    assert not mutations


@pytest.mark.parametrize("block", [recorded, lambda: quieted(("MONAI's words", UserWarning), ("torch's", Warning)),
                                   silenced], ids=["recorded", "quieted", "silenced"])
def test_an_interrupt_or_a_reset_inside_leaves_the_filters_as_they_were(block):
    """A Ctrl-C inside each block takes its entries out, the caller's list kept (the same object, the same entries
    in the same order); a ``warnings.resetwarnings()`` inside, which took them out already, ends the block without
    an error, the list left as the reset left it (review r122)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        filters, entries = warnings.filters, list(warnings.filters)
        with pytest.raises(KeyboardInterrupt):
            with block():
                raise KeyboardInterrupt
        assert warnings.filters is filters and all(map(operator.is_, warnings.filters, entries))
        assert len(warnings.filters) == len(entries)
        with block():
            warnings.resetwarnings()
        assert warnings.filters is filters and warnings.filters == []


@pytest.mark.parametrize("order", ["silenced ends first", "recorded ends first"])
def test_a_threads_silence_and_anothers_record_ending_in_either_order_leave_the_filters_as_they_were(order):
    """A launched predict's shared work silenced in one thread while another thread's Segmentation.predict records:
    either ending first takes out its own entry alone, none left behind (review r122)."""
    filters, entries = warnings.filters, list(warnings.filters)
    entered, leave = [threading.Event(), threading.Event()], [threading.Event(), threading.Event()]

    def run(index, block):
        with block():
            entered[index].set()
            leave[index].wait(30)

    threads = [threading.Thread(target=run, args=(0, silenced)), threading.Thread(target=run, args=(1, recorded))]
    for index, thread in enumerate(threads):
        thread.start()
        assert entered[index].wait(30)
    assert [entry[0] for entry in warnings.filters[:2]] == ["always", "ignore"]
    for index in ((0, 1) if order == "silenced ends first" else (1, 0)):
        leave[index].set()
        threads[index].join(30)
    assert warnings.filters is filters and all(map(operator.is_, warnings.filters, entries))
    assert len(warnings.filters) == len(entries)


class _SwitchAt:
    """A thread switch simulated at the ``k``-th bytecode run in own_warnings' frames once ``armed``: ``other``, the
    other thread's call, run there (``sys.settrace`` with ``f_trace_opcodes``; CPython switches threads only between
    bytecodes, and at fewer places than each)."""

    def __init__(self, k: int, other):
        self.k, self.other, self.count, self.armed = k, other, 0, False

    def __call__(self, frame, event, arg):
        if frame.f_code.co_filename != own_warnings.__file__:
            return None
        frame.f_trace_opcodes, frame.f_trace_lines = True, False
        return self.opcode

    def opcode(self, frame, event, arg):
        if event == "opcode" and self.armed:
            if self.count == self.k:
                self.other()
            self.count += 1
        return self.opcode


def _ended_with_a_switch_at(block, k: int, other) -> int:
    """``block`` entered and left, ``other`` run at the k-th bytecode of its end; the bytecodes its end ran."""
    switch, tracer = _SwitchAt(k, other), sys.gettrace()
    try:
        with block():
            sys.settrace(switch)
            switch.armed = True
    finally:
        sys.settrace(tracer)
    return switch.count


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_NAMES)
def test_a_filter_another_thread_adds_as_a_block_ends_is_kept_and_the_blocks_entry_alone_taken_out(block):
    """Another thread's ``warnings.simplefilter`` at any bytecode of a block's end: its entry kept, first, the
    block's taken out, the caller's as they were. The block's entry was found by its index and then deleted: the
    other thread's, put in first between the two, was deleted in its place, and the block's "ignore" or "always" left
    in the filters for good (until the hundred-and-twenty-seventh session)."""
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        entries = list(warnings.filters)
        ends = _ended_with_a_switch_at(block, -1, None)
        assert ends > 0
        for k in range(ends):
            _ended_with_a_switch_at(block, k, lambda: warnings.simplefilter("error", ResourceWarning))
            theirs = warnings.filters[0]
            assert theirs == ("error", None, ResourceWarning, None, 0), (k, warnings.filters)
            assert len(warnings.filters) == len(entries) + 1 and all(map(operator.is_, warnings.filters[1:], entries))
            warnings.filters.remove(theirs)


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_NAMES)
def test_a_reset_by_another_thread_as_a_block_ends_is_no_error(block):
    """Another thread's ``warnings.resetwarnings()`` at any bytecode of a block's end: no error, the filters left
    empty, as the reset left them. Between the block's finding of its entry and its deleting, an IndexError
    (until the hundred-and-twenty-seventh session)."""
    with warnings.catch_warnings():
        warnings.resetwarnings()  # the filters as each run below finds them: the take-out reads them all
        warnings.simplefilter("default")
        filters = warnings.filters
        ends = _ended_with_a_switch_at(block, -1, None)
        for k in range(ends):
            warnings.simplefilter("default")
            assert _ended_with_a_switch_at(block, k, warnings.resetwarnings) > k
            assert warnings.filters is filters and warnings.filters == [], k


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_NAMES)
def test_a_filter_equal_to_a_blocks_own_put_in_while_it_lasts_stays_after_it(block):
    """A ``simplefilter("ignore")``, a ``simplefilter("always")`` and a ``filterwarnings("ignore", "MONAI's words")``
    of the caller's (or another thread's) inside a block, equal to ``silenced``'s, ``recorded``'s and ``quieted``'s
    own entries but for the mark of their module: they stay, first, after the block, its own entry alone taken out.
    Python's ``list.remove`` takes the first entry equal to the one it is given: an entry equal to the caller's in
    every field would have taken the caller's out in its place."""
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        entries = list(warnings.filters)
        with block():
            warnings.simplefilter("ignore")
            warnings.simplefilter("always")
            warnings.filterwarnings("ignore", "MONAI's words", UserWarning)
        assert [entry[:2] for entry in warnings.filters[:3]] == [("ignore", re.compile("MONAI's words", re.I)),
                                                                 ("always", None), ("ignore", None)]
        assert all(entry[3] is None for entry in warnings.filters[:3])
        assert len(warnings.filters) == len(entries) + 3 and all(map(operator.is_, warnings.filters[3:], entries))


class _ModuleGlob:
    """A library's module matcher, put in the filters by hand, compared in Python."""

    def __init__(self, glob: str):
        self.glob = glob

    def match(self, module: str) -> bool:
        return module.startswith(self.glob.rstrip("*"))

    def __eq__(self, other) -> bool:
        return isinstance(other, _ModuleGlob) and other.glob == self.glob

    __hash__ = object.__hash__


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_NAMES)
def test_a_blocks_entry_is_taken_out_past_an_entry_compared_in_python_while_another_threads_ends(block):
    """An entry of a library's before the block's own, equal to it but for its module, a matcher whose ``__eq__`` is
    Python's, and before that another thread's ``silenced`` entry, which ends at that ``__eq__`` (a thread switch
    simulated there through ``sys.settrace``): the block's entry is taken out all the same, the library's kept.
    ``list.remove`` went on at the next index, past the block's entry shifted back: left in for good, no error said
    (h148's Left, until r126's review)."""
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        entries = list(warnings.filters)
        others, ended, tracer = silenced(), [], sys.gettrace()
        others.__enter__()

        def at_its_eq(frame, event, arg):
            if event == "call" and frame.f_code is _ModuleGlob.__eq__.__code__ and not ended:
                ended.append(1)
                others.__exit__(None, None, None)

        with block():
            ours = warnings.filters[0]
            theirs = (*ours[:3], _ModuleGlob("somelib.*"), 0)
            warnings.filters[:2] = [warnings.filters[1], theirs, ours]  # the other thread's first, then theirs, ours
            sys.settrace(at_its_eq)
        sys.settrace(tracer)
        assert ended
        assert warnings.filters[0] is theirs and all(map(operator.is_, warnings.filters[1:], entries))
        assert len(warnings.filters) == len(entries) + 1, warnings.filters


@pytest.mark.parametrize("behind", ["the caller's error", "the warner's silenced"])
def test_another_threads_block_ending_as_a_warning_is_judged_passes_no_entry_by(behind):
    """Another thread's ``quieted`` (build_from_spec's MONAI words, which a scan's warning does not match) ending
    while a warning is judged, at the first Python code the judging runs (a thread switch simulated there through
    ``sys.settrace``): the entry behind it still judges the warning, the caller's "error" raising it, the warner's own
    ``silenced`` ignoring it. CPython walks the filters by index; the mark's ``match``, a function of Python's, let
    the other thread's take-out shift the list under the walk, which passed the next entry by: the warning said by
    the default, and the line's registry then kept the caller's "error" from that line for good (until r126's
    review)."""
    def warned() -> bool:
        """The scan's warning, the other thread's block ending at the first Python call inside; raised or not."""
        others, ended, tracer = quieted(("MONAI's words", UserWarning)), [], sys.gettrace()
        others.__enter__()

        def at_a_call(frame, event, arg):
            if event == "call" and not ended:
                ended.append(frame.f_code.co_name)
                others.__exit__(None, None, None)

        sys.settrace(at_a_call)
        try:
            warnings.warn("a scan's words", UserWarning)
            raised = False
        except UserWarning:
            raised = True
        finally:
            sys.settrace(tracer)
            if not ended:
                others.__exit__(None, None, None)
        return raised

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        if behind == "the caller's error":
            warnings.simplefilter("error", UserWarning)
            assert warned() and warned(), warnings.filters  # and again: no registry of the line keeps it from it
        else:
            with silenced():
                assert not warned()
    assert said == []
    assert not any(isinstance(entry[3], own_warnings._EveryModule) for entry in warnings.filters)


@pytest.mark.parametrize("block", [silenced, lambda: quieted(("MONAI's words", UserWarning))],
                         ids=["silenced", "quieted"])
def test_a_threads_record_takes_its_own_and_its_pipelines_warnings_not_those_another_thread_ignores(block):
    """A Segmentation.predict's record, begun in one thread while another thread's block ignores MONAI's words (a
    predict_file building its model, quieted; a launched predict's shared work, silenced): that thread's warning,
    let by the record's "always" before its "ignore" in the filters, is neither recorded nor said; the record's own
    thread's and a thread it starts (predict's pipeline) are recorded. The other thread's went into the record, said
    again by predict as its own (until the hundred-and-twenty-seventh session)."""
    ignoring, recording, warned, done = (threading.Event() for _ in range(4))

    def other_thread():
        with block():
            ignoring.set()
            recording.wait(30)
            warnings.warn("MONAI's words, in the other thread's block", UserWarning)
            warned.set()
            done.wait(30)

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("default")
        other = threading.Thread(target=other_thread)
        other.start()
        assert ignoring.wait(30)
        try:
            with recorded() as raised:
                recording.set()
                assert warned.wait(30)
                warnings.warn("the record's own thread's", UserWarning)
                pipeline = threading.Thread(target=warnings.warn, args=("its pipeline's", UserWarning))
                pipeline.start()
                pipeline.join(30)
        finally:
            done.set()
            other.join(30)
    assert [str(warning.message) for warning in raised] == ["the record's own thread's", "its pipeline's"]
    assert said == []


def test_two_threads_records_each_take_their_own_pipelines_warnings():
    """Two threads' records at once (a thread pool's Segmentation.predicts), each thread's pipeline
    (``inference_pipeline.pipelined``, which reads its scans) warning while the other's record is the newer: each
    record takes its own pipeline's warning alone. A pipeline thread's warning went to the newest record of all,
    said by the other thread's predict as its own, and not by its own (until r126's review:
    benchmarks/results/review_own_warnings_take_out_2026-12-07/threads.py)."""
    from accelerated_seg.inference_pipeline import pipelined

    began, records = [threading.Event(), threading.Event()], {}

    def predicts(index: int) -> None:
        with recorded() as raised:
            began[index].set()
            assert began[1 - index].wait(30)  # both records in progress, the other's newer for thread 0
            if index == 1:
                assert done.wait(30)
            list(pipelined([f"scan {index}"], lambda scan: warnings.warn(f"{scan}: no orientation", UserWarning),
                           lambda scan, prepared: None, lambda scan, prepared, computed: None))
            if index == 0:
                done.set()
        records[index] = [str(warning.message) for warning in raised]

    done = threading.Event()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("default")
        threads = [threading.Thread(target=predicts, args=(index,)) for index in range(2)]
        threads[0].start()
        assert began[0].wait(30)
        threads[1].start()
        for thread in threads:
            thread.join(60)
    assert records == {0: ["scan 0: no orientation"], 1: ["scan 1: no orientation"]}
    assert said == []
