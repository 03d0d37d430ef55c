"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 ACCELERATE_USE_CPU=true timeout 300 \
    /work/main/.venv/bin/python -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 \
    --mixed_precision no --dynamo_backend no --main_process_port 29631 \
    benchmarks/results/channel_names_review_r112_2026-12-07/evaluate_launched.py <empty folder> \
    > benchmarks/results/channel_names_review_r112_2026-12-07/evaluate_launched_<main|after>.txt 2>&1
Review r112: Segmentation.evaluate under `accelerate launch` of 2 processes, a Dataset naming the model's channels
MRI1, MRI0 (another order), then T1, FLAIR (other names): what each rank raises or warns, and what is written. Each
rank writes its lines to <folder>/rank<N>.txt, printed by rank 0 at the end (the processes' own lines are above)."""
import os
import sys
import time
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

root = Path(sys.argv[1]).absolute()
data_folder = root / "data"
rank = int(os.environ.get("RANK", "0"))
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
if rank == 0:
    data_folder.mkdir(exist_ok=True)
    rng = np.random.default_rng(0)
    for index in range(2):
        nib.save(nib.Nifti1Image(rng.uniform(10, 100, (16, 16, 16)).astype(np.float32), AFFINE),
                 data_folder / f"e_{index:04d}.nii.gz")
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), np.uint8), AFFINE), data_folder / "e.nii.gz")
    export(root / "model", in_channels=2)
    (root / "ready").touch()
while not (root / "ready").exists():
    time.sleep(0.1)
lines = []
pair = ([str(data_folder / f"e_{index:04d}.nii.gz") for index in range(2)], str(data_folder / "e.nii.gz"))
for names in (["MRI1", "MRI0"], ["T1", "FLAIR"]):
    data = Dataset.from_files([], validation_pairs=[pair], n_classes=3, block_shape=16, num_workers=0,
                              channel_names=names)
    out = root / f"eval_{'_'.join(names)}"
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        try:
            Segmentation.load(root / "model").evaluate(data, output_dir=out)
            said = "scored"
        except Exception as error:  # noqa: BLE001 - the probe says what came
            said = f"{type(error).__name__}: {str(error)[:140]}"
    channel_warnings = [str(w.message)[:100] for w in raised if "channel" in str(w.message)]
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) if out.exists() else []
    lines.append(f"rank {rank}, {', '.join(names)}: {said}; warnings naming a channel: {channel_warnings}; "
                 f"written: {written}")
(root / f"rank{rank}.txt").write_text("\n".join(lines) + "\n")
if rank == 0:
    while not (root / "rank1.txt").exists():
        time.sleep(0.1)
    for index in range(2):
        print((root / f"rank{index}.txt").read_text().replace(str(root), "<root>"), end="")
sys.stdout.flush()
# gloo's SIGABRT at interpreter exit (docs/../DESIGN's stack facts): the process group ended, then out at once
import torch.distributed as dist  # noqa: E402

if dist.is_initialized():
    dist.destroy_process_group()
os._exit(0)
