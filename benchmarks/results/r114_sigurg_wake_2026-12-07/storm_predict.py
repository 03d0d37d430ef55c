"""``accelerated-seg predict`` under a launch, each process's main thread sent the wake (SIGURG) every STORM_S for as
long as ``launched_sigterm._a_wake_for_the_main_thread`` has its handler installed: a wake that cut a call short which
does not retry EINTR (a C library's read, gloo's or the store's socket) would fail the run with InterruptedError or an
error of that library's. Counts the wakes sent, per process, on stderr ("storm: process N sent K wakes").

Run by storm.sh (beside it)."""

import contextlib
import os
import signal
import sys
import threading

import accelerated_seg.launched_sigterm as launched_sigterm
from accelerated_seg.cli import main

STORM_S = float(os.environ.get("STORM_S", "0.0005"))
original = launched_sigterm._a_wake_for_the_main_thread


@contextlib.contextmanager
def stormed():
    with original() as wake:
        if wake is None:
            print(f"storm: process {os.environ.get('RANK')} not installed", file=sys.stderr)
            yield wake
            return
        done, sent = threading.Event(), [0]

        def storm():
            while not done.wait(STORM_S):
                signal.pthread_kill(threading.main_thread().ident, launched_sigterm.WAKE)
                sent[0] += 1

        thread = threading.Thread(target=storm, daemon=True)
        thread.start()
        print(f"storm: process {os.environ.get('RANK')} started", file=sys.stderr)
        try:
            yield wake
        finally:
            done.set()
            thread.join()
            print(f"storm: process {os.environ.get('RANK')} sent {sent[0]} wakes", file=sys.stderr)


launched_sigterm._a_wake_for_the_main_thread = stormed
if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
