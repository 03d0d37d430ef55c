"""Run as (the package at b301db27, h106's change, unpacked in <before>; branch r92 in <worktree>), alternately:
    for i in 1 2 3; do for p in <before> <worktree>; do PYTHONPATH=$p:<worktree>/tests OMP_NUM_THREADS=1 \
      /work/main/.venv/bin/python benchmarks/results/review_evaluate_precheck_2026-12-06/timing.py <empty folder>; done; done
Review of helper h106: what evaluate's refusal of 20 validation cases in metres (headers of no unit) costs, h106's
header check against r92's (which reads every channel's header once more to leave a case predict refuses first, a 2D
file, to the pre-flight check, and lists the pre-flight check's errors of the other cases, none here, with its own).
Printed: the package, the median of 5 of check_evaluation_headers alone and of Segmentation.evaluate's refusal."""
import shutil
import statistics
import sys
import time
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

import accelerated_seg
import accelerated_seg.estimator_predict_checks as checks
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation
from accelerated_seg.exported_model import read_export_config
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
shutil.rmtree(root, ignore_errors=True)
data = load_msd(write_synthetic_dataset(root / "data", num_cases=5, num_validation=3, seed=0,
                                        size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0))
pairs = [(str(c.images[0]), str(c.label)) for c in data.training]
validation = [(str(c.images[0]), str(c.label)) for c in data.validation]
(root / "twenty" / "labels").mkdir(parents=True)
twenty = []
for index in range(20):
    pair = []
    for path, folder in zip(validation[index % 3], ("", "labels")):
        image = nib.load(path)
        scaled = nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([1e-3] * 3 + [1.0]) @ image.affine)
        nib.save(scaled, root / "twenty" / folder / f"c{index:02d}.nii.gz")
        pair.append(str(root / "twenty" / folder / f"c{index:02d}.nii.gz"))
    twenty.append(tuple(pair))
dataset = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_pairs=twenty, num_workers=0,
                             cache_dir=str(root / "cache"))
model_dir = export(root / "model", spacing=(2.5,) * 3, cases_median_spacing=[2.0] * 3)
config, model = read_export_config(model_dir), Segmentation.load(model_dir)


def median_ms(work) -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        try:
            work()
        except DataError:
            pass
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


check = median_ms(lambda: checks.check_evaluation_headers(dataset, config))
refusal = median_ms(lambda: model.evaluate(dataset, output_dir=root / "out"))
print(f"{Path(accelerated_seg.__file__).parent.parent}: check {check:.0f} ms, evaluate's refusal {refusal:.0f} ms "
      f"(medians of 5)")
