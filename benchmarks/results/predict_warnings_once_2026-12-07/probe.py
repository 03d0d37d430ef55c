"""Run as: cd <worktree> && PYTHONPATH=<worktree> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/predict_warnings_once_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/predict_warnings_once_2026-12-07/<before|after>.txt 2>&1
(branch h135; before.txt at main eeb411fa, after.txt with the fix.) For each of load_exported, predict_file,
Segmentation.predict of paths and predict_cases, called 3 times in a loop from one line under Python's default
filter: how often each call changed the warning filters (warnings._filters_mutated, which resets every module's
once-per-line registry and the "once" registry; each counted with the first function outside warnings.py that
called it, and whether warnings.filters was another list after the call), and how many times the loop's warnings were
said: a scan without orientation (1-channel model) and a dataset.json naming the model's channels otherwise (2
channels). The first call of all (lazy imports) is a warm-up, counted apart."""
import collections
import json
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from test_inference import export, save_without_orientation  # noqa: E402

from accelerated_seg.estimator import Segmentation  # noqa: E402
from accelerated_seg.exported_model import load_exported  # noqa: E402
from accelerated_seg.inference import predict_file  # noqa: E402
from accelerated_seg.inference_cases import predict_cases  # noqa: E402

root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()).absolute()
one, two = export(root / "model1"), export(root / "model2", in_channels=2)
oriented = root / "oriented.nii.gz"
nib.save(nib.Nifti1Image(np.full((16, 16, 16), 50, np.float32), np.diag([2.5, 2.5, 2.5, 1])), oriented)
save_without_orientation(oriented, root / "bare.nii.gz")
folder = root / "Named" / "imagesTs"
folder.mkdir(parents=True)
for index in range(2):
    nib.save(nib.Nifti1Image(np.full((16, 16, 16), 50, np.float32), np.diag([2.5, 2.5, 2.5, 1])),
             folder / f"c_{index:04d}.nii.gz")
(folder.parent / "dataset.json").write_text(json.dumps({"channel_names": {"0": "T1", "1": "FLAIR"},
                                                        "labels": {"background": 0}}))
pair = [folder / "c_0000.nii.gz", folder / "c_0001.nii.gz"]

mutated, by = warnings._filters_mutated, collections.Counter()


def counted():
    frame = next(f for f in reversed(traceback.extract_stack()[:-1]) if not f.filename.endswith("/warnings.py"))
    by[f"{Path(frame.filename).name}:{frame.name}"] += 1
    mutated()


calls = {
    "load_exported": lambda i: load_exported(one),
    "predict_file, no orientation": lambda i: predict_file(one, root / "bare.nii.gz", root / f"pf{i}.nii.gz",
                                                           device="cpu"),
    "predict_file, channels otherwise": lambda i: predict_file(two, pair, root / f"pf2_{i}.nii.gz", device="cpu"),
    "Segmentation.predict of a path, no orientation": lambda i: Segmentation.load(one).predict(
        str(root / "bare.nii.gz")),
    "Segmentation.predict of paths, channels otherwise": lambda i: Segmentation.load(two).predict(
        [str(p) for p in pair]),
    "predict_cases, no orientation": lambda i: predict_cases(one, [root / "bare.nii.gz"], root / f"pc{i}",
                                                             device="cpu"),
    "predict_cases, channels otherwise": lambda i: predict_cases(two, [folder], root / f"pc2_{i}", device="cpu"),
}
said = ("no orientation", "channels otherwise")
with warnings.catch_warnings(record=True):
    warnings.simplefilter("ignore")
    predict_file(one, oriented, root / "warm.nii.gz", device="cpu")  # lazy imports, apart
    Segmentation.load(one).predict(str(oriented))
warnings._filters_mutated = counted
for name, call in calls.items():
    with warnings.catch_warnings(record=True) as raised:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        per_call = []
        for i in range(3):
            by.clear()
            filters = warnings.filters
            call(i)
            per_call.append(f"{sum(by.values())} ({', '.join(f'{k} x{n}' for k, n in sorted(by.items())) or '-'})"
                            f"{'' if warnings.filters is filters else ', filters another list'}")
    times = [sum(s in str(w.message) for w in raised) for s in said]
    print(f"{name}: filter changes per call: {'; '.join(per_call)}")
    print(f"    said in 3 calls: {dict(zip(said, times))}, of {len(raised)} warning(s) in all")
warnings._filters_mutated = mutated
