"""Run as: cd <worktree> && PYTHONPATH=<worktree> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/recorded_review_2026-12-07/left.py <empty folder> \
    > benchmarks/results/recorded_review_2026-12-07/left_after.txt 2>&1
(h135's left.py, copied by review r118 and run with its fixes: own_warnings.quieted in build_from_spec and
binary_metrics, own_warnings.recorded in Segmentation.evaluate; h135's left.txt is its output at main.) What still
changes the warning filters in a call, as probe.py counts them, under
Python's default filter, 3 calls from one line each: (1) predict_file of a scan without orientation with
tta="all", precision="bf16" (emulated on this CPU, warned of) and probabilities_output; (2) predict_file of an
export whose config.json asks for norm INSTANCE_NVFUSER (no apex here: build_from_spec silences MONAI's warning of
it); (3) Segmentation.evaluate of a Dataset of one validation case. Each warning said, by its first
words, with how many times."""
import collections
import json
import shutil
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from test_inference import export, save_without_orientation  # noqa: E402

from accelerated_seg.estimator import Dataset, Segmentation  # noqa: E402
from accelerated_seg.inference import predict_file  # noqa: E402

root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()).absolute()
one = export(root / "model1")
nvfuser = root / "nvfuser"
shutil.copytree(one, nvfuser)
config = json.loads((nvfuser / "config.json").read_text())
config["model"]["args"]["norm"] = "INSTANCE_NVFUSER"
(nvfuser / "config.json").write_text(json.dumps(config))
data = root / "data"  # apart from the outputs
data.mkdir()
oriented, bare, label = data / "oriented.nii.gz", data / "bare.nii.gz", data / "label.nii.gz"
nib.save(nib.Nifti1Image(np.full((16, 16, 16), 50, np.float32), np.diag([2.5, 2.5, 2.5, 1])), oriented)
save_without_orientation(oriented, bare)
labels = np.zeros((16, 16, 16), np.uint8)
labels[4:12, 4:12, 4:12] = 1
nib.save(nib.Nifti1Image(labels, np.diag([2.5, 2.5, 2.5, 1])), label)
(data / "val").mkdir()
shutil.copy(oriented, data / "val" / "case.nii.gz")
shutil.copy(label, data / "val" / "case_label.nii.gz")
dataset = Dataset.from_files([(str(oriented), str(label))], block_shape=16, n_classes=3,
                             validation_pairs=[(str(data / "val" / "case.nii.gz"),
                                                str(data / "val" / "case_label.nii.gz"))],
                             cache_dir=str(root / "cache"))

mutated, by = warnings._filters_mutated, collections.Counter()


def counted():
    frame = next(f for f in reversed(traceback.extract_stack()[:-1]) if not f.filename.endswith("/warnings.py"))
    by[f"{Path(frame.filename).name}:{frame.name}"] += 1
    mutated()


calls = {
    "predict_file, tta all, bf16, probabilities": lambda i: predict_file(
        one, bare, root / f"a{i}.nii.gz", device="cpu", tta="all", precision="bf16",
        probabilities_output=root / f"a{i}_probabilities.nii.gz"),
    "predict_file, an INSTANCE_NVFUSER export": lambda i: predict_file(nvfuser, bare, root / f"n{i}.nii.gz",
                                                                       device="cpu"),
    "Segmentation.evaluate": lambda i: Segmentation.load(one).evaluate(dataset, output_dir=root / f"ev{i}"),
}
warnings._filters_mutated = counted
for name, call in calls.items():
    with warnings.catch_warnings(record=True) as raised:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        per_call = []
        for i in range(3):
            by.clear()
            call(i)
            per_call.append(f"{sum(by.values())} ({', '.join(f'{k} x{n}' for k, n in sorted(by.items())) or '-'})")
    print(f"{name}: filter changes per call: {'; '.join(per_call)}")
    for message, times in collections.Counter(str(w.message)[:90] for w in raised).items():
        print(f"    {times} x {message}")
warnings._filters_mutated = mutated
