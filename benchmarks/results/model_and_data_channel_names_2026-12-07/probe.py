"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 timeout 900 \
    /work/main/.venv/bin/python benchmarks/results/model_and_data_channel_names_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/model_and_data_channel_names_2026-12-07/<before|after>.txt
(<code>: main's accelerated_seg, `git archive 34868680 accelerated_seg | tar -x -C <code>`, for before.txt; the
worktree for after.txt.)
Helper h127 of the hundred-and-twenty-third session: (E) Segmentation.evaluate of a Dataset whose channel_names differ
from the model's config.json `channels` (another order, other names, names the Dataset made up, a model's blank ones;
a Dataset's blank ones are refused by from_files), and
whether anything was written; (S) `accelerated-seg check`'s summary line of a CSV's unnamed channels and a
dataset.json's named ones; (G) a one-channel dataset.json naming its channel CT, its label on another grid; (P) `accelerated-seg predict` of an nnU-Net dataset's
imagesTs/ whose dataset.json (one folder up) names the model's channels in another order, or otherwise."""
import contextlib
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.cli import main
from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

root = Path(sys.argv[1]).absolute()
rng = np.random.default_rng(0)
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
label = np.zeros((16, 16, 16), np.uint8)
label[4:12, 4:12, 4:12] = 1


def save(path, array, affine=AFFINE):
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(array, affine), path)
    return path


def short(text: str) -> str:
    return text.replace(str(root), "<root>")


print("(E) Segmentation.evaluate: the model's channels MRI0, MRI1 (config.json) against the Dataset's channel_names")
lab = save(root / "E" / "label.nii.gz", label)
images = [str(save(root / "E" / f"e_{index:04d}.nii.gz", rng.uniform(10, 100, (16, 16, 16)).astype(np.float32)))
          for index in range(2)]
named = export(root / "E" / "mri", in_channels=2)
unnamed = export(root / "E" / "none", in_channels=2)
config = json.loads((unnamed / "config.json").read_text())
del config["channels"]
(unnamed / "config.json").write_text(json.dumps(config))
blank = export(root / "E" / "blank", in_channels=2, channels={"0": "", "1": " "})
for tag, model_dir, names in (("model MRI0, MRI1; Dataset MRI1, MRI0 (another order)", named, ["MRI1", "MRI0"]),
                              ("model MRI0, MRI1; Dataset mri1, MRI0 (another order, case aside)", named,
                               ["mri1", "MRI0"]),
                              ("model MRI0, MRI1; Dataset T1, FLAIR (other names)", named, ["T1", "FLAIR"]),
                              ("model MRI0, MRI1; Dataset MRI0, FLAIR (one other name)", named, ["MRI0", "FLAIR"]),
                              ("model MRI0, MRI1; Dataset MRI0, MRI1 (the same)", named, ["MRI0", "MRI1"]),
                              ("model MRI0, MRI1; Dataset naming none", named, None),
                              ("model MRI0, MRI1; Dataset image_1, image_0", named, ["image_1", "image_0"]),
                              ("model naming none; Dataset T1, FLAIR", unnamed, ["T1", "FLAIR"]),
                              ("model naming '', ' '; Dataset T1, FLAIR", blank, ["T1", "FLAIR"])):
    out = root / "ev" / tag.split(";")[1].strip().replace(" ", "_").replace("'", "q")[:30]
    data = Dataset.from_files([], validation_pairs=[(images, str(lab))], n_classes=3, block_shape=16, num_workers=0,
                              channel_names=names)
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        try:
            summary = Segmentation.load(model_dir).evaluate(data, output_dir=out)
            outcome = f"scored ({summary['num_cases']} case)"
        except Exception as error:  # noqa: BLE001
            outcome = f"{type(error).__name__}: {short(str(error))}"
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and not p.name.startswith(".")) \
        if out.exists() else []
    said = [short(str(w.message)) for w in raised if "channel" in str(w.message)]
    print(f"  {tag}:\n    {outcome}\n    warnings naming a channel: {said}\n    written: {written}")

print("(S) accelerated-seg check's summary line")
csv_folder = root / "S" / "csv"
files = [save(csv_folder / f"s_{index:04d}.nii.gz", rng.uniform(10, 100, (16, 16, 16)).astype(np.float32))
         for index in range(2)]
slab = save(csv_folder / "s.nii.gz", label)
rows = "\n".join(f"{files[0]},{files[1]},{slab}" for _ in range(1))
(csv_folder / "cases.csv").write_text(f"image_0,image_1,label\n{rows}\n")
one = root / "S" / "one"
one_image = save(one / "o.nii.gz", rng.uniform(10, 100, (16, 16, 16)).astype(np.float32))
one_label = save(one / "o_label.nii.gz", label)
(one / "cases.csv").write_text(f"image,label\n{one_image},{one_label}\n")
ds = root / "S" / "named"
ds.mkdir(parents=True)
(ds / "dataset.json").write_text(json.dumps({"name": "n", "modality": {"0": "T1", "1": "FLAIR"},
                                             "labels": {"0": "background", "1": "lesion"},
                                             "training": [{"image": [str(f) for f in files], "label": str(slab)}]}))
for tag, given in (("CSV image_0, image_1", csv_folder / "cases.csv"), ("CSV image", one / "cases.csv"),
                   ("dataset.json T1, FLAIR", ds / "dataset.json")):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            status = main(["check", str(given)])
        except SystemExit as stop:
            status = stop.code
    lines = [short(line) for line in printed.getvalue().splitlines() if "channels:" in line]
    print(f"  {tag}: status {status}; {lines}")

print("(G) a one-channel dataset.json naming its channel CT, its label on another grid (training's check)")
g = root / "G"
image = save(g / "g.nii.gz", rng.uniform(10, 100, (16, 16, 16)).astype(np.float32))
off_label = save(g / "g_label.nii.gz", label, np.diag([3.0, 3.0, 3.0, 1.0]))
(g / "dataset.json").write_text(json.dumps({"name": "n", "modality": {"0": "CT"},
                                            "labels": {"0": "background", "1": "lesion"},
                                            "training": [{"image": str(image), "label": str(off_label)}]}))
manifest = load_cases(g / "dataset.json", validation_fraction=0.0)
report = check_manifest(manifest)
for error in report.errors:
    print(f"  {short(error)}")

print("(P) accelerated-seg predict --model <MRI0, MRI1> Task/imagesTs, Task/dataset.json's channel_names:")
task = root / "P" / "Task"
for index in range(2):
    save(task / "imagesTs" / f"p_{index:04d}.nii.gz", rng.uniform(10, 100, (16, 16, 16)).astype(np.float32))
for tag, names in (("MRI1, MRI0", {"0": "MRI1", "1": "MRI0"}), ("T1, FLAIR", {"0": "T1", "1": "FLAIR"}),
                   ("MRI0, MRI1", {"0": "MRI0", "1": "MRI1"})):
    (task / "dataset.json").write_text(json.dumps({"channel_names": names, "labels": {"background": 0},
                                                   "numTraining": 0, "file_ending": ".nii.gz"}))
    out = root / "P" / tag.replace(", ", "_")
    done = subprocess.run([sys.executable, "-m", "accelerated_seg", "predict", "--model", str(named),
                           str(task / "imagesTs"), "--output", str(out)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "default"}, cwd=root)  # not the worktree: -m
    lines = [short(line) for line in (done.stdout + done.stderr).splitlines() if "channel" in line or "wrote" in line]
    print(f"  {tag}: status {done.returncode}; written: {sorted(p.name for p in out.glob('*.nii.gz'))}")
    for line in lines:
        print(f"    {line}")
