"""A launched predict (ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 -m accelerated_seg
predict) of 4 scans into a folder named in Latin-1, under a strict stdout (PYTHONIOENCODING=utf-8:strict, which the
launcher passes to each process), read whole and through `| head -1`; then a scan named in Latin-1 that is not a NIfTI
file (a refusal, on stderr, from each process), a valid scan so named
(its windows split over the processes) and a folder of two (cases split). Each process's lines and the launcher's status. Command:
cd /tmp/wt_r107 && PYTHONPATH=/tmp/wt_r107:/tmp/wt_r107/tests /work/main/.venv/bin/python \
    benchmarks/results/r107_2026-12-07/launched_predict.py > benchmarks/results/r107_2026-12-07/<out>.txt 2>&1
(launched_predict_main.txt with PYTHONPATH=/tmp/r107_main:/tmp/r107_main/tests, main cb41d6be's; _after.txt as above)
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

from test_inference import export

ACCELERATE = str(Path(sys.executable).parent / "accelerate")
ENV = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "OMP_NUM_THREADS": "1", "ACCELERATE_USE_CPU": "true"}


def latin1(folder, name: bytes) -> str:
    return os.fsdecode(os.fsencode(str(folder)) + b"/" + name)


with tempfile.TemporaryDirectory() as folder:
    root = Path(folder)
    model = export(root / "model")
    scans = root / "scans"
    scans.mkdir()
    for index in range(4):
        nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.diag([2.5, 2.5, 2.5, 1.0])),
                 scans / f"case_{index}.nii.gz")
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.diag([2.5, 2.5, 2.5, 1.0])),
             latin1(root, b"sc\xe8ne.nii.gz"))
    os.makedirs(latin1(root, b"latin1"))
    for name in (b"c\xe9_0.nii.gz", b"c\xe9_1.nii.gz"):
        nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.diag([2.5, 2.5, 2.5, 1.0])),
                 latin1(latin1(root, b"latin1"), name))
    launch = [ACCELERATE, "launch", "--multi_gpu", "--num_processes", "2", "--main_process_port", "29517", "-m",
              "accelerated_seg", "predict", "--model", str(model)]
    for title, args, pipe in [("whole", [str(scans), "--output", latin1(root, b"pr\xe9dictions") + "/"], ""),
                              ("| head -1", [str(scans), "--output", latin1(root, b"pr\xe9d2") + "/"], " | head -1"),
                              ("one scan named in Latin-1 (its windows split)", [latin1(root, b"sc\xe8ne.nii.gz"),
                                                                                  "--output", str(root / "out3") + "/"],
                               ""),
                              ("a folder of 2 scans named in Latin-1 (cases split)", [latin1(root, b"latin1"),
                                                                                       "--output",
                                                                                       str(root / "out4") + "/"], ""),
                              ("a scan in Latin-1 that is no NIfTI", [latin1(root, b"sc\xe8ne.nii.gz"), "--output",
                                                                      str(root / "out5") + "/"], "")]:
        if "no NIfTI" in title:
            Path(latin1(root, b"sc\xe8ne.nii.gz")).write_bytes(b"not a nifti")
        command = " ".join(subprocess.list2cmdline([word]) if not isinstance(word, str) else
                           "'" + word.replace("'", "'\\''") + "'" for word in launch + args)
        done = subprocess.run(["bash", "-c", f"set -o pipefail; {command} 2> {root}/err.txt{pipe}"],
                              env=ENV, capture_output=True, timeout=300, cwd=folder)
        err = (root / "err.txt").read_bytes()
        print(f"[{title}] status {done.returncode}")
        for name, data in (("stdout", done.stdout), ("stderr", err)):
            lines = [line for line in data.decode("utf-8", "backslashreplace").replace(folder, "TMP").splitlines()
                     if line.strip() and "it/s]" not in line and "s/it]" not in line]
            for line in lines[-8:]:
                print(f"    {name}: {line[:200]}")
        written = {"whole": latin1(root, b"pr\xe9dictions"), "one scan": str(root / "out3"),
                   "a folder": str(root / "out4")}.get(title.split(" named")[0].split(" of 2")[0])
        if written:
            print("    written:", sorted(os.listdir(os.fsencode(written))) if os.path.isdir(written) else "nothing")
