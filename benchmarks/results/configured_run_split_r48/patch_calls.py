"""pytest plugin (review r48): every monkeypatch.setattr of a callable on an accelerated_seg module is wrapped to count
its calls; at each test's end, every such patch and its count are written to PATCH_CALLS_OUT (one JSON line a test)."""
import functools, json, os, types
import pytest

_records = []
_orig = pytest.MonkeyPatch.setattr

def setattr(self, target, name=None, value=None, raising=True):
    import inspect
    if isinstance(target, str) and value is None and name is not None:  # setattr("a.b.c", value)
        import importlib
        modpath, _, attr = target.rpartition(".")
        try:
            obj = importlib.import_module(modpath)
            target, name, value = obj, attr, name
        except ImportError:  # not a module path: pytest's own reading of it
            return _orig(self, target, name, raising=raising)
    if (isinstance(target, types.ModuleType) and target.__name__.startswith("accelerated_seg")
            and callable(value) and not inspect.isclass(value)):
        rec = {"module": target.__name__, "name": name, "calls": 0}
        _records.append(rec)
        inner = value
        @functools.wraps(inner)
        def counting(*a, **k):
            rec["calls"] += 1
            return inner(*a, **k)
        value = counting
    return _orig(self, target, name, value, raising=raising)

pytest.MonkeyPatch.setattr = setattr

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _records.clear()
    yield
    with open(os.environ["PATCH_CALLS_OUT"], "a") as f:
        f.write(json.dumps({"test": item.nodeid, "patches": list(_records)}) + "\n")
