"""Run by tests/test_launched_sigterm.py in a process of its own (a handler that waits for ever holds it, not the
test's): a launched predict's stop handler (``launched_sigterm.sigterm_as_an_interrupt_unless_one_has_ended``) run
with a second stop's handler inside it at each of its traced steps in turn, as a second signal lands between any two
steps of the main thread (a job's SIGTERM and the agent's, sent on, come together). The first signal is argv[1], the
second argv[2] (SIGTERM, SIGUSR1). Prints one JSON list: for each step, what the outer call and the inner raised."""

import json
import signal
import sys

from accelerated_seg.launched_sigterm import sigterm_as_an_interrupt_unless_one_has_ended
from accelerated_seg.sigterm import StoppedBySIGUSR1, Terminated


def run_with_the_second_at(step: int, first: int, second: int) -> dict:
    """The first signal sent (its handler run by Python, its byte given to the span's thread, which decides), the
    second's handler called inside the first's at its ``step``-th traced line (in the handler or anything it calls;
    0: never); what each raised, and how many lines the handler ran."""
    raised = {"outer": None, "inner": None, "lines": 0}
    with sigterm_as_an_interrupt_unless_one_has_ended():
        handler = signal.getsignal(first)
        assert handler is signal.getsignal(second), "one handler for both stops"

        def trace(frame, event, arg):
            if event == "line":
                raised["lines"] += 1
                if raised["lines"] == step:  # tracing is off inside this call: the inner handler runs untraced
                    try:
                        handler(second, None)
                    except (Terminated, StoppedBySIGUSR1) as interrupt:
                        raised["inner"] = type(interrupt).__name__
            return trace

        sys.settrace(trace)
        try:
            signal.raise_signal(first)
        except (Terminated, StoppedBySIGUSR1) as interrupt:
            raised["outer"] = type(interrupt).__name__
        finally:
            sys.settrace(None)
    return raised


if __name__ == "__main__":
    first, second = (getattr(signal, name) for name in sys.argv[1:3])
    steps = run_with_the_second_at(0, first, second)["lines"]
    print(json.dumps([run_with_the_second_at(step, first, second) for step in range(1, steps + 1)]))
