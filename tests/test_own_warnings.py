"""own_warnings' records and silences under Python 3.14's context-aware filters (``-X context_aware_warnings``, a
free-threaded build's default), simulated on this Python: 3.14 judges a warning raised inside a catch_warnings by
that context's own list (the ``_filters`` of ``warnings._warnings_context``'s value), not the module's
``warnings.filters``, and its catch_warnings still empties every line's record of the warnings it said. The real 3.14
was not run here."""

import contextvars
import types
import warnings

import pytest

from accelerated_seg import own_warnings
from accelerated_seg.own_warnings import quieted, recorded


@pytest.fixture
def context_aware(monkeypatch):
    """Python 3.14 under ``-X context_aware_warnings``, as own_warnings reads it: the flag set, and
    ``warnings._warnings_context`` holding the context the caller is in, whose list of filters the test gives
    (``set_context``)."""
    flags = types.SimpleNamespace(context_aware_warnings=True)
    monkeypatch.setattr(own_warnings, "sys", types.SimpleNamespace(flags=flags), raising=False)
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


@pytest.mark.parametrize("block", [recorded, lambda: quieted(("MONAI's words", UserWarning))],
                         ids=["recorded", "quieted"])
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
