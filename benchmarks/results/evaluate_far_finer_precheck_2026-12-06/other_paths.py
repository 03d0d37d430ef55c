"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/evaluate_far_finer_precheck_2026-12-06/other_paths.py <empty folder> > other_paths.txt
The hundred-and-nineteenth session (helper h106): the other ways a scan in metres (numbers / 1000, a header of no unit,
1,250 times finer than the model's spacing 2.5) reaches predict's far finer refusal, each told here as it behaves:
Segmentation.predict given a folder or a list of two files (a one-channel model), `accelerated-seg predict` over a
folder of three cases, the second in metres (which label maps are written, its status, what it says), and
Segmentation.fit whose validation pairs hold that case (refused before a step? a checkpoint or model written?)."""
import shutil
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

root = Path(sys.argv[1]).absolute()
dataset = load_msd(write_synthetic_dataset(root / "data", num_cases=5, num_validation=3, seed=0,
                                           size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0))
pairs = [(str(case.images[0]), str(case.label)) for case in dataset.training]
validation = [(str(case.images[0]), str(case.label)) for case in dataset.validation]
model_dir = export(root / "model", spacing=(2.5, 2.5, 2.5), cases_median_spacing=[2.0, 2.0, 2.0])


def in_metres(source: str, target: Path) -> str:
    image = nib.load(source)
    nib.save(nib.Nifti1Image(np.asanyarray(image.dataobj), np.diag([1e-3] * 3 + [1.0]) @ image.affine), target)
    return str(target)


scans = root / "scans"
(scans / "labels").mkdir(parents=True)
names = [Path(image).name for image, _ in validation]
files = [in_metres(image, scans / name) if index == 1 else shutil.copy(image, scans / name)
         for index, ((image, _), name) in enumerate(zip(validation, names))]
label_in_metres = in_metres(validation[1][1], scans / "labels" / names[1])


def said(call) -> str:
    try:
        call()
        return "no refusal"
    except Exception as error:  # noqa: BLE001 - what each says is the finding
        return f"{type(error).__name__}: {str(error)[:300]}"


model = Segmentation.load(model_dir)
print("Segmentation.predict(folder):", said(lambda: model.predict(str(scans))))
print("Segmentation.predict([two files]):", said(lambda: model.predict(files[:2])))

out = root / "predicted"
run = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", "predict", "--model", str(model_dir),
                      str(scans), "--output", str(out)], capture_output=True, text=True)
print("accelerated-seg predict FOLDER: status", run.returncode, "written:",
      sorted(path.name for path in out.glob("*.nii.gz")))
print("  its stderr's last lines:", *[line[:300] for line in run.stderr.strip().splitlines()[-4:]], sep="\n    ")

data = Dataset.from_files(pairs, block_shape=16, n_classes=3, num_workers=0, cache_dir=str(root / "cache"),
                          validation_pairs=[validation[0], (files[1], label_in_metres)])
trained = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                       output_dir=str(root / "run"), trackers="none", progress_bar=False)
print("Segmentation.fit, a validation case in metres:", said(lambda: trained.fit(data, steps=2)))
print("  the run folder exists:", (root / "run").exists(), "and holds:", sorted(path.name for path in
                                                                           (root / "run").rglob("*")))
