"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/evaluate_far_finer_precheck_2026-12-06/far_finer.py <empty folder> > <before|after>.txt
The hundred-and-nineteenth session (helper h106): Segmentation.evaluate checked its validation cases (options, classes,
channels' units in predict's words, the pre-flight check) before it rebuilt output_dir's predictions/ and labels/ and
deleted the last call's summary.json and metrics.csv, but predict's far finer refusal
(inference_reading.refuse_voxels_far_finer) was met only while predicting. A model exported with random weights
(tests/test_inference.export: spacing 2.5 set, its training cases' median 2 x 2 x 2 recorded) scores 3 phantoms of
2 mm once; then two of them are rewritten in metres (numbers / 1000: one of no unit, one whose header says mm,
both 1,250 times finer than the spacing and 1,000 times finer than the median) and evaluate is called again into the
same output_dir. Printed: the refusal, whether the first call's summary.json and metrics.csv are still there, and how
many predictions/ holds; then the time of the check alone on 20 such cases (headers only), median of 5, and of
Segmentation.evaluate's refusal itself (everything before it checked too) on those 20."""
import shutil
import statistics
import sys
import time
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

root = Path(sys.argv[1]).absolute()
dataset = load_msd(write_synthetic_dataset(root / "data", num_cases=5, num_validation=3, seed=0,
                                           size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0))
pairs = [(str(case.images[0]), str(case.label)) for case in dataset.training]
validation = [(str(case.images[0]), str(case.label)) for case in dataset.validation]
model = Segmentation.load(export(root / "model", spacing=(2.5, 2.5, 2.5), cases_median_spacing=[2.0, 2.0, 2.0]))
out = root / "evaluation"
data = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_pairs=validation, num_workers=0,
                          cache_dir=str(root / "cache"))
print("first call: num_cases", model.evaluate(data, output_dir=out)["num_cases"])
print("after it:", sorted(path.name for path in out.iterdir()))


def in_metres(source: str, target: Path, unit: str) -> str:
    """``source`` rewritten at ``target`` with its numbers in metres, its header declaring ``unit``."""
    image = nib.load(source)
    scaled = nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([1e-3] * 3 + [1.0]) @ image.affine)
    scaled.header.set_xyzt_units(unit)
    nib.save(scaled, target)
    return str(target)


(root / "metres" / "labels").mkdir(parents=True)
rewritten = [(in_metres(image, root / "metres" / Path(image).name, unit),
              in_metres(label, root / "metres" / "labels" / Path(label).name, unit))
             for (image, label), unit in zip(validation[1:], ("unknown", "mm"))]
data = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_pairs=[validation[0], *rewritten],
                          num_workers=0, cache_dir=str(root / "cache"))
try:
    model.evaluate(data, output_dir=out)
    print("second call: scored, no refusal")
except DataError as error:
    print("second call refused:\n" + str(error))
print("after it:", sorted(path.name for path in out.iterdir()),
      "predictions:", sorted(path.name for path in (out / "predictions").glob("*.nii.gz")))

# the check alone (evaluate's steps before any folder is touched) on 20 cases of metres
import accelerated_seg.estimator_predict_checks as checks  # noqa: E402
from accelerated_seg.exported_model import read_export_config  # noqa: E402

(root / "twenty" / "labels").mkdir(parents=True)
twenty = [(in_metres(validation[index % 3][0], root / "twenty" / f"c{index:02d}.nii.gz", "unknown"),
           in_metres(validation[index % 3][1], root / "twenty" / "labels" / f"c{index:02d}.nii.gz", "unknown"))
          for index in range(20)]
data = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_pairs=twenty, num_workers=0,
                          cache_dir=str(root / "cache"))
# the check before evaluate's folders are rebuilt: check_evaluation_channel_units before this session's change
name = "check_evaluation_headers" if hasattr(checks, "check_evaluation_headers") else "check_evaluation_channel_units"
config, times, said = read_export_config(root / "model"), [], ""
for _ in range(5):
    start = time.perf_counter()
    try:
        getattr(checks, name)(data, config)
    except DataError as error:
        said = str(error)
    times.append(time.perf_counter() - start)
print(f"{name} on 20 cases in metres: median {statistics.median(times) * 1000:.1f} ms of 5 "
      f"({', '.join(f'{t * 1000:.1f}' for t in times)}); its refusal's first line: {said.splitlines()[:1]}")
times = []
for _ in range(5):
    start = time.perf_counter()
    try:
        model.evaluate(data, output_dir=root / "evaluation_20")
    except DataError:
        pass
    times.append(time.perf_counter() - start)
print(f"evaluate's refusal of those 20: median {statistics.median(times) * 1000:.1f} ms of 5 "
      f"({', '.join(f'{t * 1000:.1f}' for t in times)})")
shutil.rmtree(root / "cache", ignore_errors=True)
