"""Run: cd <package root> && PYTHONPATH=<package root> /work/main/.venv/bin/python \
    benchmarks/results/output_locks_left_2026-12-07/stop_off_the_main_thread.py > <beside>/stop_off_the_main_thread.txt
What a real SIGTERM (its handler raising, as sigterm.py's does) does to files.write_files_together's two renames,
sent as the first rename is done: called on the main thread (stops_held holds it), and called on another thread
(where stops_held holds nothing, and where docs/stopping.md said evaluate's new metrics.csv "may stand beside the
summary.json of before"). The first rename is slowed by 0.3 s so that the signal lands between the two; no other
timing."""
import os
import signal
import tempfile
import threading
import time
from pathlib import Path

import accelerated_seg.files as files
from accelerated_seg.files import write_files_together

print("package:", Path(files.__file__).parent)


class Stopped(KeyboardInterrupt):
    pass


def raised(signum, frame):
    raise Stopped(signum)


signal.signal(signal.SIGTERM, raised)
real_replace = os.replace


def run(on_main: bool) -> None:
    folder = Path(tempfile.mkdtemp())
    for name in ("metrics.csv", "summary.json"):
        (folder / name).write_text("earlier")
    renamed = []

    def slow_replace(source, target):
        real_replace(source, target)
        renamed.append(Path(target).name)
        if len(renamed) == 1:
            os.kill(os.getpid(), signal.SIGTERM) if on_main else None
            time.sleep(0.3)

    files.os.replace = slow_replace
    where, caught = "the main thread" if on_main else "another thread", []

    def write():
        try:
            write_files_together(folder, {"metrics.csv": lambda p: p.write_text("new"),
                                          "summary.json": lambda p: p.write_text("new")})
        except KeyboardInterrupt as stop:
            caught.append(f"raised in the writer ({type(stop).__name__})")

    try:
        if on_main:
            write()
        else:
            worker = threading.Thread(target=write)
            worker.start()
            while not renamed:
                time.sleep(0.001)
            os.kill(os.getpid(), signal.SIGTERM)  # as the first rename is done, the second 0.3 s away
            worker.join()
    except KeyboardInterrupt as stop:
        caught.append(f"raised on the main thread ({type(stop).__name__}), not in the writer")
        worker.join()  # the writer goes on: its renames both done
    files.os.replace = real_replace
    print(f"called on {where}: SIGTERM after the first rename: {'; '.join(caught) or 'nothing raised'}; "
          f"metrics.csv: {(folder / 'metrics.csv').read_text()}, summary.json: {(folder / 'summary.json').read_text()}")


run(True)
run(False)
