"""Segmentation.predict in one thread while another runs predict_file, predict or evaluate (review r126).

    OMP_NUM_THREADS=1 PYTHONPATH=.:tests python \
        benchmarks/results/review_own_warnings_take_out_2026-12-07/threads.py \
        > benchmarks/results/review_own_warnings_take_out_2026-12-07/threads_<which>.txt

Two threads, each a loop of 3 calls on a scan of its own without orientation (the header warning), under Python's
default filter: thread A ``Segmentation.predict(path)``; thread B in turn ``predict_file``, ``Segmentation.predict``
and ``Segmentation.evaluate`` (a dataset whose validation case has no orientation). Every warning said is listed
with the thread that said it (a ``warnings.showwarning`` of the probe's): docs/inference.md says each call says the
warnings of its own work, once a loop, in its thread, none of the other's.
"""

import collections
import sys
import tempfile
import threading
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.estimator import Dataset, Segmentation
from accelerated_seg.inference import predict_file
from test_inference import export

root = Path(tempfile.mkdtemp(prefix="r126_threads_"))
model_dir = export(root / "model", spacing=(2.0, 2.0, 2.0))


def bare(name: str, seed: int) -> Path:
    image = nib.Nifti1Image(np.random.default_rng(seed).random((16, 16, 16), np.float32) * 100, None)
    image.header.set_zooms((2.0, 2.0, 2.0))  # without an affine: qform and sform codes 0
    path = root / name
    nib.save(image, path)
    return path


scan_a, scan_b, train_b = bare("scan_A.nii.gz", 0), bare("scan_B.nii.gz", 1), bare("train_B.nii.gz", 2)
labels = [root / f"label_{name}.nii.gz" for name in ("train_B", "scan_B")]
for label in labels:
    label_image = nib.Nifti1Image(np.zeros((16, 16, 16), np.uint8), None)
    label_image.header.set_zooms((2.0, 2.0, 2.0))
    nib.save(label_image, label)
# loaded here, one thread at a time: Segmentation.load's check of the export (accelerate's init_empty_weights,
# which patches torch's register_parameter for every thread) met a model built in the other thread meanwhile
# ("Cannot copy out of meta tensor"; meta_race.py)
models = {name: Segmentation.load(model_dir, output_dir=str(root / f"run_{name}")) for name in "AB"}
dataset = Dataset.from_files([(str(train_b), str(labels[0]))], validation_pairs=[(str(scan_b), str(labels[1]))],
                             n_classes=3)
said = []


def shown(message, category, filename, lineno, file=None, line=None):
    said.append((threading.current_thread().name, str(message)))


def thread_a(start):
    model = models["A"]
    start.wait()
    for call in range(3):
        model.predict(str(scan_a))


def thread_b(start, how):
    model = models["B"]
    start.wait()
    for call in range(3):
        if how == "predict_file":
            predict_file(model_dir, scan_b, root / f"B_{call}.nii.gz")
        elif how == "predict":
            model.predict(str(scan_b))
        else:
            model.evaluate(dataset, output_dir=Path(tempfile.mkdtemp(prefix="r126_eval_")))


print(f"python {sys.version.split()[0]}")
for how in ("predict_file", "predict", "evaluate"):
    said.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = shown
        start = threading.Barrier(2)
        threads = [threading.Thread(target=thread_a, args=(start,), name="A"),
                   threading.Thread(target=thread_b, args=(start, how), name="B")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(600)
    counts = collections.Counter((thread, message.replace(str(root) + "/", "")[:110]) for thread, message in said)
    print(f"A: Segmentation.predict x3, B: {how} x3")
    for (thread, message), count in sorted(counts.items()):
        print(f"  thread {thread}, {count}x: {message}")
