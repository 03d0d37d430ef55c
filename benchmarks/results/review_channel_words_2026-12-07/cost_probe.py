"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 timeout 900 \
    /work/main/.venv/bin/python benchmarks/results/review_channel_words_2026-12-07/cost_probe.py <empty folder> \
    > benchmarks/results/review_channel_words_2026-12-07/cost_probe.txt
Review of h119 (the hundred-and-twenty-second session), question (a): what reading every file of a case refused for
its grids whole (inference_reading._damaged_files) costs evaluate's pre-check of many such cases, against the same
check with that read off (h119's parent's behaviour) and against as many cases on one grid (which the pre-flight
check reads whole anyway); the Python heap's peak (tracemalloc) across the refused cases, to see that each file's
bytes are dropped before the next; and what the read says of a file made unreadable (EACCES) or replaced by another
format after its header was read."""
import functools
import shutil
import statistics
import sys
import time
import tracemalloc
import warnings
from pathlib import Path
from unittest import mock

import nibabel as nib
import numpy as np
from scipy.ndimage import gaussian_filter

from accelerated_seg import inference_reading
from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.errors import DataError
from accelerated_seg.estimator import Dataset
from accelerated_seg.estimator_predict_checks import check_evaluation_headers
from accelerated_seg.exported_model import read_export_config
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
(root / "files").mkdir(parents=True, exist_ok=True)
CASES, SHAPE = 6, (160, 160, 112)
rng = np.random.default_rng(0)
volume = gaussian_filter(rng.normal(size=SHAPE), 2).astype(np.float32) * 100 + 300
label = np.zeros(SHAPE, np.uint8)
label[40:80, 40:80, 30:60] = 1
label[90:120, 90:120, 60:90] = 2


def save(array, name, affine):
    nib.save(nib.Nifti1Image(array, affine), root / "files" / name)
    return str(root / "files" / name)


same, other = np.diag([2.5, 2.5, 2.5, 1.0]), np.diag([3.0, 3.0, 3.0, 1.0])
first, apart, second = save(volume, "a.nii.gz", same), save(volume, "b_other.nii.gz", other), save(volume, "b.nii.gz",
                                                                                                   same)
lab = save(label, "label.nii.gz", same)
print(f"cases of 2 channels of {SHAPE} float32 (smooth, gzip: {Path(first).stat().st_size // 1024} KiB each, "
      f"{np.prod(SHAPE) * 4 // 2**20} MiB decompressed)")
config_dir = export(root / "pair", in_channels=2)
config = read_export_config(config_dir)


def copy(path, case):
    copied = root / "files" / f"case{case}_{Path(path).name}"
    if not copied.exists():
        shutil.copyfile(path, copied)
    return str(copied)


def dataset(channel_1):
    pairs = [([copy(first, case), copy(channel_1, case)], copy(lab, case)) for case in range(CASES)]
    return Dataset.from_files([], validation_pairs=pairs, n_classes=3, block_shape=16, num_workers=0)


def checked(data):
    try:
        check_evaluation_headers(data, config, read_check=functools.partial(check_manifest, normalization="zscore"))
        return "taken"
    except DataError as refusal:
        return f"refused, {str(refusal).count('do not share a voxel grid')} grid line(s)"


def timed(tag, data, patch=None):
    times = []
    for _ in range(3):
        with patch or mock.patch.object(inference_reading, "_damaged_files", inference_reading._damaged_files):
            start = time.perf_counter()
            outcome = checked(data)
            times.append(time.perf_counter() - start)
    print(f"  {tag}: {statistics.median(times):.3f} s (median of 3; {outcome})")


print(f"evaluate's pre-check (check_evaluation_headers with check_manifest) of {CASES} cases:")
h119 = mock.patch.object(inference_reading, "_as_long_as_its_header_needs", lambda path, image: False)
if hasattr(inference_reading, "_as_long_as_its_header_needs"):
    timed("every case's channel 1 on another grid, every file read whole (h119, as at 901c15dc)", dataset(apart),
          h119)
timed("every case's channel 1 on another grid, as this tree reads them", dataset(apart))
timed("every case's channel 1 on another grid, whole-file read off (before h119, 9abb0bbc)", dataset(apart),
      mock.patch.object(inference_reading, "_damaged_files", lambda *args: []))
timed("every case on one grid (the pre-flight check reads each whole)", dataset(second))
with mock.patch.object(inference_reading, "read_nifti", wraps=inference_reading.read_nifti) as reads:
    checked(dataset(apart))
whole = [call for call in reads.call_args_list if call.kwargs.get("verify_stream", True)]
print(f"  files read whole in inference_reading in that refusal, as this tree reads them: {len(whole)} "
      f"(of {len(reads.call_args_list)} reads, headers too)")

for tag, patch in (("every file read whole (h119)", h119), ("as this tree reads them", None)):
    if patch is h119 and not hasattr(inference_reading, "_as_long_as_its_header_needs"):
        continue
    with patch or mock.patch.object(inference_reading, "_damaged_files", inference_reading._damaged_files):
        tracemalloc.start()
        checked(dataset(apart))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    print(f"Python heap's peak across the {CASES} refused cases, {tag}: {peak / 2**20:.1f} MiB "
          f"(one file decompressed: {np.prod(SHAPE) * 4 / 2**20:.1f} MiB)")
print("a file that changes after its header was read (a race), read by _damaged_files:")
if not hasattr(inference_reading, "_as_long_as_its_header_needs"):
    sys.exit(0)
locked = Path(save(volume, "locked.nii.gz", same))
locked.chmod(0)
text = Path(root / "files" / "text.nii.gz")
text.write_text("not nifti")
header = nib.load(first)
with mock.patch("builtins.open", side_effect=PermissionError(13, "Permission denied")):
    try:  # root reads a file of mode 0: its refusal of EACCES, the file's open made to fail so
        print(f"  open() refused (EACCES): {inference_reading._damaged_files([Path(first)], [header])}"
              .replace(str(root), "<root>"))
    except BaseException as error:  # noqa: BLE001
        print(f"  open() refused (EACCES): raised {type(error).__name__}: {error}")
for path in (locked, text):
    try:
        print(f"  {path.name}: {inference_reading._damaged_files([path], [header])}".replace(str(root), "<root>"))
    except BaseException as error:  # noqa: BLE001
        print(f"  {path.name}: raised {type(error).__name__}: {error}")
locked.chmod(0o644)
