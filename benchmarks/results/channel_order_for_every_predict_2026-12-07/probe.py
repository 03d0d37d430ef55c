"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 timeout 900 \
    /work/main/.venv/bin/python benchmarks/results/channel_order_for_every_predict_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/channel_order_for_every_predict_2026-12-07/<before|after>.txt
(<code>: main's accelerated_seg, `git archive main accelerated_seg | tar -x -C <code>`, for before.txt; the worktree
for after.txt.)
The hundred-and-twenty-fourth session's helper h131: a dataset.json's channel order against the model's, in the
Python calls that predict one case (review r112's Left):
(A) inference.predict_file of Task/imagesTs/c_0000, c_0001 whose dataset.json names MRI1, MRI0 (the model's MRI0,
    MRI1 in another order), and of c_0001, c_0000 (the model's order);
(B) the same of a dataset.json naming T1, FLAIR (other names): the warnings (always shown; then Python's default);
(C) Segmentation.predict of those paths, and of the same scans as arrays and nibabel images (nothing to compare);
(D) the scans moved to scans/ (no images* folder): not compared;
(E) `accelerated-seg predict --input` of (B)'s files: the warning lines (the command compares before its imports);
(F) the cost: the comparison per predict_file call (a dataset.json of 2 cases and one of 1000), first and again,
    and predict_file of a 16^3 case of 2 channels, median of 15 calls, in imagesTs/ and in scans/.
predict_distributed under a launch of 2 processes is launched.py's."""
import contextlib
import io
import json
import os
import shutil
import statistics
import sys
import time
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.cli import main
from accelerated_seg.estimator import Segmentation
from accelerated_seg.inference import predict_file
from test_inference import export

root = Path(sys.argv[1]).absolute()
rng = np.random.default_rng(0)
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])


def short(text) -> str:
    return str(text).replace(str(root), "<root>")


def task(name, channel_names, cases=0):
    """``root/<name>/imagesTs`` with c_0000, c_0001 (16^3), beside a dataset.json naming ``channel_names`` (and
    ``cases`` training entries, for its size)."""
    folder = root / name / "imagesTs"
    folder.mkdir(parents=True)
    for index in range(2):
        nib.save(nib.Nifti1Image(rng.uniform(10, 100, (16, 16, 16)).astype(np.float32), AFFINE),
                 folder / f"c_{index:04d}.nii.gz")
    training = [{"image": f"./imagesTr/case_{i:04d}.nii.gz", "label": f"./labelsTr/case_{i:04d}.nii.gz"}
                for i in range(cases)]
    (folder.parent / "dataset.json").write_text(json.dumps(
        {"channel_names": dict(enumerate(channel_names)), "labels": {"background": 0, "lesion": 1},
         "numTraining": cases, "file_ending": ".nii.gz", "training": training}))
    return folder


def outcome(call):
    """What ``call`` did: its result or error, and the warnings naming a channel."""
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        try:
            result = call()
            said = f"done ({type(result).__name__})"
        except Exception as error:  # noqa: BLE001 - the probe says what came
            said = f"{type(error).__name__}: {short(error)}"
    channel = [short(w.message) for w in raised if "channel" in str(w.message)]
    return said, channel


def show(label, call, written=None):
    said, channel = outcome(call)
    print(f"  {label}: {said}")
    print(f"    warnings naming a channel: {len(channel)}" + "".join(f"\n      {line}" for line in channel))
    if written is not None:
        print(f"    written: {written.exists()}")


def section(title):
    print(f"\n{title}")


model = export(root / "model", in_channels=2)
other = task("Task", ["MRI1", "MRI0"])
named = task("Named", ["T1", "FLAIR"])
out = root / "out"
out.mkdir()

section("(A) predict_file, dataset.json naming MRI1, MRI0 (the model's MRI0, MRI1 in another order)")
show("c_0000, c_0001 (the dataset's MRI1 as the model's MRI0)",
     lambda: predict_file(model, [other / "c_0000.nii.gz", other / "c_0001.nii.gz"], out / "a.nii.gz"),
     out / "a.nii.gz")
show("c_0001, c_0000 (the model's order)",
     lambda: predict_file(model, [other / "c_0001.nii.gz", other / "c_0000.nii.gz"], out / "a2.nii.gz"),
     out / "a2.nii.gz")

section("(B) predict_file, dataset.json naming T1, FLAIR; twice from one line (a loop)")
for turn in range(2):
    show(f"call {turn + 1}",
         lambda: predict_file(model, [named / "c_0000.nii.gz", named / "c_0001.nii.gz"], out / "b.nii.gz"))

with warnings.catch_warnings(record=True) as raised:
    warnings.simplefilter("default")  # Python's own: once per message and line
    for turn in range(3):
        predict_file(model, [named / "c_0000.nii.gz", named / "c_0001.nii.gz"], out / "b.nii.gz")
print(f"  3 calls from one line of a loop under Python's default filter: "
      f"{sum('channel' in str(w.message) for w in raised)} warning(s) naming a channel (each model load's "
      f"catch_warnings, models.build_from_spec, resets Python's once-per-line registries)")

section("(C) Segmentation.predict")
estimator = Segmentation.load(model)
show("paths c_0000, c_0001 of (A)'s imagesTs/",
     lambda: estimator.predict([str(other / "c_0000.nii.gz"), str(other / "c_0001.nii.gz")]))
show("paths c_0001, c_0000 of (A)'s imagesTs/",
     lambda: estimator.predict([str(other / "c_0001.nii.gz"), str(other / "c_0000.nii.gz")]))
show("paths of (B)'s imagesTs/", lambda: estimator.predict([str(named / "c_0000.nii.gz"),
                                                            str(named / "c_0001.nii.gz")]))
arrays = [np.asanyarray(nib.load(other / f"c_{i:04d}.nii.gz").dataobj) for i in range(2)]
show("(A)'s scans as an array (2, X, Y, Z)", lambda: estimator.predict(np.stack(arrays), affine=AFFINE))
show("(A)'s scans as nibabel images", lambda: estimator.predict([nib.load(other / f"c_{i:04d}.nii.gz")
                                                                 for i in range(2)]))

section("(D) (A)'s scans copied to scans/ beside its dataset.json (no images* folder)")
scans = root / "Task" / "scans"
shutil.copytree(other, scans)
show("predict_file c_0000, c_0001",
     lambda: predict_file(model, [scans / "c_0000.nii.gz", scans / "c_0001.nii.gz"], out / "d.nii.gz"),
     out / "d.nii.gz")

section("(E) accelerated-seg predict --input of (B)'s files (T1, FLAIR)")
stderr = io.StringIO()
with warnings.catch_warnings(record=True) as raised, contextlib.redirect_stderr(stderr), \
        contextlib.redirect_stdout(io.StringIO()):
    warnings.simplefilter("always")
    status = main(["predict", "--model", str(model), "--input", str(named / "c_0000.nii.gz"),
                   str(named / "c_0001.nii.gz"), "--output", str(out / "e.nii.gz")])
print(f"  status {status}; warnings naming a channel: {sum('channel' in str(w.message) for w in raised)}; "
      f"stderr lines naming a channel: {sum('channel' in line for line in stderr.getvalue().splitlines())}")

section("(F) the cost")
try:
    from accelerated_seg.inference_inputs import channel_names_compared
    from accelerated_seg.predict_names import PREDICT_FILE_NAMES
except ImportError:
    channel_names_compared = None
    print("  no channel_names_compared here (the calls compare nothing)")
if channel_names_compared is not None:
    config = json.loads((model / "config.json").read_text())
    big = task("Big", ["MRI0", "MRI1"], cases=1000)
    for folder, what in ((other.parent / "Task2", "a dataset.json of 2 cases"), (big, "a dataset.json of 1000 cases")):
        if not folder.name.startswith("images"):
            folder = task(folder.name, ["MRI0", "MRI1"])
        files = [folder / "c_0000.nii.gz", folder / "c_0001.nii.gz"]
        declaration = folder.parent / "dataset.json"
        size = declaration.stat().st_size
        said = []
        for age in ("written just now: read in each call", "written 10 s ago: its stat, the rest kept"):
            if age.startswith("written 10"):
                os.utime(declaration, (time.time() - 10, time.time() - 10))
            start = time.perf_counter()
            channel_names_compared(files, config, PREDICT_FILE_NAMES, one_case=True)
            first = time.perf_counter() - start
            times = []
            for _ in range(200):
                start = time.perf_counter()
                channel_names_compared(files, config, PREDICT_FILE_NAMES, one_case=True)
                times.append(time.perf_counter() - start)
            said.append(f"{age}: first call {first * 1e6:.0f} us, again median {statistics.median(times) * 1e6:.0f} "
                        f"us of 200")
        print(f"  {what} ({size} bytes): " + "; ".join(said))
for folder, what in ((root / "Task2" / "imagesTs", "in imagesTs/ (dataset.json MRI0, MRI1: compared)"),
                     (scans, "in scans/ (not compared)")):
    if not folder.exists():
        folder = task("Task2", ["MRI0", "MRI1"])
    files = [folder / "c_0001.nii.gz", folder / "c_0000.nii.gz"] if folder == scans else \
        [folder / "c_0000.nii.gz", folder / "c_0001.nii.gz"]
    predict_file(model, files, out / "f.nii.gz", device="cpu")  # warm
    times = []
    for _ in range(15):
        start = time.perf_counter()
        predict_file(model, files, out / "f.nii.gz", device="cpu")
        times.append(time.perf_counter() - start)
    print(f"  predict_file of a 16^3 case of 2 channels {what}: median {statistics.median(times) * 1e3:.1f} ms "
          f"of 15 (min {min(times) * 1e3:.1f})")
