"""own_warnings' records and silences under Python 3.14's context-aware filters (``-X context_aware_warnings``, a
free-threaded build's default), simulated on this Python: 3.14 judges a warning raised inside a catch_warnings by
that context's own list (the ``_filters`` of ``warnings._warnings_context``'s value), not the module's
``warnings.filters``, and its catch_warnings still empties every line's record of the warnings it said. The real 3.14
was not run here. And on this Python, the filters as they were after a block interrupted, reset inside, or ended
while another thread's is in progress."""

import contextvars
import operator
import threading
import types
import warnings

import pytest

from accelerated_seg.own_warnings import quieted, recorded, silenced


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


@pytest.mark.parametrize("block", [recorded, lambda: quieted(("MONAI's words", UserWarning)), silenced],
                         ids=["recorded", "quieted", "silenced"])
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
        assert context[0] == warnings.filters[0] == ("always", None, Warning, None, 0)
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
