"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 ACCELERATE_USE_CPU=true timeout 240 \
    /work/main/.venv/bin/python -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 \
    --mixed_precision no --dynamo_backend no --main_process_port 29651 \
    benchmarks/results/channel_order_review_r115_2026-12-07/launched_one_refuses.py <empty folder> \
    > benchmarks/results/channel_order_review_r115_2026-12-07/launched_one_refuses_<main|after>.txt 2>&1
(<code>: main's accelerated_seg, `git archive main accelerated_seg | tar -x -C <code>`, for main; the worktree after.)
Review r115 of helper h131's entry check in predict_distributed: process 1 alone sees Task/dataset.json name the
model's channels in another order (MRI1, MRI0: another node's copy, or the file rewritten between the processes'
reads; stood in for by R115_SEES_ANOTHER_ORDER=1, which makes process 1's read of it give that order), process 0
sees MRI0, MRI1 (the model's). What each process says, how long the launch takes, and what is written."""
import json
import os
import sys
import time
from pathlib import Path

import nibabel as nib
import numpy as np

import accelerated_seg.inference_inputs as inference_inputs
from accelerated_seg.inference_distributed import predict_distributed, process_state
from test_inference import export

root = Path(sys.argv[1]).absolute()
rank = int(os.environ.get("RANK", "0"))
if rank == 1:  # this process's copy of the dataset.json: another order
    inference_inputs._channels_declared_in = lambda declaration: {0: "MRI1", 1: "MRI0"}  # main's reader
    _declared = inference_inputs._declared_channels  # the worktree's (review r115: no _channels_declared_in)
    inference_inputs._declared_channels = lambda folder, read: (None if _declared(folder, read) is None
                                                                 else {0: "MRI1", 1: "MRI0"})
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
if rank == 0:
    rng = np.random.default_rng(0)
    folder = root / "Task" / "imagesTs"
    folder.mkdir(parents=True)
    for case in ("p", "q"):
        for index in range(2):
            nib.save(nib.Nifti1Image(rng.uniform(10, 100, (16, 16, 16)).astype(np.float32), AFFINE),
                     folder / f"{case}_{index:04d}.nii.gz")
    (folder.parent / "dataset.json").write_text(json.dumps(
        {"channel_names": {"0": "MRI0", "1": "MRI1"}, "labels": {"background": 0, "lesion": 1},
         "numTraining": 0, "file_ending": ".nii.gz"}))
    export(root / "model", in_channels=2)
    (root / "ready").touch()
while not (root / "ready").exists():
    time.sleep(0.1)
state = process_state()
start = time.monotonic()
try:
    written = predict_distributed(root / 'model', [root / 'Task' / 'imagesTs'], root / 'out', accelerator=state)
    said = f"wrote {len(written)}"
except Exception as error:  # noqa: BLE001 - the probe says what came
    said = f"{type(error).__name__}: {str(error).replace(str(root), '<root>')}"
out = root / "out"
written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) if out.exists() else []
print(f"PROBE rank {rank} after {time.monotonic() - start:.1f} s: {said}\n  written: {written}", flush=True)
import torch.distributed as dist  # noqa: E402

if dist.is_initialized():
    dist.destroy_process_group()
os._exit(0)
