"""A Ctrl-C at every point Python runs a signal handler while a run folder's lock is taken, for each caller.

CPython runs a Python signal handler at its eval-breaker checks: a Python function's entry (RESUME), and after a C
function's call returns (CALL). A profile function sees both ('call', 'c_return'); raising there (os.kill of SIGINT,
whose handler runs at once inside os.kill) is raising where the handler would have run. For each such point k of
taking the lock, a fresh trial sends SIGINT at the k-th one, keeps the KeyboardInterrupt (as a notebook keeps the last
one) with the caller's own scope left as the caller leaves it (a with statement, train's ExitStack), and looks: is
the lock held (``live_holder``), and what is left in the folder once the exception is dropped.
Where the handler is held (stops_held) the signal is noted there and raised later, as in a real run.

usage: probe.py ROOT [CALLER...]   (ROOT: an empty folder; a line per caller, and one per point that left something)
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from pathlib import Path

from accelerate import Accelerator

from accelerated_seg.inference_outputs import holding_output_folder
from accelerated_seg.run_folder import holding_the_run_folder_of
from accelerated_seg.run_folder_ranks import holding_run_folder
from accelerated_seg.run_lock import LOCK_NAME, file_lock_name, live_holder

ROOT = Path(sys.argv[1])
ACCELERATOR = Accelerator(cpu=True)


def training(folder: Path):
    """train's and fit's caller: run_scope.enter_context(holding_run_folder(...)) (configured_run.py, train.py)."""
    def take():
        with contextlib.ExitStack() as run_scope:
            run_scope.enter_context(holding_run_folder(ACCELERATOR, folder, "another folder"))
    return take


def predict_one_map(folder: Path):
    """predict_file's and predict_cases' one map: with holding_output_folder(...) (inference.py, inference_cases.py)."""
    output = folder / "seg.nii.gz"

    def take():
        with holding_output_folder(output, [output, folder / "seg_probs.nii.gz"]):
            pass
    return take


def predict_folder(folder: Path):
    def take():
        with holding_output_folder(folder, [folder / "case.nii.gz"]):
            pass
    return take


def export_into_a_run(folder: Path):
    folder.mkdir(parents=True)
    (folder / "run_info.json").write_text("{}")

    def take():
        with holding_the_run_folder_of(folder / "model"):
            pass
    return take


def held(folder: Path) -> bool:
    return any(live_holder(folder, name) is not None
               for name in (LOCK_NAME, file_lock_name(folder / "seg.nii.gz"),
                            file_lock_name(folder / "seg_probs.nii.gz")))


def left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else ["(no folder)"]


def trial(caller, folder: Path, at: int | None) -> tuple[int, str | None]:
    """Take the lock with a SIGINT at the ``at``-th point (None: count the points); (points seen, outcome)."""
    seen, names = [0], []

    def profile(frame, event, arg):
        if event in ("call", "c_return"):
            seen[0] += 1
            if seen[0] == at:
                names.append(f"{'entering' if event == 'call' else 'after'} "
                             f"{frame.f_code.co_name if event == 'call' else arg.__qualname__}"
                             f" (in {frame.f_code.co_name if event == 'c_return' else frame.f_back.f_code.co_name})")
                os.kill(os.getpid(), signal.SIGINT)  # the handler runs here: where CPython would run it

    take = caller(folder)
    kept = None
    try:
        sys.setprofile(profile)
        try:
            take()
        finally:
            sys.setprofile(None)
    except KeyboardInterrupt as stop:
        kept = stop  # kept, with its traceback, as a notebook keeps the last one
    outcome, stopped = None, kept is not None
    if stopped:
        if held(folder):
            where = kept.__traceback__
            while where.tb_next is not None:
                where = where.tb_next
            outcome = f"lock HELD while the exception is kept: SIGINT {names[0]}"
        del kept
        gc.collect()
        if outcome is None and left(folder) not in (["(no folder)"], ["run_info.json"]):
            outcome = f"stopped, left {left(folder)}"
    if outcome is None and not stopped and at is not None:
        outcome = "stop LOST: never raised"
    if outcome is None and not stopped and left(folder) not in (["(no folder)"], ["run_info.json"]):
        outcome = f"not stopped, left {left(folder)}"
    return seen[0], outcome


for caller in [globals()[name] for name in sys.argv[2:]] or (training, predict_one_map, predict_folder,
                                                                export_into_a_run):
    points, _ = trial(caller, ROOT / f"{caller.__name__}_count", None)
    bad = []
    for at in range(1, points + 1):
        _, outcome = trial(caller, ROOT / f"{caller.__name__}_{at}", at)
        if outcome is not None:
            bad.append((at, outcome))
    print(f"{caller.__name__}: {points} points a handler runs at; {len(bad)} leave something")
    for at, outcome in bad:
        print(f"   point {at}: {outcome}")
