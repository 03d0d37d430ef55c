"""Run as: cd <worktree> && PYTHONPATH=<worktree> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/predict_warnings_once_2026-12-07/recording.py <empty folder> \
    > benchmarks/results/predict_warnings_once_2026-12-07/recording.txt 2>&1
(branch h135, with the fix.) Segmentation.predict's record of the warnings predict_file says (to say them again at the
caller's line, in the caller's words), three ways: "catch_warnings" (catch_warnings(record=True) + simplefilter
("always"), as until this session), "always in place" (the fix, estimator._recorded: an "always" entry put first in
warnings.filters and taken out, no change of the filters' version), "showwarning alone" (a warnings.showwarning hook,
the filters untouched). For each, under the caller's filters: (1) "default", a loop of 3 predicts of one path
without orientation from one line; (2) "default", the same path predicted from 2 lines (Python says a warning once
per line); (3) "once", the loop; (4) "always", the loop; (5) "error", an image without orientation (a temporary file
inside): what the caller gets."""
import contextlib
import sys
import tempfile
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from test_inference import export, save_without_orientation  # noqa: E402

import accelerated_seg.estimator as estimator  # noqa: E402
from accelerated_seg.estimator import Segmentation  # noqa: E402

root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()).absolute()
model = Segmentation.load(export(root / "model"))
oriented = root / "oriented.nii.gz"
nib.save(nib.Nifti1Image(np.full((16, 16, 16), 50, np.float32), np.diag([2.5, 2.5, 2.5, 1])), oriented)
bare = root / "bare.nii.gz"
save_without_orientation(oriented, bare)


@contextlib.contextmanager
def with_catch_warnings():
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        yield raised


@contextlib.contextmanager
def with_showwarning_alone():
    raised, shown = [], warnings.showwarning
    warnings.showwarning = lambda message, category, filename, lineno, file=None, line=None: raised.append(
        warnings.WarningMessage(message, category, filename, lineno, file, line))
    try:
        yield raised
    finally:
        warnings.showwarning = shown


def loop(action):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter(action)
        for _ in range(3):
            model.predict(str(bare))
    return sum("no orientation" in str(w.message) for w in seen)


def two_lines():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        model.predict(str(bare))
        model.predict(str(bare))
    return sum("no orientation" in str(w.message) for w in seen)


def as_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            model.predict(nib.load(bare))
        except Warning as raised:
            return f"{type(raised).__name__}: {raised}"[:150]
    return "nothing raised"


for name, recorded in (("catch_warnings", with_catch_warnings), ("always in place", estimator._recorded),
                       ("showwarning alone", with_showwarning_alone)):
    estimator._recorded = recorded
    print(f"{name}:\n  (1) default, loop of 3: {loop('default')}\n  (2) default, 2 lines: {two_lines()}\n"
          f"  (3) once, loop of 3: {loop('once')}\n  (4) always, loop of 3: {loop('always')}\n"
          f"  (5) error, an image: {as_error()}")
