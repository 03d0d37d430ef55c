"""A training run stopped as its lock entered train's ExitStack (h123's point "after next (in __enter__)"), its
exception kept, then dropped (a notebook's next error replaces it, `del`): is the lock let go as the exception goes,
or only at a later collection of the cycle garbage (gc)?
command: cd /tmp/wt_r111 && PYTHONPATH=<package> /work/main/.venv/bin/python \
  benchmarks/results/review_lock_takers_2026-12-07/probe_dropped.py /tmp/r111_dropped"""
import fcntl
import gc
import os
import shutil
import signal
import sys
import textwrap
from pathlib import Path

from accelerate import Accelerator

from accelerated_seg.run_folder_ranks import holding_run_folder

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
ACCELERATOR = Accelerator(cpu=True)
_TRAIN = {"__name__": "accelerated_seg.probe_stand_in_for_train", "holding_run_folder": holding_run_folder,
          "ACCELERATOR": ACCELERATOR}
exec(textwrap.dedent("""
    import contextlib

    def take_as_train(folder):
        with contextlib.ExitStack() as run_scope:
            run_scope.enter_context(holding_run_folder(ACCELERATOR, folder, "another folder"))
"""), _TRAIN)


def held(folder: Path) -> bool:
    try:
        with open(folder / ".run.lock") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False
    except FileNotFoundError:
        return False


EDGES = {
    "entering (after next, in __enter__)": lambda frame, event, arg: (
        event == "c_return" and arg is next and frame.f_code.co_name == "__enter__"
        and getattr(getattr(frame.f_locals.get("self"), "gen", None), "__name__", "") == "holding_run_folder"),
    "leaving (entering release, in holding_run_folder)": lambda frame, event, arg: (
        event == "call" and frame.f_code.co_name == "release" and frame.f_back.f_code.co_name == "holding_run_folder"),
}


def stopped(folder: Path, matches):
    def profile(frame, event, arg):
        if matches(frame, event, arg):
            sys.setprofile(None)
            os.kill(os.getpid(), signal.SIGINT)

    sys.setprofile(profile)
    try:
        _TRAIN["take_as_train"](folder)
    except KeyboardInterrupt as stop:
        return stop
    finally:
        sys.setprofile(None)


for at, (edge, matches) in enumerate(EDGES.items()):
    folder = root / f"run{at}"
    gc.collect()
    gc.disable()  # a full collection that has not come yet (a notebook's objects are old: its gen2 runs seldom)
    kept = stopped(folder, matches)
    print(f"{edge}: kept: lock held {held(folder)}", end="")
    del kept
    print(f"; dropped, before any collection: lock held {held(folder)}, .run.lock there "
          f"{(folder / '.run.lock').exists()}", end="")
    gc.enable()
    gc.collect()
    print(f"; after gc.collect(): lock held {held(folder)}, .run.lock there {(folder / '.run.lock').exists()}")
