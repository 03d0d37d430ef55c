"""Every command's printed lines that hold a user's path, the path named in Latin-1 (a byte that is not UTF-8, as
Linux passes it), under a terminal whose encoding is strict (PYTHONIOENCODING=utf-8:strict, as Python's stdout is in
a LANG=en_US.UTF-8 locale; this machine has only C.UTF-8, whose UTF-8 mode passes the bytes through). Command:
cd /tmp/wt_h124 && PYTHONPATH=/tmp/wt_h124:/tmp/wt_h124/tests /work/main/.venv/bin/python \
    benchmarks/results/printed_paths_2026-12-07/strict_terminal.py > benchmarks/results/printed_paths_2026-12-07/<out>.txt 2>&1
(before.txt with PYTHONPATH=/tmp/h124_main:/tmp/h124_main/tests, a `git archive` of main ce2bcde4's
accelerated_seg/ and tests/; after.txt as above, with the fixes)
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

from test_inference import export

PYTHON = sys.executable
ENV = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "OMP_NUM_THREADS": "1"}


def latin1(folder, name: bytes) -> str:
    return os.fsdecode(os.fsencode(str(folder)) + b"/" + name)


def run(title, *args, env=ENV, cwd=None):
    done = subprocess.run([PYTHON, "-m", "accelerated_seg", *args], env=env, capture_output=True, timeout=600, cwd=cwd)
    shown = lambda data: data.decode("utf-8", "backslashreplace").replace(str(ROOT), "TMP").strip().splitlines()
    out, err = shown(done.stdout), shown(done.stderr)
    traceback = [line for line in err if line.startswith(("Traceback", "UnicodeEncodeError"))]
    print(f"[{title}] status {done.returncode}")
    for line in out[-3:]:
        print(f"    stdout: {line[:230]}")
    for line in (traceback or err[-2:]):
        print(f"    stderr: {line[:230]}")
    return done


with tempfile.TemporaryDirectory() as folder:
    ROOT = Path(folder)
    data = latin1(ROOT, b"donn\xe9es")
    run("synth <Latin-1 folder>", "synth", data, "--cases", "3", "--validation", "1")
    run("check <Latin-1 folder>/dataset.json", "check", data + "/dataset.json")
    config = ROOT / "tiny.yaml"
    output = latin1(ROOT, b"r\xe9sultats_train")
    config.write_text("data:\n  dataset: synthetic\n  synthetic: {num_cases: 3, num_validation: 1, seed: 0}\n"
                      "  patch_size: [16, 16, 16]\n  num_workers: 0\n"
                      "model:\n  name: unet\n  args: {channels: [4, 8], strides: [2], num_res_units: 0}\n"
                      f"train:\n  max_steps: 2\n  val_every: 2\n  save_every: 2\n  batch_size: 1\n")
    cache = latin1(ROOT, b"cach\xe9")
    run("synth <folder> (ASCII, for train)", "synth", str(ROOT / "data"), "--cases", "3", "--validation", "1")
    run("train --train.output_dir=<Latin-1 folder> --data.cache_dir=<Latin-1 folder>", "train", "--config",
        str(config), f"--train.output_dir={output}", f"--data.cache_dir={cache}",
        f"--data.dataset={ROOT / 'data' / 'dataset.json'}")
    # a setting's value is YAML, which takes no such byte: a run folder in Latin-1 comes from the working folder
    work = latin1(ROOT, b"\xe9tude")
    os.makedirs(work)
    run("train --train.output_dir=run, run in a Latin-1 working folder", "train", "--config", str(config),
        "--train.output_dir=run", "--data.cache_dir=cache", f"--data.dataset={ROOT / 'data' / 'dataset.json'}",
        cwd=work)
    run("cache --cache-dir <Latin-1 folder>", "cache", "--cache-dir", work + "/cache")
    run("export <checkpoint in a Latin-1 folder> --output <Latin-1 folder>", "export", work + "/run/checkpoints/step_2",
        "--output", latin1(ROOT, b"mod\xe8le"))
    model = export(ROOT / "model")
    scan = ROOT / "case.nii.gz"
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.diag([2.5, 2.5, 2.5, 1.0])), scan)
    predictions = latin1(ROOT, b"pr\xe9dictions")
    run("predict --output <Latin-1 folder>/", "predict", "--model", str(model), str(scan), "--output",
        predictions + "/")
    os.makedirs(ROOT / "labels")
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.uint8), np.diag([2.5, 2.5, 2.5, 1.0])),
             ROOT / "labels" / "case.nii.gz")
    run("evaluate <Latin-1 predictions> LABELS", "evaluate", predictions, str(ROOT / "labels"), "--num-classes", "3")
    run("evaluate ... --output <Latin-1 file> (a refusal)", "evaluate", predictions, str(ROOT / "labels"),
        "--output", str(scan), "--num-classes", "3")
    # a scan named in Latin-1: the map predict writes takes its name
    latin1_scan = latin1(ROOT, b"sc\xe8ne.nii.gz")
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.float32), np.diag([2.5, 2.5, 2.5, 1.0])), latin1_scan)
    run("predict <scan named in Latin-1> --output <folder>/", "predict", "--model", str(model), latin1_scan,
        "--output", str(ROOT / "out2") + "/")
    print("out2 holds:", sorted(os.listdir(os.fsencode(ROOT / "out2"))) if (ROOT / "out2").exists() else None)
    # metrics.csv of a case named in Latin-1
    os.makedirs(ROOT / "p3")
    os.makedirs(ROOT / "l3")
    for where in ("p3", "l3"):
        nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.uint8), np.eye(4)), latin1(ROOT / where, b"c\xe9.nii.gz"))
    run("evaluate of a case named in Latin-1", "evaluate", str(ROOT / "p3"), str(ROOT / "l3"), "--num-classes", "2")
    print("p3/evaluation holds:", sorted(os.listdir(ROOT / "p3" / "evaluation"))
          if (ROOT / "p3" / "evaluation").exists() else None)
