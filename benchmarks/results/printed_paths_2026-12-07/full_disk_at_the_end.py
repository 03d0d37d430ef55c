"""evaluate's last write (metrics.csv and summary.json) meeting a full disk (ENOSPC, made by a monkeypatched
write_files_together for the output folder alone) once every case is scored: what is said and what is left of the
scores. Command:
cd /tmp/wt_h124 && PYTHONPATH=/tmp/wt_h124:/tmp/wt_h124/tests /work/main/.venv/bin/python \
    benchmarks/results/printed_paths_2026-12-07/full_disk_at_the_end.py > benchmarks/results/printed_paths_2026-12-07/<out>.txt 2>&1
(full_disk_before.txt with PYTHONPATH=/tmp/h124_main:/tmp/h124_main/tests, a `git archive` of main ce2bcde4's
accelerated_seg/ and tests/; full_disk_after.txt as above, with the fix)
"""
import contextlib
import errno
import io
import os
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

import accelerated_seg.evaluate_output as evaluate_output
from accelerated_seg.cli import main

with tempfile.TemporaryDirectory() as folder:
    root = Path(folder)
    tempfile.tempdir = str(root / "tmp")  # the temporary folder, made below, to show what lands there
    os.makedirs(root / "tmp")
    for where in ("pred", "labels"):
        os.makedirs(root / where)
        for case in ("a", "b"):
            volume = np.zeros((16, 16, 16), np.uint8)
            volume[4:10, 4:10, 4:10] = 1
            if where == "pred" and case == "b":
                volume[4:12, 4:10, 4:10] = 1
            nib.save(nib.Nifti1Image(volume, np.eye(4)), root / where / f"{case}.nii.gz")
    output = root / "evaluation"
    write = evaluate_output.write_files_together

    def full_there(target, writers):
        if Path(target) == output:
            raise OSError(errno.ENOSPC, "No space left on device")
        return write(target, writers)

    evaluate_output.write_files_together = full_there
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["evaluate", str(root / "pred"), str(root / "labels"), "--num-classes", "2", "--output",
                       str(output)])
    print(f"status {status}")
    for stream, text in (("stdout", out), ("stderr", err)):
        for line in text.getvalue().splitlines():
            print(f"    {stream}: {line.replace(folder, 'TMP')}")
    print("the output folder:", sorted(os.listdir(output)) if output.exists() else "not there")
    print("the temporary folder:", [f"{name}/: {sorted(os.listdir(root / 'tmp' / name))}"
                                    for name in os.listdir(root / "tmp")])
