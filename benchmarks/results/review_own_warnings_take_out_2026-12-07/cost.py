"""The cost of a block's entry per warning judged (review r126).

    PYTHONPATH=. python benchmarks/results/review_own_warnings_take_out_2026-12-07/cost.py A.py B.py ... \
        > benchmarks/results/review_own_warnings_take_out_2026-12-07/cost.txt

10^5 ``warnings.warn`` of one line inside each block (``recorded``: "always", every warning judged by the filters
and recorded; ``silenced``: "ignore", judged, none written in the line's registry; ``quieted`` of two patterns,
the warning matching neither, so it is judged past both to the caller's "ignore"), for each own_warnings.py
given: the best of 15 rounds, each timing every file's every block in turn. Then the mark alone: one "ignore"
entry whose module is None, a mark with a ``match`` of Python's (h148's) or ``match = slice`` (r126's), in turn.
"""

import importlib.util
import sys
import time
import warnings

N = 10 ** 5
ROUNDS = 15


def load(path):
    spec = importlib.util.spec_from_file_location(f"own_warnings_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(block) -> float:
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("ignore")
        with block():
            start = time.perf_counter()
            for _ in range(N):
                warnings.warn("a scan's words", UserWarning)
            return time.perf_counter() - start


print(f"python {sys.version.split()[0]}; {N} warnings a block, the best of {ROUNDS} rounds (each file and block "
      f"in turn in each round, so that the machine's load falls on all alike), ns per warning")
paths = sys.argv[1:]
best = {}
for round_ in range(ROUNDS):
    for path in paths:
        own = load(path)
        blocks = {"recorded": own.recorded, "silenced": own.silenced,
                  "quieted": lambda own=own: own.quieted(("MONAI's words", UserWarning), ("apex's", UserWarning)),
                  "no block": lambda: warnings.catch_warnings()}
        for name, block in blocks.items():
            best[path, name] = min(best.get((path, name), float("inf")), timed(block))
for path in paths:
    print(f"{path.rsplit('/', 1)[-1]}: " + ", ".join(f"{name} {best[key] / N * 1e9:.0f}"
                                                     for key in best if key[0] == path for name in [key[1]]))

# The mark alone, in one process, alternately (the load falls on all alike): one "ignore" entry whose module is
# None, a mark whose match is a function of Python's (h148's), or one whose match is slice (r126's).


class PythonMatch:
    __slots__ = ()

    def match(self, text, pos=0, endpos=sys.maxsize):
        return True


class SliceMatch:
    __slots__ = ()
    match = slice


marks = {"None": None, "Python match": PythonMatch(), "slice": SliceMatch()}
best = {}
for round_ in range(ROUNDS):
    for name, mark in marks.items():
        with warnings.catch_warnings():
            warnings.resetwarnings()
            warnings.filters.insert(0, ("ignore", None, Warning, mark, 0))
            start = time.perf_counter()
            for _ in range(N):
                warnings.warn("a scan's words", UserWarning)
            best[name] = min(best.get(name, float("inf")), time.perf_counter() - start)
print("one 'ignore' entry, its module: " + ", ".join(f"{name} {best[name] / N * 1e9:.0f}" for name in marks))
