"""An entry of someone's with a Python ``__eq__`` before a block's own as the block ends (review r126; h148's Left iii).

    PYTHONPATH=. python benchmarks/results/review_own_warnings_take_out_2026-12-07/eq_race.py [own_warnings.py] \
        > benchmarks/results/review_own_warnings_take_out_2026-12-07/eq_race_<which>.txt

``list.remove(ours)`` compares each entry before ours with ours, in C while they hold strings, classes, patterns,
numbers and None; an entry whose module (or message) is an object of a Python class with ``__eq__`` (a library's
module matcher put in ``warnings.filters`` by hand), and whose action, message and category equal ours, runs that
``__eq__``: a thread switch can come there. Another thread's block ending there (its entry, before that one, taken
out) shifts the list, and ``list.remove`` goes on past ours: ours left in for good, no error.

(1) Simulated: the other thread's block ended at the first Python call of the take-out's comparisons
    (``sys.settrace``'s 'call' event of the ``__eq__``), for ``silenced``, ``quieted`` and ``recorded``.
(2) By timing, sys.setswitchinterval(1e-6): a thread looping blocks of its own (``quieted``, its own words, a
    ``time.sleep(0)`` inside for its work), this one looping
    the block under test with such an entry put first inside each; blocks whose entry was left in counted.
"""

import sys
import threading
import time
import warnings

from probed import own_warnings_of_the_argument

own_warnings = own_warnings_of_the_argument()


class ModuleGlob:
    """A module matcher of a library's, compared in Python."""

    def __init__(self, glob: str):
        self.glob = glob

    def match(self, module: str) -> bool:
        return module.startswith(self.glob.rstrip("*"))

    def __eq__(self, other) -> bool:
        return isinstance(other, ModuleGlob) and other.glob == self.glob

    __hash__ = object.__hash__


BLOCKS = {"silenced": (own_warnings.silenced, ("ignore", None, Warning)),
          "quieted": (lambda: own_warnings.quieted(("MONAI's words", UserWarning)), None),
          "recorded": (own_warnings.recorded, ("always", None, Warning))}


def theirs(block_name: str, ours: tuple) -> tuple:
    """An entry equal to ours but for its module, a ModuleGlob."""
    return (*ours[:3], ModuleGlob("somelib.*"), 0)


def ours_left(block_name: str) -> list:
    return [entry for entry in warnings.filters if isinstance(entry[3], own_warnings._EveryModule)]


print("(1) the other thread's silenced ended at the first Python call of the take-out")
for name, (block, _) in BLOCKS.items():
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("default")
        others = own_warnings.silenced()
        ended, tracer = [], sys.gettrace()
        others.__enter__()  # the other thread's
        with block():
            ours = warnings.filters[0]
            warnings.filters.insert(0, theirs(name, ours))
            # theirs, ours, the other thread's: the other thread's put first, as its block begun inside ours would
            other_entry = warnings.filters.pop(2)
            warnings.filters.insert(0, other_entry)

            def at_a_call(frame, event, arg):
                if event == "call" and frame.f_code is ModuleGlob.__eq__.__code__ and not ended:
                    ended.append(frame.f_code.co_name)
                    others.__exit__(None, None, None)

            sys.settrace(at_a_call)
        sys.settrace(tracer)
        if not ended:
            others.__exit__(None, None, None)
        print(f"  {name}: the switch at {ended}; ours left in the filters: {ours_left(name)}")

print("(2) by timing, sys.setswitchinterval(1e-6); the other thread's blocks quieted(its own words)")


def out_by_identity(entry: tuple) -> None:
    while any(kept is entry for kept in warnings.filters[:]):
        try:
            warnings.filters.remove(entry)
        except ValueError:
            pass


for name, (block, _) in BLOCKS.items():
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("default")
        stop, errors = threading.Event(), []

        def loop_others():
            while not stop.is_set():
                try:
                    with own_warnings.quieted(("the other thread's words", UserWarning)):
                        time.sleep(0)  # its work: this thread runs meanwhile
                except Exception as error:  # noqa: BLE001
                    errors.append(repr(error))

        sys.setswitchinterval(1e-6)
        other = threading.Thread(target=loop_others)
        other.start()
        blocks = left = 0
        end = time.monotonic() + 3
        while time.monotonic() < end:
            blocks += 1
            with block():
                ours = next(entry for entry in warnings.filters[:] if isinstance(entry[3], own_warnings._EveryModule)
                            and (entry[1] is None or "other thread" not in entry[1].pattern))
                glob = theirs(name, ours)
                warnings.filters.insert(0, glob)
            if any(entry is ours for entry in warnings.filters[:]):
                left += 1
                out_by_identity(ours)
            out_by_identity(glob)
        stop.set()
        other.join()
        sys.setswitchinterval(0.005)
        print(f"  {name}: {blocks} blocks, ours left in after {left}; errors {errors[:3]}")
