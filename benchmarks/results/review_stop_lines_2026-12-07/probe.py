"""Review r100 of h114's stop lines: real signals sent by the process to itself from a patched function.

Command: cd /tmp/wt_r100 && PYTHONPATH=/tmp/wt_r100 /work/main/.venv/bin/python \
    benchmarks/results/review_stop_lines_2026-12-07/probe.py  (output: probe_<tree>.txt beside it)
"""
import contextlib
import io
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import numpy as np

import nibabel as nib

from accelerated_seg import cli

work = Path(tempfile.mkdtemp(prefix="r100_probe_"))
os.chdir(work)


def case_folders():
    a = np.zeros((8, 8, 8), np.uint8)
    a[2:5, 2:5, 2:5] = 1
    for d in ("labels", "preds"):
        (work / d).mkdir(exist_ok=True)
        nib.save(nib.Nifti1Image(a, np.eye(4)), str(work / d / "case1.nii.gz"))


def main_said(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            status = cli.main(argv)
        except BaseException as raised:  # noqa: BLE001 - what a caller would meet
            status = f"raised {raised!r}"
    return status, err.getvalue().strip().splitlines()


@contextlib.contextmanager
def signalled_at(module, name, signum, call=1, after=True):
    real, calls = getattr(module, name), []

    def signalled(*args, **kwargs):
        calls.append(1)
        if len(calls) == call and not after:
            os.kill(os.getpid(), signum)
        done = real(*args, **kwargs)
        if len(calls) == call and after:
            os.kill(os.getpid(), signum)
        return done

    setattr(module, name, signalled)
    try:
        yield
    finally:
        setattr(module, name, real)


def handlers():
    return [signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT)]


def show(title, said, *files):
    print(f"== {title}\n  status {said[0]}\n  said {said[1]}")
    for folder in files:
        print(f"  {folder}: {sorted(p.name for p in Path(folder).iterdir()) if Path(folder).is_dir() else 'absent'}")


case_folders()
found = handlers()
import accelerated_seg.files as files  # noqa: E402

# 1. evaluate twice in one process, a SIGTERM between its renames in the first
with signalled_at(files.os, "replace", signal.SIGTERM):
    said = main_said(["evaluate", "preds", "labels", "--output", "ev1"])
show("evaluate, SIGTERM after metrics.csv's rename", said, "ev1")
print("  handlers as found after:", handlers() == found)
said = main_said(["evaluate", "preds", "labels", "--output", "ev1", "--overwrite"])
show("evaluate again, as its line says (with --overwrite)", said, "ev1")
print("  handlers as found after:", handlers() == found)

# 2. evaluate into a folder that is a link, its metrics.csv a link to a file elsewhere
(work / "real_ev").mkdir()
(work / "elsewhere").mkdir()
assert main_said(["evaluate", "preds", "labels", "--output", "real_ev"])[0] == 0  # an evaluation of our own
os.replace(work / "real_ev" / "metrics.csv", work / "elsewhere" / "m.csv")
os.symlink(work / "real_ev", work / "ev_link")
os.symlink(work / "elsewhere" / "m.csv", work / "real_ev" / "metrics.csv")
old_metrics = (work / "elsewhere" / "m.csv").stat().st_ino
with signalled_at(files.os, "replace", signal.SIGUSR1):
    said = main_said(["evaluate", "preds", "labels", "--output", "ev_link", "--overwrite"])
show("evaluate into a linked folder, metrics.csv a link: SIGUSR1 after its rename", said, "real_ev")
print("  metrics.csv still a link:", os.path.islink(work / "real_ev" / "metrics.csv"),
      "target rewritten:", (work / "elsewhere" / "m.csv").stat().st_ino != old_metrics)

# 3. benchmark data without --output, a stop as its wrote line is said, then again stopped before the write
import accelerated_seg.benchmark as benchmark  # noqa: E402
import accelerated_seg.benchmark_command as benchmark_command  # noqa: E402

(work / "benchmarks" / "results").mkdir(parents=True)
benchmark.benchmark_data = lambda **kwargs: {"stand_in": 1}
real_print = print


def print_signalled_at_wrote(*args, **kwargs):
    if args and str(args[0]).startswith("wrote "):
        os.kill(os.getpid(), signal.SIGTERM)
    real_print(*args, **kwargs)


benchmark_command.print = print_signalled_at_wrote
said = main_said(["benchmark", "data"])
del benchmark_command.print
show("benchmark data (no --output), SIGTERM as its wrote line is said", said, "benchmarks/results")
with signalled_at(benchmark, "write_result", signal.SIGTERM, after=False):
    said = main_said(["benchmark", "data"])
show("benchmark data again in the same process, SIGTERM before its write", said, "benchmarks/results")
print("  handlers as found after:", handlers() == found)

# 4. benchmark infer --output X, a first run stopped after one device, a second stopped before its next device
import accelerated_seg.benchmark as bm  # noqa: E402


def infer_one_device_then(stop_before_first):
    def benchmark_infer(*args, on_measured, measured_before, **kwargs):
        if stop_before_first:
            os.kill(os.getpid(), signal.SIGTERM)
        on_measured({"devices": {"cpu": {"ratio_ours_to_monai": 1.0}}, "complete": False,
                     "torch_threads": __import__("torch").get_num_threads()})
        os.kill(os.getpid(), signal.SIGTERM)
    return benchmark_infer


bm.benchmark_infer = infer_one_device_then(False)
said = main_said(["benchmark", "infer", "--output", "infer.json"])
show("benchmark infer --output infer.json, SIGTERM after its first device", said, ".")
bm.benchmark_infer = infer_one_device_then(True)
said = main_said(["benchmark", "infer", "--output", "infer.json"])
show("the same command, SIGTERM before it measures anything", said, ".")

# 5. synth: the marker alone in the folder, a SIGTERM in the generator's import (stood in for: synthetic's import
#    is made to signal)
(work / "phantoms").mkdir()
(work / "phantoms" / ".phantoms_being_written").touch()
sys.modules.pop("accelerated_seg.data.synthetic", None)


class SignalOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == "accelerated_seg.data.synthetic":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGTERM)
        return None


sys.meta_path.insert(0, SignalOnImport())
said = main_said(["synth", "phantoms", "--cases", "2", "--validation", "1"])
show("synth into a folder holding its marker alone, SIGTERM in its import", said, "phantoms")

# 6. plan without --json: a stop says nothing, writes nothing
from accelerated_seg import plan  # noqa: E402

with signalled_at(plan, "propose", signal.SIGTERM):
    said = main_said(["plan", "--model", "unet", "--patch", "32", "32", "32"])
print(f"== plan without --json, SIGTERM in propose\n  status {said[0]}\n  said {said[1]}")
print("  handlers as found after:", handlers() == found)
shutil.rmtree(work)
