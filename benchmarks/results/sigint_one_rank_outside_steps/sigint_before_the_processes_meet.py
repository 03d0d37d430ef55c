"""SIGINT to rank 1 alone of a 2-process CPU launch (accelerate launch, gloo) of ``accelerated-seg train`` or
``predict``, before the launch's process group exists, once rank 0 is on its way into the rendezvous (where it waits
for rank 1): through tests/interrupted_before_the_processes_meet.py, train's rank 1 as it checks its settings (rank 0
making its Accelerator), predict's as it makes its process state (rank 0 too). Then: the launcher's status, its
seconds from the interrupt and in all, the ranks' exit codes in its table, the lines saying the interrupt on stdout
and stderr, and whether the run folder or the output was made.

    PYTHONPATH=<package> .venv/bin/python sigint_before_the_processes_meet.py <checkout's tests/> train|predict ...

<package>: the folder whose accelerated_seg is measured (a copy of an older commit's for "before").
"""

import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import nibabel as nib
import numpy as np
import torch
from safetensors.torch import save_file

TESTS = Path(sys.argv[1]).resolve()
PACKAGE = os.environ.get("PYTHONPATH", "")  # read before conftest puts the tests' checkout in front of it
sys.path.insert(0, str(TESTS))

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402
from processes import run_bounded  # noqa: E402
from test_distributed import _free_port  # noqa: E402

HOOK = {"train": ("accelerated_seg.train:_checks_before_anything_is_written", "accelerated_seg.train:make_accelerator"),
        "predict": ("accelerated_seg.inference_distributed:process_state",) * 2}


def arguments(command: str, top: Path) -> list[str]:
    if command == "train":
        data = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                       spacing_mm=2.0)
        return ["train", *tiny_overrides(data, top / "out", **{"train.max_steps": 2, "train.val_every": 0})]
    # predict reads only the export's config.json and the safetensors header before the process group: a stand-in
    model = top / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model": {"name": "unet"}}))
    save_file({"w": torch.zeros(1)}, str(model / "model.safetensors"))
    nib.save(nib.Nifti1Image(np.zeros((8, 8, 8), np.float32), np.eye(4)), str(top / "scan.nii.gz"))
    return ["predict", "--model", str(model), str(top / "scan.nii.gz"), "--output", str(top / "out")]


def one(command: str, top: Path) -> None:
    signalled = top / "signalled_at"
    signal_in, others_at = HOOK[command]
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "SIGNAL_RANK": "1",
           "SIGNAL_IN": signal_in, "OTHERS_AT": others_at, "SIGNALLED_AT": str(signalled),
           "PYTHONPATH": PACKAGE}
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
              "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
              str(TESTS / "interrupted_before_the_processes_meet.py"), *arguments(command, top)]
    started = time.time()
    done = run_bounded(launch, env=env, timeout=240)
    ended, output = time.time(), done.stdout + done.stderr
    after = f"{ended - float(signalled.read_text()):.1f} s" if signalled.is_file() else "(no interrupt)"
    lines = [line for line in output.splitlines() if "interrupted" in line and "traceback :" not in line
             and "FAILED" not in line]
    print(f"{command}, rank 1 interrupted: launcher {done.returncode} {after} after the interrupt "
          f"({ended - started:.1f} s in all); ranks' exit codes {re.findall(r'exitcode  : (-?[0-9]+)', output)}; "
          f"lines saying it {lines}; tracebacks {output.count('Traceback')}; out/ made {(top / 'out').exists()}",
          flush=True)
    if os.environ.get("PROBE_SHOW"):
        print(output[-4000:])


for number, command in enumerate(sys.argv[2:]):
    with tempfile.TemporaryDirectory() as top:
        one(command, Path(top))
