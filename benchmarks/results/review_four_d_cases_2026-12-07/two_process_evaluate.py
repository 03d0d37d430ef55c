"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 timeout 600 \
    ACCELERATE_USE_CPU=true /work/main/.venv/bin/accelerate launch --multi_gpu --num_processes 2 --num_machines 1 \
    --mixed_precision no --dynamo_backend no \
    benchmarks/results/review_four_d_cases_2026-12-07/two_process_evaluate.py <empty folder>
(output: two_process_evaluate.txt, with the same script run by plain python, one process)
Review r94: Segmentation.evaluate of a Dataset naming no channels, one (x, y, z, 2) file a case, for a 2-channel model,
under a launch of 2 processes (estimator's multi_gpu): each rank prints what evaluate returned (or raised); the
main process predicts and scores (ranks.on_main), so both should print one summary, the same Dice as one process."""
import os
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

warnings.simplefilter("ignore")
root, rank = Path(sys.argv[1]).absolute(), int(os.environ.get("RANK", "0"))
files = root / "files"
if rank == 0:  # written by one rank; the other waits for them below
    files.mkdir(parents=True, exist_ok=True)
    rng, affine = np.random.default_rng(0), np.diag([2.5, 2.5, 2.5, 1.0])
    label = np.zeros((16, 16, 16), np.uint8)
    label[3:12, 3:12, 3:12] = 1
    for index in range(3):
        scan = rng.uniform(10, 100, (16, 16, 16, 2)).astype(np.float32)
        scan[..., 0] += 80 * (label > 0)
        nib.save(nib.Nifti1Image(label, affine), files / f"case_{index}.nii.gz")
        nib.save(nib.Nifti1Image(scan, affine), files / f"scan_{index}.nii.gz")
    export(root / "model", in_channels=2)
    (root / "ready").touch()
while not (root / "ready").exists():
    pass
pairs = [(str(files / f"scan_{index}.nii.gz"), str(files / f"case_{index}.nii.gz")) for index in range(3)]
data = Dataset.from_files([], validation_pairs=pairs, n_classes=3, block_shape=16, num_workers=0)
def say(line: str) -> None:  # a file per rank too: a rank other than the main one may have its output held back
    print(line, flush=True)
    (root / f"rank_{rank}.txt").write_text(line + "\n")


try:
    summary = Segmentation.load(root / "model").evaluate(data, output_dir=root / "eval")
    say(f"rank {rank}: cases {summary['num_cases']}, dice "
          f"{[round(summary['per_class'][c]['dice']['mean'], 6) for c in ('1', '2')]}")
except Exception as error:  # noqa: BLE001
    say(f"rank {rank}: refused ({type(error).__name__}): {error}")
# as the package's ranks leave (cli.end_process): gloo's threads outlive the group, and a rank aborted at exit
# ("terminate called without an active exception") in this probe's first run, after both had printed
from accelerated_seg.cli import end_process  # noqa: E402

end_process(0)
