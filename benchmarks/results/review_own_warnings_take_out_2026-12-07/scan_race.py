"""Another thread's block ending while a warning's filter scan runs the mark's Python ``match`` (review r126).

    PYTHONPATH=. python benchmarks/results/review_own_warnings_take_out_2026-12-07/scan_race.py [own_warnings.py] \
        > benchmarks/results/review_own_warnings_take_out_2026-12-07/scan_race_<which>.txt

CPython's ``get_filter`` (Python/_warnings.c, 3.11) walks ``warnings.filters`` by index and calls each entry's
module's ``match`` unless it is None or a str. The mark of h148 (``_EveryModule``) has a Python ``match``: a thread
switch can come there, and another thread's block taking its entries out (``list.remove``) shifts the list under
the scan, which goes on at the next index and passes one entry by unjudged: the caller's ``"error"``, a ``silenced``'s
"ignore", a ``recorded``'s "always".

(1) A switch simulated at the first Python call of a ``warnings.warn`` (``sys.settrace``'s 'call' event): there the
    other thread's ``quieted`` (MONAI's words, as build_from_spec's, which do not match this warning) ends.
    (a) the caller's ``simplefilter("error", UserWarning)``; (b) the warner's own ``silenced``; (c) its ``recorded``.
    And (d) after (a)'s pass, the same line warned again with nothing else going on: the line's registry, written by
    the default action the scan fell to, keeps the caller's "error" from it for good.
(2) By timing: a thread looping ``quieted`` blocks (MONAI's words), ``sys.setswitchinterval(1e-6)``; this thread
    warning under the caller's "error" for 4 s, counting the warnings that were not raised.
"""

import sys
import threading
import time
import warnings

from probed import own_warnings_of_the_argument

own_warnings = own_warnings_of_the_argument()


def others_block():
    return own_warnings.quieted(("MONAI's words", UserWarning))


def warned_with_a_switch(message: str, switch: bool = True) -> tuple[list[str], bool]:
    """``warnings.warn(message)`` with the other thread's block entered first and ended at the first Python call
    inside it (none where ``switch`` is False); the call it ended at, and whether the warning was raised."""
    block, seen = others_block() if switch else None, []
    if block is not None:
        block.__enter__()

    def at_a_call(frame, event, arg):
        if event == "call" and block is not None and not seen:
            seen.append(f"{frame.f_code.co_name} ({frame.f_code.co_filename.rsplit('/', 1)[-1]})")
            block.__exit__(None, None, None)
        return None

    sys.settrace(at_a_call)
    try:
        warnings.warn(message, UserWarning)  # one line for (a) and (d)
        raised = False
    except UserWarning:
        raised = True
    finally:
        sys.settrace(None)
        if block is not None and not seen:
            block.__exit__(None, None, None)
    return seen, raised


print("(1) the other thread's quieted ending at the first Python call inside a warnings.warn")
with warnings.catch_warnings(record=True) as shown:
    warnings.resetwarnings()
    warnings.simplefilter("always")  # the last: what a passed-by entry falls to is recorded here
    warnings.simplefilter("default", UserWarning)
    warnings.simplefilter("error", UserWarning)
    seen, raised = warned_with_a_switch("a scan's words")
    outcome = "raised (the caller's error)" if raised else \
        f"NOT raised, shown by the default filter: {[str(w.message) for w in shown]}"
    print(f"  (a) caller's error: {outcome} (switch at {seen})")
    shown.clear()
    _, raised = warned_with_a_switch("a scan's words", switch=False)
    print(f"  (d) the same line again, nothing else going on: "
          f"{'raised' if raised else f'NOT raised ({len(shown)} shown): the line registry holds it'}")

with warnings.catch_warnings(record=True) as shown:
    warnings.resetwarnings()
    warnings.simplefilter("always")
    with own_warnings.silenced():
        seen, _ = warned_with_a_switch("said in a silenced block")
    print(f"  (b) own silenced: shown {[str(w.message) for w in shown]} (switch at {seen})")

with warnings.catch_warnings(record=True) as shown:
    warnings.resetwarnings()
    warnings.simplefilter("always")
    with own_warnings.recorded() as recorded:
        seen, _ = warned_with_a_switch("said in a recorded block")
    print(f"  (c) own recorded: recorded {[str(w.message) for w in recorded]}, shown past it "
          f"{[str(w.message) for w in shown]} (switch at {seen})")

print("(2) by timing, sys.setswitchinterval(1e-6): a thread looping quieted(MONAI's words); this one warning "
      "under the caller's error")
stop = threading.Event()
blocks = [0]


def loop_blocks():
    while not stop.is_set():
        with others_block():
            pass
        blocks[0] += 1


with warnings.catch_warnings(record=True) as shown:
    warnings.resetwarnings()
    warnings.simplefilter("always")
    warnings.simplefilter("error", UserWarning)
    sys.setswitchinterval(1e-6)
    other = threading.Thread(target=loop_blocks)
    other.start()
    warned = raised_ = 0
    end = time.monotonic() + 4
    while time.monotonic() < end:
        warned += 1
        try:
            warnings.warn("a scan's words", UserWarning)
        except UserWarning:
            raised_ += 1
    stop.set()
    other.join()
    sys.setswitchinterval(0.005)
print(f"  {warned} warnings, {warned - raised_} not raised ({len(shown)} shown past the caller's error); "
      f"the other thread's blocks: {blocks[0]}")
