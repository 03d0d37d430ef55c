"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 timeout 600 \
    /work/main/.venv/bin/python benchmarks/results/channel_order_review_r115_2026-12-07/cache.py <empty folder> \
    > benchmarks/results/channel_order_review_r115_2026-12-07/cache_<main|after>.txt
(<code>: main's accelerated_seg, `git archive main accelerated_seg | tar -x -C <code>`, for main; the worktree after.)
Review r115 of helper h131's dataset.json reads kept across calls (inference_inputs._READ_DECLARATIONS, by stat):
(A) the comparison of predict_file's files after its dataset.json changed between two calls: rewritten in place in
    the same second (same size), rewritten a second later, replaced by a rename (another inode), rewritten in place
    with its old mtime put back (cp -p, rsync --inplace -t): what each second call says;
(B) the cost of a call's comparison (channel_names_compared of one case's 2 files) for a dataset.json of 2 cases and
    one of 1000 written 10 s before (kept at main after the first call), median of 200 calls; and of predict_file of
    a 16^3 case of 2 channels in imagesTs/, median of 15 calls."""
import json
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.errors import DataError
from accelerated_seg.inference import predict_file
from accelerated_seg.inference_inputs import channel_names_compared
from accelerated_seg.predict_names import PREDICT_FILE_NAMES
from test_inference import export

root = Path(sys.argv[1]).absolute()
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
CONFIG = {"in_channels": 2, "channels": {"0": "MRI0", "1": "MRI1"}}


def folder_of(name, channel_names, cases=0):
    folder = root / name / "imagesTs"
    folder.mkdir(parents=True)
    for index in range(2):
        nib.save(nib.Nifti1Image(np.full((16, 16, 16), 50.0 + index, np.float32), AFFINE),
                 folder / f"c_{index:04d}.nii.gz")
    declaration = folder.parent / "dataset.json"
    declaration.write_text(json.dumps(
        {"channel_names": dict(enumerate(channel_names)), "labels": {"background": 0, "lesion": 1},
         "numTraining": cases, "file_ending": ".nii.gz",
         "training": [{"image": f"./imagesTr/case_{i:05d}.nii.gz", "label": f"./labelsTr/case_{i:05d}.nii.gz"}
                      for i in range(cases)]}))
    return folder, declaration


def said(folder):
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        try:
            channel_names_compared([folder / "c_0000.nii.gz", folder / "c_0001.nii.gz"], CONFIG, PREDICT_FILE_NAMES,
                                   one_case=True)
        except DataError as error:
            return "refused: " + str(error)[:90].replace(str(root), "<root>")
    return "passed" + "".join(f", warned: {str(w.message)[:60]}" for w in raised)


def swapped(text):
    return text.replace("MRI0", "MRIx").replace("MRI1", "MRI0").replace("MRIx", "MRI1")


print("(A) a dataset.json changed between two calls (MRI0, MRI1 -> MRI1, MRI0)")
folder, declaration = folder_of("same_second", ["MRI0", "MRI1"])
os.utime(declaration, (time.time() - 10, time.time() - 10))
print("  first call:", said(folder))
declaration.write_text(swapped(declaration.read_text()))
print("  rewritten in place at once (same size), second call:", said(folder))
folder, declaration = folder_of("renamed", ["MRI0", "MRI1"])
os.utime(declaration, (time.time() - 10, time.time() - 10))
print("  first call:", said(folder))
(folder.parent / "new.json").write_text(swapped(declaration.read_text()))
os.utime(folder.parent / "new.json", (time.time() - 10, time.time() - 10))
os.replace(folder.parent / "new.json", declaration)
print("  replaced by a rename, second call:", said(folder))
folder, declaration = folder_of("mtime_kept", ["MRI0", "MRI1"])
old = declaration.stat().st_mtime_ns - 10_000_000_000
os.utime(declaration, ns=(old, old))
print("  first call:", said(folder))
declaration.write_text(swapped(declaration.read_text()))
os.utime(declaration, ns=(old, old))  # cp -p over it in place: the old mtime back, the ctime moved
print("  rewritten in place, its old mtime put back, second call:", said(folder))

print("(B) the cost of a call's comparison, median of 200 calls (us)")
for cases in (2, 1000):
    folder, declaration = folder_of(f"cost_{cases}", ["MRI0", "MRI1"], cases)
    os.utime(declaration, (time.time() - 10, time.time() - 10))
    times = []
    for _ in range(200):
        start = time.perf_counter()
        channel_names_compared([folder / "c_0000.nii.gz", folder / "c_0001.nii.gz"], CONFIG, PREDICT_FILE_NAMES,
                               one_case=True)
        times.append(time.perf_counter() - start)
    print(f"  dataset.json of {cases} cases ({declaration.stat().st_size} bytes): first {times[0] * 1e6:.0f}, "
          f"median {statistics.median(times) * 1e6:.0f}")
model = export(root / "model", in_channels=2)
folder = root / "cost_2" / "imagesTs"
times = []
for index in range(16):
    start = time.perf_counter()
    predict_file(model, [folder / "c_0000.nii.gz", folder / "c_0001.nii.gz"], root / f"out_{index}.nii.gz")
    times.append(time.perf_counter() - start)
print(f"  predict_file of a 16^3 case of 2 channels in imagesTs/ (ms): median of 15 after the first "
      f"{statistics.median(times[1:]) * 1e3:.1f}")
