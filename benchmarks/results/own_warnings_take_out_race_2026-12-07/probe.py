"""Run as: cd <worktree> && PYTHONPATH=<worktree> /work/main/.venv/bin/python \
    benchmarks/results/own_warnings_take_out_race_2026-12-07/probe.py \
    > benchmarks/results/own_warnings_take_out_race_2026-12-07/<main|fixed>.txt 2>&1
(branch h148; main.txt at main 82aaa70d, fixed.txt with the fix.) own_warnings.silenced / recorded / quieted put an
entry first in warnings.filters and take it out as the block ends; another thread's warnings.simplefilter (Python's
_add_filter: remove an equal entry, insert at 0, no lock before 3.14) or resetwarnings (filters[:] = []) meeting
that take-out. (1) By timing: sys.setswitchinterval(1e-6), a thread hammering simplefilter (then resetwarnings)
while this one enters and leaves silenced() in a loop for 4 s each: the blocks whose own "ignore" entry was left in
the filters after them (every later warning of the process ignored for good), and the errors raised by the take-out.
(2) Deterministic: a thread switch simulated at each bytecode of the take-out (sys.settrace, f_trace_opcodes: from
the block's body's end to the with statement's end, the other thread's call run once at the k-th opcode of
own_warnings' frames), for each of the three blocks: the k's at which the other thread's filter was deleted or ours
left, or an error raised."""
import sys
import threading
import time
import warnings

from accelerated_seg import own_warnings



class TheOtherThreads(Warning):
    """The category of the other thread's filter, in no other entry."""


BLOCKS = {"silenced": own_warnings.silenced, "recorded": own_warnings.recorded,
          "quieted": lambda: own_warnings.quieted(("MONAI's words", UserWarning))}


def ours_left(before: list) -> list:
    """The entries in the filters now that were not there before the block and are not the other thread's."""
    return [entry for entry in warnings.filters
            if not any(entry is kept for kept in before) and entry[2] is not TheOtherThreads]


def by_timing(other: str, seconds: float = 4.0) -> None:
    stop = threading.Event()

    def hammer():
        while not stop.is_set():
            if other == "simplefilter":
                warnings.simplefilter("default", TheOtherThreads)
            else:
                warnings.resetwarnings()

    with warnings.catch_warnings():
        warnings.simplefilter("default")
        base = list(warnings.filters)
        thread = threading.Thread(target=hammer, daemon=True)
        thread.start()
        blocks, left, errors = 0, 0, {}
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            blocks += 1
            try:
                with own_warnings.silenced():
                    pass
            except Exception as error:  # noqa: BLE001 - what the take-out raises is the finding
                errors[type(error).__name__] = errors.get(type(error).__name__, 0) + 1
            leaked = ours_left(base)
            if leaked:
                left += 1
                for entry in leaked:  # taken out here, to go on
                    try:
                        warnings.filters.remove(entry)
                    except ValueError:
                        pass
        stop.set()
        thread.join()
    print(f"  another thread's {other} in a loop: {blocks} silenced() blocks, own entry left in the filters after "
          f"{left}, errors raised {errors or 'none'}")


class _Switch:
    """A thread switch at the k-th opcode of own_warnings' frames once armed: ``other`` run there."""

    def __init__(self, k: int, other):
        self.k, self.other, self.count, self.armed, self.done = k, other, 0, False, False

    def __call__(self, frame, event, arg):
        if frame.f_code.co_filename != own_warnings.__file__:
            return None
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return self.local

    def local(self, frame, event, arg):
        if event == "opcode" and self.armed and not self.done:
            if self.count == self.k:
                self.done = True
                self.other()
            self.count += 1
        return self.local


def one_take_out(block, k: int, other) -> tuple[str, int]:
    """The block entered and left, ``other`` run at the k-th opcode of its end; what went wrong, and the opcodes."""
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        base = list(warnings.filters)
        switch = _Switch(k, other)
        tracer = sys.gettrace()
        error = None
        try:
            with block():
                sys.settrace(switch)
                switch.armed = True
        except Exception as raised:  # noqa: BLE001 - what the take-out raises is the finding
            error = raised
        finally:
            sys.settrace(tracer)
        if error is not None:
            return f"{type(error).__name__}: {error}", switch.count
        leaked = ours_left(base)
        theirs = [entry for entry in warnings.filters if entry[2] is TheOtherThreads]
        if other is _simplefilter and (leaked or len(theirs) != 1):
            return f"the other thread's filter {'kept' if theirs else 'deleted'}, ours left: {leaked}", switch.count
        if other is _simplefilter and [entry for entry in warnings.filters if entry[2] is not TheOtherThreads] != base:
            return "the caller's filters changed", switch.count
        if other is warnings.resetwarnings and warnings.filters:
            return f"filters after a reset: {warnings.filters}", switch.count
        return "", switch.count


def _simplefilter():
    warnings.simplefilter("default", TheOtherThreads)


def deterministic() -> None:
    for name, block in BLOCKS.items():
        for label, other in (("simplefilter", _simplefilter), ("resetwarnings", warnings.resetwarnings)):
            _, total = one_take_out(block, 10 ** 9, lambda: None)  # the opcodes of the take-out, counted
            wrong = {}
            for k in range(total):
                what, _ = one_take_out(block, k, other)
                if what:
                    wrong.setdefault(what, []).append(k)
            print(f"  {name}, another thread's {label} at each of its {total} opcodes: "
                  f"{sum(map(len, wrong.values()))} wrong")
            for what, ks in wrong.items():
                print(f"    at k={ks}: {what}")


print(f"python {sys.version.split()[0]}; {own_warnings.__file__}")
print("(1) by timing, sys.setswitchinterval(1e-6)")
sys.setswitchinterval(1e-6)
by_timing("simplefilter")
by_timing("resetwarnings")
sys.setswitchinterval(0.005)
print("(2) a thread switch simulated at each opcode of the take-out")
deterministic()
