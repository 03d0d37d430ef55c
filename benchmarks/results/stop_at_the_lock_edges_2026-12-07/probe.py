"""A Ctrl-C at every point Python runs a signal handler while a run folder's lock is taken and released, for each
caller; then, with the exception kept, the same run again in the same process; then, the exception dropped, what is
left in the folder. r103's probe (review_stop_at_the_lock_2026-12-07/probe.py), adapted by h123.

CPython runs a Python signal handler at its eval-breaker checks: a Python function's entry (RESUME), and after a C
function's call returns (CALL). A profile function sees both ('call', 'c_return'); raising there (os.kill of SIGINT,
whose handler runs at once inside os.kill) is raising where the handler would have run. For each such point k, two
fresh trials send SIGINT at the k-th one and keep the KeyboardInterrupt (as a notebook keeps the last one), the
caller's own scope left as the caller leaves it (a with statement, train's ExitStack):
  1. is the lock still held (a flock of the probe's own, not live_holder, which since h123 passes over a lock of this
     process whose run has ended), then, the exception dropped, what is left in the folder;
  2. the same caller again, in this process, the exception still kept: refused (ConfigError), or run.
Where the handler is held (stops_held) the signal is noted there and raised later, as in a real run.

training's take stands in for train (and fit): the function whose ExitStack holds the lock is code of the package, as
train's is, so it runs under a module name of the package (run_lock._taker looks for the outermost such frame).

usage: probe.py ROOT [CALLER...]   (ROOT: an empty folder; a line per caller, and one per point that left something)
"""

from __future__ import annotations

import fcntl
import gc
import os
import signal
import sys
import textwrap
import warnings
from pathlib import Path

from accelerate import Accelerator

from accelerated_seg.config import ConfigError
from accelerated_seg.inference_outputs import holding_output_folder
from accelerated_seg.run_folder import holding_the_run_folder_of
from accelerated_seg.run_folder_ranks import holding_run_folder
from accelerated_seg.run_lock import LOCK_NAME, file_lock_name

ROOT = Path(sys.argv[1])
ACCELERATOR = Accelerator(cpu=True)

# train's frame, as package code: run_scope.enter_context(holding_run_folder(...)) (configured_run.py, train.py)
_TRAIN = {"__name__": "accelerated_seg.probe_stand_in_for_train", "holding_run_folder": holding_run_folder,
          "ACCELERATOR": ACCELERATOR}
exec(textwrap.dedent("""
    import contextlib

    def take_as_train(folder):
        with contextlib.ExitStack() as run_scope:
            run_scope.enter_context(holding_run_folder(ACCELERATOR, folder, "another folder"))
"""), _TRAIN)


def training(folder: Path):
    return lambda: _TRAIN["take_as_train"](folder)


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
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run_info.json").write_text("{}")

    def take():
        with holding_the_run_folder_of(folder / "model"):
            pass
    return take


def held(folder: Path) -> bool:
    """Whether any lock file in ``folder`` is flocked (by anyone: this process's kept lock too)."""
    for name in (LOCK_NAME, file_lock_name(folder / "seg.nii.gz"), file_lock_name(folder / "seg_probs.nii.gz")):
        try:
            handle = open(folder / name)
        except OSError:
            continue
        with handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
    return False


def left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else ["(no folder)"]


def stopped_at(caller, folder: Path, at: int | None):
    """Run the caller's take with a SIGINT at the ``at``-th point (None: count them); (points, exception, names)."""
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
    try:
        sys.setprofile(profile)
        try:
            take()
        finally:
            sys.setprofile(None)
    except KeyboardInterrupt as stop:
        return seen[0], stop, names  # kept, with its traceback, as a notebook keeps the last one
    return seen[0], None, names


def trial_left(caller, folder: Path, at: int) -> list[str]:
    _, kept, names = stopped_at(caller, folder, at)
    outcomes = []
    if kept is None:
        outcomes.append("stop LOST: never raised")
    elif held(folder):
        outcomes.append(f"lock HELD while the exception is kept: SIGINT {names[0]}")
    del kept
    gc.collect()
    if held(folder):
        outcomes.append("lock HELD after the exception is dropped")
    now = left(folder)
    if now not in (["(no folder)"], ["run_info.json"]):
        outcomes.append(f"left {now}" + (" (an empty folder)" if now == [] else ""))
    return outcomes


def trial_again(caller, folder: Path, at: int) -> str | None:
    _, kept, names = stopped_at(caller, folder, at)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            caller(folder)()
            outcome = None
        except ConfigError as refusal:
            outcome = f"the same run again REFUSED: {str(refusal)[:110]}..."
    taken_over = [str(w.message) for w in said if "taken over" in str(w.message)]
    if taken_over and outcome is None:
        outcome = f"run again, a warning: {taken_over[0][:100]}..."
    del kept
    gc.collect()
    return outcome


for caller in [globals()[name] for name in sys.argv[2:]] or (training, predict_one_map, predict_folder,
                                                                export_into_a_run):
    points, _, _ = stopped_at(caller, ROOT / f"{caller.__name__}_count", None)
    counts = {"lock held while kept": 0, ".run.lock left": 0, "empty folder left": 0, "second run refused": 0,
              "taken over, warned": 0, "other": 0}
    lines = []
    for at in range(1, points + 1):
        outcomes = trial_left(caller, ROOT / f"{caller.__name__}_{at}", at)
        again = trial_again(caller, ROOT / f"{caller.__name__}_again_{at}", at)
        for outcome in outcomes:
            key = ("lock held while kept" if outcome.startswith("lock HELD while") else
                   ".run.lock left" if "run.lock" in outcome and outcome.startswith("left") else
                   "empty folder left" if outcome.endswith("(an empty folder)") else "other")
            counts[key] += 1
        if again is not None:
            counts["second run refused" if "REFUSED" in again else "taken over, warned"] += 1
        if outcomes or again:
            lines.append(f"   point {at}: " + "; ".join(outcomes + ([again] if again else [])))
    print(f"{caller.__name__}: {points} points a handler runs at; "
          + ", ".join(f"{key} {value}" for key, value in counts.items()))
    for line in lines:
        print(line)
    sys.stdout.flush()
