"""Where each warning of two threads' Segmentation.predict at once goes (review r126).

    OMP_NUM_THREADS=1 PYTHONPATH=.:tests python \
        benchmarks/results/review_own_warnings_take_out_2026-12-07/said_again_leak.py \
        > benchmarks/results/review_own_warnings_take_out_2026-12-07/said_again_leak.txt 2>&1

Threads A and B each predict a scan of their own without orientation, twice. Each call of own_warnings' hook
(``_record``) is printed: the thread that raised the warning, the thread it works for, the blocks in progress
(thread, whether a record), the message; then what Python said, with the thread that said it. A predict says its
record's warnings again at the caller's line (estimator's ``_said_again``) after its record has ended: while the
other thread's record lasts, its "always" entry takes them to the hook, which gives them to that record.
"""
import tempfile
import threading
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg import own_warnings
from accelerated_seg.estimator import Segmentation
from test_inference import export
root = Path(tempfile.mkdtemp(prefix="r126_leak_"))
model_dir = export(root / "model", spacing=(2.0, 2.0, 2.0))


def bare(name, seed):
    image = nib.Nifti1Image(np.random.default_rng(seed).random((16, 16, 16), np.float32) * 100, None)
    image.header.set_zooms((2.0, 2.0, 2.0))
    nib.save(image, root / name)
    return root / name
scans = {"A": bare("scan_A.nii.gz", 0), "B": bare("scan_B.nii.gz", 1)}
models = {n: Segmentation.load(model_dir, output_dir=str(root / f"run_{n}")) for n in "AB"}
orig = own_warnings._record


def rec(message, *a, **k):
    t = threading.current_thread()
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    with own_warnings._RECORDING_LOCK:
        blocks = [(names.get(b, b), r is not None) for b, r, _ in own_warnings._RECORDINGS]
    print(f"hook: raised by {t.name}, working for {names.get(getattr(own_warnings._WORKING_FOR, 'thread', None))}, "
          f"blocks {blocks}: {str(message).replace(str(root) + '/', '')[:60]}", flush=True)
    return orig(message, *a, **k)


own_warnings._record = rec
start = threading.Barrier(2)


def run(n):
    start.wait()
    for _ in range(2):
        models[n].predict(str(scans[n]))
said = []
with warnings.catch_warnings():
    warnings.simplefilter("default")
    warnings.showwarning = lambda message, *rest: said.append((threading.current_thread().name, str(message)))
    ts = [threading.Thread(target=run, args=(n,), name=n) for n in "AB"]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
for thread, message in said:
    print(f"said in thread {thread}: {message.replace(str(root) + '/', '')[:60]}")
