"""Run as: cd <worktree> && PYTHONPATH=<worktree> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/recorded_review_2026-12-07/recorded.py <empty folder> \
    > benchmarks/results/recorded_review_2026-12-07/recorded_<main|after>.txt 2>&1
(review r118 of h135's estimator._recorded.) Segmentation.predict of an image without orientation, or _recorded
driven directly, under what a caller may have around it: (1) the caller's catch_warnings(record=True) around a loop
of 2 predicts; (2) logging.captureWarnings(True) (a showwarning hook of the caller's); (3) a KeyboardInterrupt from
inside predict_file; (4) a warning of another thread during predict; (5) two threads' predicts overlapping (A in, B
in, A out, B out, as two predicts of a thread pool may): is the caller's hook back after, and a warning said after
them shown or lost? For each, whether warnings.filters and warnings.showwarning are what they were."""
import logging
import sys
import tempfile
import threading
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from test_inference import export, save_without_orientation  # noqa: E402

import accelerated_seg.estimator as estimator  # noqa: E402
import accelerated_seg.inference as inference  # noqa: E402
from accelerated_seg.estimator import Segmentation  # noqa: E402

root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()).absolute()
model = Segmentation.load(export(root / "model"))
oriented = root / "oriented.nii.gz"
nib.save(nib.Nifti1Image(np.full((16, 16, 16), 50, np.float32), np.diag([2.5, 2.5, 2.5, 1])), oriented)
bare = root / "bare.nii.gz"
save_without_orientation(oriented, bare)


def state():
    return warnings.filters, list(warnings.filters), warnings.showwarning


def same(before):
    lists, entries, hook = before
    return (f"filters the same list {warnings.filters is lists}, same entries {list(warnings.filters) == entries}, "
            f"showwarning the caller's {warnings.showwarning is hook}")


# (1)
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("default")
    before = state()
    for _ in range(2):
        model.predict(nib.load(bare))
    print(f"(1) caller's record: {sum('no orientation' in str(w.message) for w in seen)} recorded of 2 calls "
          f"(default filter: 1 expected); {same(before)}")

# (2)
logged = []
handler = logging.Handler()
handler.emit = lambda record: logged.append(record.getMessage())
logging.getLogger("py.warnings").addHandler(handler)
logging.captureWarnings(True)
before = state()
model.predict(nib.load(bare))
print(f"(2) logging.captureWarnings: {sum('no orientation' in m for m in logged)} logged; {same(before)}")
logging.captureWarnings(False)

# (3)
real = inference.predict_file


def interrupted(*args, **kwargs):
    warnings.warn("inside", UserWarning)
    raise KeyboardInterrupt


inference.predict_file = interrupted
before = state()
try:
    model.predict(nib.load(bare))
except KeyboardInterrupt:
    print(f"(3) KeyboardInterrupt inside predict_file: {same(before)}")
inference.predict_file = real

# (4)
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    started, done = threading.Event(), threading.Event()

    def other():
        started.wait()
        warnings.warn("of another thread", UserWarning)
        done.set()

    def waiting(*args, **kwargs):
        started.set()
        done.wait(10)
        return real(*args, **kwargs)

    inference.predict_file = waiting
    thread = threading.Thread(target=other)
    thread.start()
    model.predict(str(oriented))
    thread.join()
    inference.predict_file = real
    print(f"(4) a warning of another thread during predict: said as {[str(w.message) for w in seen]} "
          f"at {[Path(w.filename).name for w in seen]}")

# (5) predict's record: estimator._recorded at main, own_warnings.recorded after r118's fix
record = getattr(estimator, "_recorded", None) or __import__("accelerated_seg.own_warnings").own_warnings.recorded
before = state()
a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()


def a():
    with record():
        a_in.set()
        b_in.wait(10)
    a_out.set()


def b():
    a_in.wait(10)
    with record():
        b_in.set()
        a_out.wait(10)


threads = [threading.Thread(target=a), threading.Thread(target=b)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
with warnings.catch_warnings():
    shown = []
    warnings._showwarnmsg_impl = lambda message: shown.append(str(message.message))
    warnings.warn("after both", UserWarning)
print(f"(5) two threads' records overlapping (A in, B in, A out, B out): {same(before)}; "
      f"a warning after them shown: {shown}")
