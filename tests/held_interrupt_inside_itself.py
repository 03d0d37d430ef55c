"""Run by tests/test_interrupts_between_imports.py in a process of its own (a handler that waits for ever holds it,
not the test's): the SIGINT handler of ``interrupts_between_imports`` (a Ctrl-C come during an import, held) run with a
second Ctrl-C's inside it at each of its traced steps in turn (its module's own), as a second Ctrl-C lands between
two steps of the main thread. Prints one JSON list: for each step, which call raised KeyboardInterrupt (the outer,
the inner, the span's end, none). Every thread's stack is printed, and the process ended, status 1, should it still
run 30 s on."""

import faulthandler
import json
import signal
import sys
import types

from accelerated_seg.interrupts_between_imports import interrupts_between_imports

#: The module whose steps the second Ctrl-C lands between.
HELD = "accelerated_seg.interrupts_between_imports"
#: The frame the Ctrl-C interrupts: one of importlib's, an import under way (``importing`` reads these two alone).
IMPORTING = types.SimpleNamespace(f_globals={"__name__": "importlib._bootstrap"}, f_back=None)


def run_with_the_second_at(step: int) -> dict:
    """The first Ctrl-C's handler called as Python calls it during an import, the second's inside it at its
    ``step``-th traced line (in the handler or anything it calls; 0: never)."""
    raised = {"raised": None, "lines": 0}
    try:
        with interrupts_between_imports():
            handler = signal.getsignal(signal.SIGINT)

            def trace(frame, event, arg):
                if frame.f_globals.get("__name__") != HELD:  # a KeyboardInterrupt inside threading's own steps
                    return None  # leaves its Condition's lock released (CPython's, not the hold's)
                if event == "line":
                    raised["lines"] += 1
                    if raised["lines"] == step:  # tracing is off inside this call: the inner handler runs untraced
                        try:
                            handler(signal.SIGINT, IMPORTING)
                        except KeyboardInterrupt:
                            raised["raised"] = "inner"
                            raise
                return trace

            sys.settrace(trace)
            try:
                handler(signal.SIGINT, IMPORTING)
            except KeyboardInterrupt:
                raised["raised"] = raised["raised"] or "outer"
            finally:
                sys.settrace(None)
    except KeyboardInterrupt:  # one held as the span ends (the second's, where neither raised)
        raised["raised"] = raised["raised"] or "at the end"
    return raised


if __name__ == "__main__":
    faulthandler.dump_traceback_later(30, exit=True)
    steps = run_with_the_second_at(0)["lines"]
    print(json.dumps([run_with_the_second_at(step) for step in range(1, steps + 1)]))
