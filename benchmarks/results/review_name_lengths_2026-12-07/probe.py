"""predict and evaluate given an output path whose name holds a byte that is not UTF-8 (a Latin-1 name from an
old system, as Linux passes it: surrogate-escaped), and names too long. Command:
cd /tmp/wt_r104 && PYTHONPATH=/tmp/wt_r104:/tmp/wt_r104/tests /work/main/.venv/bin/python \
    benchmarks/results/review_name_lengths_2026-12-07/probe.py > benchmarks/results/review_name_lengths_2026-12-07/<out>.txt 2>&1
"""
import contextlib, io, os, tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.cli import main
from test_inference import export


def run(args):
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            code = main(args)
        return f"exit {code}: {err.getvalue().strip()[-400:]}"
    except BaseException as error:  # a traceback
        return f"RAISED {type(error).__name__}: {error}"


with tempfile.TemporaryDirectory() as folder:
    root = Path(folder)
    model = export(root / "model")
    scan = root / "case.nii.gz"
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.diag([2.5, 2.5, 2.5, 1.0])), scan)
    latin1 = os.fsdecode(os.fsencode(str(root)) + b"/r\xe9sultats")
    print("[predict --output <folder named in Latin-1>/]")
    print("   ", run(["predict", "--model", str(model), str(scan), "--output", latin1 + "/"]).replace(folder, "TMP"))
    print("[predict --output <Latin-1 name of 250 bytes>.nii.gz]")
    long_latin1 = os.fsdecode(os.fsencode(str(root)) + b"/" + b"\xe9" * 250 + b".nii.gz")
    print("   ", run(["predict", "--model", str(model), str(scan), "--output", long_latin1]).replace(folder, "TMP")[:300])
    print("[evaluate --output <Latin-1 name of 300 bytes>]")
    (root / "labels").mkdir(); (root / "pred").mkdir()
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.uint8), np.eye(4)), root / "labels" / "case.nii.gz")
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.uint8), np.eye(4)), root / "pred" / "case.nii.gz")
    long_dir = os.fsdecode(os.fsencode(str(root)) + b"/" + b"\xe9" * 300)
    print("   ", run(["evaluate", str(root / "pred"), str(root / "labels"), "--num-classes", "2", "--output",
                      long_dir]).replace(folder, "TMP")[:300])
