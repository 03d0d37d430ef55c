"""Run as: cd <worktree> && PYTHONPATH=<worktree> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/review_predict_training_voxels_2026-12-06/every_writer.py <empty folder> > every_writer.txt
Review of helper h105 (r89): is cases_median_spacing in every config.json a run writes? A real run (2 steps, one
CPU process) at data.spacing 4 x 4 x 4 on phantoms of 2 mm whose validation cases are rewritten at 1 x 1.5 x 3 mm
(so that the median over training and validation cases, what training's far finer check weighs a case against,
differs from the training cases' alone), validated at step 2: the cases' medians, then the key in out/model,
out/best_model, the checkpoint's export.json and `accelerated-seg export` of the checkpoint; the same run with
data.spacing unset; the estimator's fit with spacing set and its save()."""
import json
import subprocess
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.config import load_config
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.spacing import median_spacing
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation
from accelerated_seg.train import train

root = Path(sys.argv[1]).absolute()
root.mkdir(exist_ok=True)
dataset = write_synthetic_dataset(root / "data", num_cases=6, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
manifest = load_msd(dataset)
for case in manifest.validation:  # the validation cases at other voxel sizes, their labels alike
    for path in (case.images[0], case.label):
        image = nib.load(path)
        affine = image.affine @ np.diag([*(np.array([1.0, 1.5, 3.0]) / nib.affines.voxel_sizes(image.affine)), 1])
        nib.save(nib.Nifti1Image(np.asanyarray(image.dataobj), affine, image.header), path)
train_median = median_spacing([case.images[0] for case in manifest.training])
all_median = median_spacing([case.images[0] for case in manifest.training + manifest.validation])
print("training cases' median:", train_median, "training and validation cases':", all_median)


def settings(run: str, spacing: str | None) -> list[str]:
    given = {"data.dataset": str(dataset), "data.cache_dir": str(root / "cache"), "data.patch_size": "[16,16,16]",
             "data.samples_per_volume": 2, "data.num_workers": 0,
             "model.args": "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}", "optim.warmup_steps": 1,
             "train.output_dir": str(root / run), "train.max_steps": 2, "train.batch_size": 2, "train.val_every": 2,
             "train.save_every": 2, "train.log_every": 1, "train.progress_bar": "false", "train.trackers": "none",
             **({"data.spacing": spacing} if spacing else {})}
    return [f"--{key}={value}" for key, value in given.items()]


def recorded(path: Path) -> str:
    if not path.is_file():
        return "no file"
    config = json.loads(path.read_text())
    return f"spacing {config.get('spacing')} set {config.get('spacing_set')} cases_median_spacing " + (
        str(config["cases_median_spacing"]) if "cases_median_spacing" in config else "ABSENT")


for run, spacing in (("set", "[4.0,4.0,4.0]"), ("median", None)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train(load_config(None, settings(run, spacing)))
    out = root / run
    subprocess.run([sys.executable, "-m", "accelerated_seg", "export", str(out / "checkpoints" / "step_2"),
                    "--output", str(root / f"{run}_exported")], check=True, capture_output=True)
    for name, path in (("model/config.json", out / "model" / "config.json"),
                       ("best_model/config.json", out / "best_model" / "config.json"),
                       ("checkpoints/step_2/export.json", out / "checkpoints" / "step_2" / "export.json"),
                       ("export of step_2", root / f"{run}_exported" / "config.json")):
        print(f"{run:7} {name:32} {recorded(path)}")

pairs = [(str(case.images[0]), str(case.label)) for case in manifest.training]
held = [(str(case.images[0]), str(case.label)) for case in manifest.validation]
data = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_pairs=held, num_workers=0,
                          cache_dir=str(root / "cache"), spacing=(4.0, 4.0, 4.0))
model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                     output_dir=str(root / "fit"), val_every=2, save_every=0, trackers="none", progress_bar=False)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    model.fit(data, steps=2)
print(f"fit     {'model_dir config.json':32} {recorded(Path(model.model_dir) / 'config.json')}")
print(f"fit     {'save() config.json':32} {recorded(model.save(root / 'saved') / 'config.json')}")
