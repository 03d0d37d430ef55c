"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 ACCELERATE_USE_CPU=true timeout 300 \
    /work/main/.venv/bin/python -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 \
    --mixed_precision no --dynamo_backend no --main_process_port 29641 \
    benchmarks/results/channel_order_for_every_predict_2026-12-07/launched.py <empty folder> \
    > benchmarks/results/channel_order_for_every_predict_2026-12-07/launched_<before|after>.txt 2>&1
(<code> as in probe.py.) The hundred-and-twenty-fourth session's helper h131: inference_distributed.predict_distributed
called from a script under `accelerate launch` of 2 processes, of (1) Named/imagesTs/ whose dataset.json names T1,
FLAIR (the model's MRI0, MRI1 otherwise named), (2) Task/imagesTs/ whose dataset.json names MRI1, MRI0 (another
order), (3) the cases themselves (InputCase) of (2)'s files in their folder's order: what each rank raises or warns,
and what is written. Each rank writes its lines to <folder>/rank<N>.txt, printed by rank 0 at the end."""
import json
import os
import sys
import time
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.inference_distributed import predict_distributed, process_state
from accelerated_seg.inference_inputs import InputCase
from test_inference import export

root = Path(sys.argv[1]).absolute()
rank = int(os.environ.get("RANK", "0"))
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
if rank == 0:
    rng = np.random.default_rng(0)
    for name, channel_names in (("Named", ["T1", "FLAIR"]), ("Task", ["MRI1", "MRI0"])):
        folder = root / name / "imagesTs"
        folder.mkdir(parents=True)
        for case in ("p", "q"):
            for index in range(2):
                nib.save(nib.Nifti1Image(rng.uniform(10, 100, (16, 16, 16)).astype(np.float32), AFFINE),
                         folder / f"{case}_{index:04d}.nii.gz")
        (folder.parent / "dataset.json").write_text(json.dumps(
            {"channel_names": dict(enumerate(channel_names)), "labels": {"background": 0, "lesion": 1},
             "numTraining": 0, "file_ending": ".nii.gz"}))
    export(root / "model", in_channels=2)
    (root / "ready").touch()
while not (root / "ready").exists():
    time.sleep(0.1)
state = process_state()
lines = []
task = root / "Task" / "imagesTs"
for label, inputs, out in (
        ("(1) Named/imagesTs/ (T1, FLAIR)", [root / "Named" / "imagesTs"], root / "out_named"),
        ("(2) Task/imagesTs/ (MRI1, MRI0)", [task], root / "out_task"),
        ("(3) InputCases of Task/imagesTs/'s files", [InputCase(case, (task / f"{case}_0000.nii.gz",
                                                                       task / f"{case}_0001.nii.gz"))
                                                      for case in ("p", "q")], root / "out_cases")):
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        try:
            said = f"wrote {len(predict_distributed(root / 'model', inputs, out, accelerator=state))} case(s)"
        except Exception as error:  # noqa: BLE001 - the probe says what came
            said = f"{type(error).__name__}: {str(error).replace(str(root), '<root>')}"
    channel_warnings = [str(w.message).replace(str(root), "<root>") for w in raised if "channel" in str(w.message)]
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) if out.exists() else []
    lines.append(f"rank {rank}, {label}: {said}\n  warnings naming a channel: {channel_warnings}\n  written: {written}")
(root / f"rank{rank}.txt").write_text("\n".join(lines) + "\n")
if rank == 0:
    while not (root / "rank1.txt").exists():
        time.sleep(0.1)
    for index in range(2):
        print((root / f"rank{index}.txt").read_text(), end="")
sys.stdout.flush()
# gloo's SIGABRT at interpreter exit (DESIGN's stack facts): the process group ended, then out at once
import torch.distributed as dist  # noqa: E402

if dist.is_initialized():
    dist.destroy_process_group()
os._exit(0)
