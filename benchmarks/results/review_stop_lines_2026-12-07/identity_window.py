"""A SIGTERM landing inside written_since's identity check as a command notes its files, before its line's try:
evaluate, plan --json, benchmark data --output. A real signal, sent by the process to itself from the first call of
written_since._identity; each command run by cli.main (as the command line runs it: SIGTERM taken as an interrupt).

Command: cd /tmp/wt_r100 && PYTHONPATH=/tmp/wt_r100 /work/main/.venv/bin/python \
    benchmarks/results/review_stop_lines_2026-12-07/identity_window.py
"""
import contextlib
import io
import os
import signal
import tempfile
from pathlib import Path

import numpy as np

import nibabel as nib

from accelerated_seg import cli, written_since

work = Path(tempfile.mkdtemp(prefix="r100_identity_"))
os.chdir(work)
a = np.zeros((8, 8, 8), np.uint8)
a[2:5, 2:5, 2:5] = 1
for d in ("labels", "preds"):
    (work / d).mkdir()
    nib.save(nib.Nifti1Image(a, np.eye(4)), str(work / d / "case1.nii.gz"))
real = written_since._identity

for argv in (["evaluate", "preds", "labels", "--output", "ev"],
             ["plan", "--model", "unet", "--patch", "32", "32", "32", "--json", "plan.json"],
             ["benchmark", "data", "--output", "data.json"]):
    calls = []

    def identity(path):
        calls.append(path)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        return real(path)

    written_since._identity = identity
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = cli.main(argv)
    written_since._identity = real
    print(f"== {' '.join(argv[:2])}: SIGTERM in the identity check of {calls[0]}\n   status {status}, said "
          f"{err.getvalue().strip().splitlines()}")
