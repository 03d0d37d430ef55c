"""The mark in a block's filter entry against Python's own warnings machinery (review r126).

    PYTHONPATH=. python benchmarks/results/review_own_warnings_take_out_2026-12-07/compat.py [own_warnings.py] \
        > benchmarks/results/review_own_warnings_take_out_2026-12-07/compat_<which>.txt

Each check prints what it saw: filterwarnings' de-duplication of an equal entry of the caller's, catch_warnings
(record=True) around and inside a block, resetwarnings inside, the filters' repr, the mark called with a non-str
and with a position, pytest.warns inside a block, and whether Python code runs in a warning's filter scan
(sys.setprofile's 'call' events during a warnings.warn that matches no block's entry).
"""

import sys
import warnings

from probed import own_warnings_of_the_argument

own_warnings = own_warnings_of_the_argument()
blocks = {"recorded": own_warnings.recorded, "silenced": own_warnings.silenced,
          "quieted": lambda: own_warnings.quieted(("MONAI's words", UserWarning))}

for name, block in blocks.items():
    with warnings.catch_warnings():
        warnings.resetwarnings()
        with block():
            ours = warnings.filters[0]
            print(f"[{name}] its entry: {ours!r}")
            mark = ours[3]
            if mark is not None:
                print(f"  mark.match('a.module')={mark.match('a.module')!r} match(None)={mark.match(None)!r} "
                      f"match(5)={mark.match(5)!r} match('/a/file', 3, 9)={mark.match('/a/file', 3, 9)!r}")
            warnings.simplefilter("ignore")
            warnings.simplefilter("always")
            warnings.filterwarnings("ignore", "MONAI's words", UserWarning)
            warnings.simplefilter("ignore")  # de-duplicated: filters.remove(item) of the caller's equal one
            print(f"  after the caller's 4 filters inside: {len(warnings.filters)} entries, ours kept: "
                  f"{any(kept is ours for kept in warnings.filters)}")
        print(f"  after the block: {warnings.filters!r}")

    with warnings.catch_warnings(record=True) as outer:  # around a block
        warnings.simplefilter("always")
        with block() as got:
            with warnings.catch_warnings(record=True) as inner:  # inside a block
                warnings.simplefilter("always")
                warnings.warn("inside the inner catch_warnings", UserWarning)
            warnings.warn("MONAI's words, in the block", UserWarning)
            warnings.warn("a scan's words, in the block", UserWarning)
            warnings.resetwarnings()  # the block's entry gone: no error as it ends
            warnings.simplefilter("always")
        print(f"  catch_warnings(record=True) inside: {[str(w.message) for w in inner]}")
        print(f"  block's record: {[str(w.message) for w in got] if isinstance(got, list) else got}")
        print(f"  catch_warnings(record=True) around: {[str(w.message) for w in outer]}")

    try:
        import pytest

        with warnings.catch_warnings():
            with block():
                with pytest.warns(UserWarning, match="a scan"):
                    warnings.warn("a scan's words", UserWarning)
        print("  pytest.warns inside the block: caught")
    except Exception as error:  # noqa: BLE001
        print(f"  pytest.warns inside the block: {type(error).__name__}: {error}")

print("Python code run in a warning's filter scan (setprofile 'call' events inside warnings.warn, the caller's"
      " 'error' filter taking it):")
for name, block in blocks.items():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        calls = []

        def profile(frame, event, arg):
            if event == "call":
                calls.append(f"{frame.f_code.co_name} ({frame.f_code.co_filename.rsplit('/', 1)[-1]})")

        with block():
            sys.setprofile(profile)
            try:
                warnings.warn("a caller's error", RuntimeWarning)
            except RuntimeWarning:
                pass
            finally:
                sys.setprofile(None)
        print(f"  [{name}] {calls}")
