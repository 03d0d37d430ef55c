"""SIGTERM to a one-process `accelerated-seg benchmark train` once its first configuration's row is printed.

docs/stopping.md says it keeps no handler for SIGTERM (ends at once, -15) and that the configurations measured before
the stop stay in its results so far: `X.partial.json` beside `--output X.json`. Run: cd /tmp/wt_r75 && PYTHONPATH=. \
    /work/main/.venv/bin/python benchmarks/results/review_stopping_doc_2026-12-06/benchmark_train_sigterm.py
"""
import json
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from tiny import ENV, EXE

out = Path(tempfile.mkdtemp(prefix="r75b_")) / "bt.json"
command = [EXE, "benchmark", "train", "--model", "unet", "--model-args", '{"channels": [4, 8, 16], "strides": [2, 2]}',
           "--patch", "16", "24", "32", "--batch", "2", "--precision", "fp32", "--steps", "2", "--blocks", "2",
           "--warmup-blocks", "1", "--output", str(out)]
start = time.monotonic()
proc = subprocess.Popen(command, env={**ENV, "OMP_NUM_THREADS": "1"}, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
lines = []
for line in proc.stdout:
    lines.append(line.rstrip())
    if line.startswith("[1/"):
        proc.send_signal(signal.SIGTERM)
        break
rest = proc.stdout.read()
proc.wait(timeout=120)
partial = out.with_name("bt.partial.json")
print(f"status {proc.returncode} after {time.monotonic() - start:.1f} s; said after the row: {rest.strip() or '(nothing)'}")
print(f"row: {lines[-1][:160]}")
print(f"{out.name} exists: {out.exists()}; {partial.name}: "
      f"{len(json.loads(partial.read_text())['runs']) if partial.exists() else None} configuration(s), complete "
      f"{json.loads(partial.read_text())['complete'] if partial.exists() else None}")
