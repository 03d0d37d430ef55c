"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 timeout 900 \
    /work/main/.venv/bin/python benchmarks/results/four_d_cases_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/four_d_cases_2026-12-07/<before|after>.txt
(before.txt: main at 30b9fc63; after.txt: branch h109.)
Helper h109 (hundred-and-twentieth session), after review r92: which forms of one case's image does each path take
for a model (or dataset) of 2 channels? Forms: one 4D file of 2, 1 or 3 volumes, NIfTI's vector layout (x, y, z, 1,
2) as ITK writes multi-component images, (x, y, z, 2, 1), two 3D files, one 3D file; 8^3 voxels, a 3D label. Paths:
fit's pre-flight check (Dataset.from_files(pairs, channel_names=2 names, or none) then the checks loader() and fit
run, data.prepare.prepare_manifest), Segmentation.evaluate (a Dataset of that one validation case, names or none),
Segmentation.predict, the command line's predict (--input), and `accelerated-seg check` of an MSD dataset.json whose
"modality" declares 2 channels. The model: tests/test_inference.export, in_channels 2 (channels MRI0, MRI1).
Printed: form | path | taken, or refused and its words (the first problem line, paths shortened to their names)."""
import contextlib
import io
import json
import re
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.cli import main
from accelerated_seg.data.prepare import prepare_manifest
from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
rng = np.random.default_rng(0)
model = export(root / "model", in_channels=2)
NAMES = ["MRI0", "MRI1"]
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])  # the model's spacing: nothing resampled


def volume() -> np.ndarray:
    return rng.uniform(10, 100, (8, 8, 8)).astype(np.float32)


def save(array, name: str) -> str:
    path = root / "files" / name
    path.parent.mkdir(exist_ok=True)
    nib.save(nib.Nifti1Image(array, AFFINE), path)
    return str(path)


label = np.zeros((8, 8, 8), np.uint8)
label[2:6, 2:6, 2:6] = 1
label[3:5, 3:5, 3:5] = 2
FORMS = {
    "4D (8,8,8,2)": lambda: save(np.stack([volume(), volume()], -1), "four_d_2.nii.gz"),
    "4D (8,8,8,1)": lambda: save(volume()[..., None], "four_d_1.nii.gz"),
    "4D (8,8,8,3)": lambda: save(np.stack([volume()] * 3, -1), "four_d_3.nii.gz"),
    "5D (8,8,8,1,2)": lambda: save(np.stack([volume(), volume()], -1)[:, :, :, None], "vector.nii.gz"),
    "5D (8,8,8,2,1)": lambda: save(np.stack([volume(), volume()], -1)[..., None], "five_d_2_1.nii.gz"),
    "two 3D files": lambda: [save(volume(), "two_0000.nii.gz"), save(volume(), "two_0001.nii.gz")],
    "one 3D file": lambda: save(volume(), "one_3d.nii.gz"),
}


def said(error: BaseException | str) -> str:
    """The first problem line of a refusal, its paths shortened to their names."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    first = next((line for line in lines if line.startswith("- ")), lines[0] if lines else "")
    return re.sub(r"(/[^\s:,()']+)+/", "", first)


def fit(images, lab, names):
    data = Dataset.from_files([(images, lab)], validation_pairs=[], block_shape=8, n_classes=3, num_workers=0,
                              channel_names=names, cache_dir=str(root / "cache"))
    prepare_manifest(data.data, str(root), data.manifest)


def evaluate(images, lab, names, tag):
    data = Dataset.from_files([], validation_pairs=[(images, lab)], block_shape=8, n_classes=3, num_workers=0,
                              channel_names=names)
    Segmentation.load(model).evaluate(data, output_dir=root / f"eval_{tag}")


def predict(images, lab):
    Segmentation.load(model).predict(images)


def command(argv: list[str]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    if status:
        raise RuntimeError(err.getvalue().strip() or f"status {status}")


def predict_command(images, lab, tag):
    listed = images if isinstance(images, list) else [images]
    command(["predict", "--model", str(model), "--input", *listed, "--output", str(root / f"cli_{tag}.nii.gz")])


def check_command(images, lab, tag):
    folder = root / f"msd_{tag}"
    folder.mkdir()
    (folder / "dataset.json").write_text(json.dumps({
        "labels": {"0": "background", "1": "a", "2": "b"}, "modality": {"0": "MRI0", "1": "MRI1"},
        "training": [{"image": images, "label": lab}]}))
    command(["check", str(folder / "dataset.json")])


for number, (form, make) in enumerate(FORMS.items()):
    images, lab = make(), save(label, f"label_{number}.nii.gz")
    for path, run in (
            ("fit, channel_names=2", lambda: fit(images, lab, NAMES)),
            ("fit, no channel_names", lambda: fit(images, lab, None)),
            ("evaluate, channel_names=2", lambda: evaluate(images, lab, NAMES, f"{number}n")),
            ("evaluate, no channel_names", lambda: evaluate(images, lab, None, f"{number}")),
            ("Segmentation.predict", lambda: predict(images, lab)),
            ("predict --input (CLI)", lambda: predict_command(images, lab, number)),
            ("check (MSD, modality 2)", lambda: check_command(images, lab, number))):
        try:
            run()
            verdict = "taken"
        except BaseException as error:  # noqa: BLE001 - the probe reports every refusal
            verdict = f"refused ({type(error).__name__}): {said(error)}"
        print(f"{form:16} | {path:27} | {verdict}", flush=True)
    print()
