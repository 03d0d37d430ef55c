"""PYTHONPATH=/tmp/wt_r122 /work/main/.venv/bin/python benchmarks/results/r122_own_warnings_2026-12-07/probe_filters.py
own_warnings.silenced/recorded/quieted nested, in two threads, interrupted, under a caller's filters, with
resetwarnings inside: the filters list after, by identity and order, and what was said."""
import contextvars
import threading
import warnings

from accelerated_seg import own_warnings as ow


def snapshot():
    return warnings.filters, [id(f) for f in warnings.filters]


def same(before, label):
    lst, ids = before
    now = [id(f) for f in warnings.filters]
    print(f"{label}: list object kept {warnings.filters is lst}, entries identical and in order {now == ids}"
          f" ({len(ids)} -> {len(now)})")


def nested():
    before = snapshot()
    with ow.recorded() as raised:
        with ow.silenced():
            warnings.warn("inside silenced inside recorded")
        warnings.warn("inside recorded")
    print("silenced in recorded, recorded:", [str(w.message) for w in raised])
    same(before, "silenced in recorded")
    with ow.silenced():
        with ow.recorded() as raised:
            warnings.warn("inside recorded inside silenced")
    print("recorded in silenced, recorded:", [str(w.message) for w in raised])
    same(before, "recorded in silenced")


def interrupted():
    for name, cm in (("silenced", ow.silenced), ("recorded", ow.recorded),
                     ("quieted", lambda: ow.quieted(("x", UserWarning), ("y", UserWarning)))):
        before = snapshot()
        try:
            with cm():
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            pass
        same(before, f"KeyboardInterrupt in {name}")


def two_threads(first, second, order):
    """first entered by thread A, second by thread B, exits in the given order ('AB' or 'BA')."""
    before = snapshot()
    entered = [threading.Event(), threading.Event()]
    leave = [threading.Event(), threading.Event()]
    said = {}

    def run(index, cm):
        with cm() as got:
            entered[index].set()
            leave[index].wait()
            warnings.warn(f"thread {index} warns", UserWarning)
        said[index] = [str(w.message) for w in got] if isinstance(got, list) else None

    threads = [threading.Thread(target=run, args=(0, first)), threading.Thread(target=run, args=(1, second))]
    threads[0].start(); entered[0].wait(); threads[1].start(); entered[1].wait()
    for letter in order:
        index = "AB".index(letter)
        leave[index].set(); threads[index].join()
    same(before, f"threads {first.__name__}/{second.__name__} exit {order}")
    print("   recorded lists:", said)


def callers_error_filter():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        before = snapshot()
        with ow.silenced():
            warnings.warn("ignored in silenced despite the caller's error")
        same(before, "caller's error filter around silenced")
        try:
            warnings.warn("after silenced")
            print("   after silenced: NOT raised")
        except UserWarning:
            print("   after silenced: raised as the caller's filter says")


def reset_inside():
    with warnings.catch_warnings():
        try:
            with ow.silenced():
                warnings.resetwarnings()
            print("resetwarnings inside silenced: exit ok, filters now", warnings.filters)
        except Exception as error:  # noqa: BLE001
            print("resetwarnings inside silenced: exit raised", type(error).__name__, error)
        with ow.silenced():
            warnings.simplefilter("ignore")  # an equal entry of the user's: _add_filter removes the equal one
        print("simplefilter('ignore') inside silenced: filters now", warnings.filters)


def simulated_314():
    """warnings._warnings_context as 3.14's: unset, set to a context of its own, set to the global context."""
    class Context:
        def __init__(self, filters):
            self._filters = filters

    class GlobalContext:
        @property
        def _filters(self):
            return warnings.filters

    var = contextvars.ContextVar("warnings_context")
    warnings._warnings_context = var
    try:
        print("3.14 unset:", [len(x) for x in ow._filter_lists()])
        token = var.set(GlobalContext())
        lists = ow._filter_lists()
        print("3.14 global context:", len(lists), "list(s), the module's:", lists[0] is warnings.filters)
        before = snapshot()
        with ow.silenced():
            print("   silenced entries in the module's list:",
                  sum(1 for f in warnings.filters if f[0] == "ignore" and f[2] is Warning and f[1] is None))
        same(before, "3.14 global context")
        var.reset(token)
        own = Context(list(warnings.filters))
        token = var.set(own)
        ctx_ids = [id(f) for f in own._filters]
        before = snapshot()
        with ow.silenced():
            print("   own context: entry first in the context's", own._filters[0][0], "and the module's",
                  warnings.filters[0][0])
        same(before, "3.14 own context (module's list)")
        print("   context's list entries identical after:", [id(f) for f in own._filters] == ctx_ids)
        var.reset(token)
    finally:
        del warnings._warnings_context
    print("3.11 path after: lists", len(ow._filter_lists()), "has _warnings_context:",
          hasattr(warnings, "_warnings_context"))


nested()
interrupted()
for a, b in ((ow.silenced, ow.silenced), (ow.silenced, ow.recorded), (ow.recorded, ow.silenced),
             (ow.recorded, ow.recorded)):
    for order in ("AB", "BA"):
        two_threads(a, b, order)
callers_error_filter()
reset_inside()
simulated_314()
