"""Run: cd /tmp/wt_r86 && PYTHONPATH=/tmp/wt_r86 /work/main/.venv/bin/python \
    benchmarks/results/review_model_among_images_2026-12-06/timing.py /tmp/r86timing > <beside this file>/timing.txt
What predict's check of a model among the images (_model_among_the_images, once per command, before the imports)
costs for 1,000 inputs: 1,000 NIfTI files named one by one, and 1,000 folders of one scan each; best of 5."""
import shutil
import sys
import time
from argparse import Namespace
from pathlib import Path

from accelerated_seg.predict_command import _model_among_the_images

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
(root / "files").mkdir(parents=True)
files = []
for i in range(1000):
    (root / "files" / f"case_{i:04d}.nii.gz").write_bytes(b"")
    files.append(str(root / "files" / f"case_{i:04d}.nii.gz"))
folders = []
for i in range(1000):
    (root / "folders" / f"c{i:04d}").mkdir(parents=True)
    (root / "folders" / f"c{i:04d}" / "image.nii.gz").write_bytes(b"")
    folders.append(str(root / "folders" / f"c{i:04d}"))


def seconds(args) -> float:
    start = time.perf_counter()
    _model_among_the_images(args)
    return time.perf_counter() - start


for name, inputs in (("1,000 files", files), ("1,000 folders", folders)):
    args = Namespace(model=["model"], inputs=inputs, input=None, output="out")
    best = min(seconds(args) for _ in range(5))
    print(f"{name}: {best * 1000:.1f} ms (best of 5), refused: {_model_among_the_images(args)}")
