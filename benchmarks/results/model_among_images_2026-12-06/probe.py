"""Run: cd /tmp/wt_h100 && PYTHONPATH=/tmp/wt_h100 /work/main/.venv/bin/python \
    benchmarks/results/model_among_images_2026-12-06/probe.py /tmp/h100probe > <beside this file>/<name>.txt
A model folder (an export, a training run's folder) where images (or predictions) are expected: predict's INPUTs with
--model given (an ensemble's second member without its --model), evaluate's PRED and LABELS, export's CHECKPOINT and
--output. Each command's status, its last lines, and whether torch was imported before it refused (tests/refusals.py).
Setup: a tiny random-weight export as review r82's setup_probe.py, written twice as a run's model/ and best_model/."""
import shutil
import subprocess
import sys
import time
from pathlib import Path

root = Path(sys.argv[1])
here = Path(__file__).resolve().parent
shutil.rmtree(root, ignore_errors=True)
setup = Path(__file__).resolve().parents[1] / "review_inference_md_2026-12-06" / "setup_probe.py"
subprocess.run([sys.executable, str(setup), str(root)], check=True, capture_output=True)
(root / "run").mkdir()
for name in ("model", "best_model"):  # as training writes them
    shutil.copytree(root / "model", root / "run" / name)
shutil.copytree(root / "model", root / "other_model")
PROBE = "import runpy, sys; sys.argv = ['accelerated-seg', *sys.argv[1:]]\ntry:\n    " \
        "runpy.run_module('accelerated_seg.cli', run_name='__main__', alter_sys=True)\nfinally:\n    " \
        "print('torch imported' if 'torch' in sys.modules else 'torch not imported', file=sys.stderr)"


def command(*args, note):
    start = time.monotonic()
    run = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=root)
    took = time.monotonic() - start
    lines = (run.stdout + run.stderr).strip().splitlines()
    print(f"$ accelerated-seg {' '.join(args)}   # {note}\nexit {run.returncode}, {took:.1f} s\n"
          + "\n".join(lines[-3:]) + "\n")


command("predict", "--model", "model", "other_model", "data/imagesTr", "--output", "p1",
        note="an ensemble's second member without its --model")
command("predict", "--model", "model", "model", "data/imagesTr", "--output", "p2", note="--model's folder itself")
command("predict", "--model", "model", "run", "data/imagesTr", "--output", "p3", note="a run's folder among them")
command("predict", "--model", "model", "data/imagesTr", "other_model", "--output", "p4", note="the export after the scans")
command("predict", "--model", "model", "--input", "other_model", "--output", "p5.nii.gz",
        note="--input: one case's files, an export among them")
command("predict", "other_model", "data/imagesTr", "--output", "p6", note="no --model at all (fixed before)")
command("predict", "--model", "model", "data/imagesTr", "--output", "p7", note="good: the scans alone")
command("evaluate", "model", "data/labelsTr", note="an export as PRED")
command("evaluate", "run", "data/labelsTr", note="a run's folder as PRED")
command("evaluate", "p7", "model", note="an export as LABELS")
command("evaluate", "p7", "data/labelsTr", "--labels", "model", note="good: --labels takes a model's folder")
command("export", "model", "--output", "e1", note="an export as CHECKPOINT")
command("export", "run", "--output", "e2", note="a run without checkpoints as CHECKPOINT")
