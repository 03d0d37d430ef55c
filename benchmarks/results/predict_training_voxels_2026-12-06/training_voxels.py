"""Run as: cd <worktree> && PYTHONPATH=<worktree> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/predict_training_voxels_2026-12-06/training_voxels.py <empty folder> > <output>.txt
The hundred-and-nineteenth session (helper h105): predict, for a model trained coarser on purpose (data.spacing set),
took a scan in metres whose header says mm at its word, where training refuses such a case 100 times finer than the
cases' median (docs/known_issues.md's Open entry "A NIfTI header whose numbers are metres while its unit says mm";
benchmarks/results/units_edges_2026-12-06/, edges.py's outlier row). A model is trained for real (2 steps, one CPU
process) on phantoms of 2 mm (some slices 4 mm) at data.spacing 4 x 4 x 4, coarser on purpose; its export's
config.json is printed (spacing_set, spacing_unit and what it records of the cases' voxels), then each scan is
predicted by it, by a copy of its export without that record (an export made before), and by the two as an ensemble:
  metres_as_mm  a phantom's geometry scaled to metres (0.002 mm), its header declaring mm: 2,000 times finer than
                the spacing, 1,000 times finer than the cases' median
  fine_30um     the same at 0.03 mm: 133 times finer than the spacing, 67 times finer than the median (no refusal:
                taken at its word, as training takes such a case)
  own_voxels    a phantom as it is, declaring mm (the training cases' own voxel size)
Each cell: PASSES (the label map's shape) or the refusal's first 300 characters; then each refusal of the model's
whole, and the scan predicted again by it once the refusal's nibabel line is run on a copy of it."""
import json
import re
import shutil
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.config import load_config
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.inference import predict_file
from accelerated_seg.train import train

root = Path(sys.argv[1]).absolute()
root.mkdir(exist_ok=True)
dataset = write_synthetic_dataset(root / "data", num_cases=6, num_validation=2, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
settings = {"data.dataset": str(dataset), "data.cache_dir": str(root / "cache"), "data.patch_size": "[16,16,16]",
            "data.spacing": "[4.0,4.0,4.0]", "data.samples_per_volume": 2, "data.num_workers": 0,
            "model.args": "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}", "optim.warmup_steps": 1,
            "train.output_dir": str(root / "run"), "train.max_steps": 2, "train.batch_size": 2,
            "train.val_every": 0, "train.save_every": 2, "train.log_every": 1, "train.progress_bar": "false",
            "train.trackers": "none"}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    train(load_config(None, [f"--{key}={value}" for key, value in settings.items()]))
model = root / "run" / "model"
config = json.loads((model / "config.json").read_text())
print("config.json:", {key: value for key, value in config.items()
                       if key in ("spacing", "spacing_set", "spacing_unit") or "median" in key})

older = root / "older"  # the same export without what this session records: as one made before it
shutil.copytree(model, older)
recorded = {key: value for key, value in config.items() if "median" not in key}
(older / "config.json").write_text(json.dumps(recorded))

phantom = nib.load(sorted((Path(dataset).parent / "imagesTr").glob("*.nii.gz"))[0])
print("phantom:", phantom.get_filename(), phantom.shape, nib.affines.voxel_sizes(phantom.affine).tolist())


def scan(name: str, scale: float) -> Path:
    image = nib.Nifti1Image(np.asanyarray(phantom.dataobj), np.diag([scale] * 3 + [1.0]) @ phantom.affine)
    image.header.set_xyzt_units("mm")
    nib.save(image, root / f"{name}.nii.gz")
    return root / f"{name}.nii.gz"


refusals = {}
scans = {"metres_as_mm": scan("metres_as_mm", 0.001), "fine_30um": scan("fine_30um", 0.015),
         "own_voxels": scan("own_voxels", 1.0)}
for name, path in scans.items():
    for who, given in (("model", model), ("older export", older), ("ensemble", [model, older])):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                written = predict_file(given, path, root / "out.nii.gz", device="cpu")
            said = f"PASSES {nib.load(written).shape}"
        except DataError as error:
            said = f"refused: {str(error).replace(str(root), '<root>')[:300]}"
            if who == "model":
                refusals[name] = str(error)
        (root / "out.nii.gz").unlink(missing_ok=True)
        print(f"{name:13} {who:13} {said}")

for name, said in refusals.items():
    print(f"\n{name}, the model's refusal whole: {said.replace(str(root), '<root>')}")
    line = re.search(r"\(nibabel, from metres: (img = .*?, path\))\)", said).group(1)
    copy = shutil.copy(scans[name], root / f"{name}_rewritten.nii.gz")
    exec(line, {"nib": nib, "np": np, "path": str(copy)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = predict_file(model, copy, root / "out.nii.gz", device="cpu")
    print(f"its line run on a copy: voxels {nib.affines.voxel_sizes(nib.load(copy).affine).tolist()}, "
          f"PASSES {nib.load(written).shape}")
