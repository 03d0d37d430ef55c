"""Real SIGINTs, at random moments, into nested ``interrupts_kept`` blocks whose work is mostly finalizers (a __del__
that spins ~1 ms, as nibabel's ``ArrayProxy.__del__`` or importlib's module-lock callback runs as a file or an import
ends): each run should end in one KeyboardInterrupt, none lost (the loop finishing) and none printed ("Exception
ignored"), wherever it landed: in a finalizer (kept, raised at the next file or as a block ends) or elsewhere (raised
at once). The outer block stands for training's setup, the inner ones for its checks' loops.

    cd <checkout> && PYTHONPATH=$PWD .venv/bin/python \
        benchmarks/results/review_dropped_interrupt_rank_start_2026-12-07/real_signals_nested.py [runs]
"""

import io
import os
import random
import signal
import sys
import threading
import time
from contextlib import redirect_stderr

from accelerated_seg import dropped_interrupts
from accelerated_seg.dropped_interrupts import between_files, interrupts_kept

KEPT = [0]
_keeping = dropped_interrupts._KeptInterrupts.__call__


def _counted(self, unraisable) -> None:
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        KEPT[0] += 1  # dropped in a finalizer, handed to the hook
    _keeping(self, unraisable)


dropped_interrupts._KeptInterrupts.__call__ = _counted


class Closing:
    def __del__(self):
        until = time.perf_counter() + 0.001
        while time.perf_counter() < until:
            pass


def work(where: list) -> None:
    with interrupts_kept():  # training's setup
        for _ in range(40):
            with interrupts_kept():  # a check's loop
                for _ in between_files(range(3)):
                    Closing()
                where[0] = "between blocks"
            Closing()  # a finalizer outside any loop of files: kept to the next block's first file or end
            where[0] = "inner"


def main(runs: int) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    outcomes: dict[str, int] = {}
    printed = 0
    for run in range(runs):
        where = ["inner"]
        sent: list[float] = []

        def send(delay: float) -> None:
            time.sleep(delay)
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

        said = io.StringIO()
        try:
            killer = threading.Thread(target=send, args=(random.uniform(0.0, 0.15),))  # the work: about 0.16 s
            killer.start()
            with redirect_stderr(said):
                work(where)
            ended = time.monotonic()
            try:  # the signal not yet sent or handled: it comes here, after the work
                killer.join()
                time.sleep(0.05)
                outcome = "finished: the interrupt lost"
            except KeyboardInterrupt:
                outcome = "finished before the signal" if sent and sent[0] >= ended else "finished: the interrupt lost"
        except KeyboardInterrupt:
            outcome = "KeyboardInterrupt in the work"
            killer.join()
        printed += said.getvalue().count("Exception ignored")
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        assert sys.unraisablehook is sys.__unraisablehook__, sys.unraisablehook  # put back
    print(f"{runs} runs: {outcomes} ({KEPT[0]} landed in a finalizer, kept); 'Exception ignored' printed "
          f"{printed} time(s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
