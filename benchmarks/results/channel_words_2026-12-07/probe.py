"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 timeout 600 \
    /work/main/.venv/bin/python benchmarks/results/channel_words_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/channel_words_2026-12-07/<before|after>.txt
Helper h112 (hundred-and-twenty-first session): one channel fault, told alike by every path.
(1) a case of two files for a 2-channel model, one a 4D file of 3 volumes AND the other on another grid: what
    Segmentation.evaluate, Segmentation.predict, `accelerated-seg predict` and `accelerated-seg check` name first;
(2) an export whose config.json names no channels: the words evaluate, predict and fit use for its channels, and
    whether an export or manifest naming them "image_0" (as earlier versions wrote them) still loads and predicts;
(3) Dataset.from_files(..., channel_names=[2 names]) whose first case is one file of 1 or 3 volumes, beside predict's
    and check's words for the same file;
(4) a 4D file whose header says its 4th axis is time: what nibabel writes by default, what each path does.
Paths are printed relative to the folder given (<root>)."""
import contextlib
import io
import json
import shutil
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.cli import main
from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
(root / "files").mkdir(parents=True)
rng = np.random.default_rng(0)
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
OTHER_GRID = np.diag([3.0, 3.0, 3.0, 1.0])


def save(array, name, affine=AFFINE, folder="files"):
    (root / folder).mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(array, affine), root / folder / name)
    return str(root / folder / name)


def said(run) -> str:
    """What a call says: "taken", or its refusal's lines, the folder given shown as <root>."""
    try:
        run()
        return "taken"
    except BaseException as error:  # noqa: BLE001
        return f"refused ({type(error).__name__}): " + str(error).replace(str(root), "<root>").replace("\n", "\n    ")


def cli(*args) -> str:
    """`accelerated-seg ARGS`: its status and its lines on stderr that say what is wrong."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(list(args))
    lines = [line for line in err.getvalue().replace(str(root), "<root>").splitlines()
             if "shape" in line or "grid" in line or "error" in line.lower() or "channel" in line]
    return f"status {status}: " + "\n    ".join(lines[:4])


def msd_dataset(name, images, channels=("MRI0", "MRI1")) -> str:
    """A dataset.json in its own folder listing one training case of ``images``: the path `check` is given."""
    (root / name).mkdir()
    (root / name / "dataset.json").write_text(json.dumps({
        "labels": {"0": "background", "1": "a", "2": "b"}, "modality": dict(enumerate(channels)),
        "training": [{"image": images, "label": lab}]}))
    return str(root / name / "dataset.json")


label = np.zeros((8, 8, 8), np.uint8)
label[2:6, 2:6, 2:6] = 1
lab = save(label, "label.nii.gz")
three_volumes = save(rng.uniform(10, 100, (8, 8, 8, 3)).astype(np.float32), "three_volumes.nii.gz")
other_grid = save(rng.uniform(10, 100, (8, 8, 8)).astype(np.float32), "other_grid.nii.gz", OTHER_GRID)
model = Segmentation.load(export(root / "model", in_channels=2))

print("(1) two files for a 2-channel model: one of 3 volumes, the other on another grid")
for tag, images in (("[3 volumes, other grid]", [three_volumes, other_grid]),
                    ("[other grid, 3 volumes]", [other_grid, three_volumes])):
    data = Dataset.from_files([], validation_pairs=[(images, lab)], n_classes=3, block_shape=8, num_workers=0)
    print(f"  {tag} evaluate: {said(lambda: model.evaluate(data, output_dir=root / 'ev'))}")
    print(f"  {tag} predict:  {said(lambda: model.predict(images))}")
    folder = root / f"cli_{tag[1]}"
    folder.mkdir()
    for index, image in enumerate(images):
        shutil.copy(image, folder / f"case_{index:04d}.nii.gz")
    print(f"  {tag} accelerated-seg predict: "
          f"{cli('predict', '--model', str(root / 'model'), str(folder), '--output', str(root / 'out'))}")
    print(f"  {tag} accelerated-seg check: {cli('check', msd_dataset(f'msd_{tag[1]}', images))}")

print("(2) an export whose config.json names no channels")
unnamed = export(root / "unnamed", in_channels=2)
config = json.loads((unnamed / "config.json").read_text())
del config["channels"]
(unnamed / "config.json").write_text(json.dumps(config))
unnamed_model = Segmentation.load(unnamed)
data = Dataset.from_files([], validation_pairs=[([three_volumes, other_grid], lab)], n_classes=3, block_shape=8,
                          num_workers=0)
print(f"  evaluate: {said(lambda: unnamed_model.evaluate(data, output_dir=root / 'ev_unnamed'))}")
print(f"  predict:  {said(lambda: unnamed_model.predict(three_volumes))}")
print(f"  predict of 3 files: {said(lambda: unnamed_model.predict([other_grid, other_grid, other_grid]))}")
two = save(rng.uniform(10, 100, (8, 8, 8, 2)).astype(np.float32), "two_volumes.nii.gz")
two_again = save(np.asanyarray(nib.load(two).dataobj), "two_volumes_again.nii.gz")
lab_again = save(label, "label_again.nii.gz")
one_file_cases = Dataset.from_files([(two, lab)], validation_pairs=[(two_again, lab_again)], n_classes=3, block_shape=8,
                                    num_workers=0, cache_dir=str(root / "cache"), spacing=(2.5, 2.5, 2.5))
loaded = Segmentation.load(unnamed, output_dir=str(root / "fit_unnamed"), trackers="none", progress_bar=False,
                           val_every=0, save_every=0)
print(f"  fit on one (x, y, z, 2) file a case: {said(lambda: loaded.fit(one_file_cases, steps=1))}")
good = Dataset.from_files([], validation_pairs=[(two, lab)], n_classes=3, block_shape=8, num_workers=0)
summary = unnamed_model.evaluate(good, output_dir=root / "ev_unnamed_ok")
written = [path.relative_to(root) for path in (root / "ev_unnamed_ok").rglob("*")
           if path.is_file() and path.suffix in (".json", ".csv") and "image_0" in path.read_text()]
print(f"  evaluate of one (x, y, z, 2) file: {summary['num_cases']} case(s); files naming image_0: {written}")
print(f"  evaluate's manifest of it: channels "
      f"{__import__('accelerated_seg.estimator_predict_checks', fromlist=['x']).evaluated_manifest(good, config).channels}")
old = shutil.copytree(unnamed, root / "old_image_0")
config["channels"] = {"0": "image_0", "1": "image_1"}
(old / "config.json").write_text(json.dumps(config))
print(f"  an export naming image_0/image_1 (earlier versions' default): predict "
      f"{said(lambda: Segmentation.load(old).predict(two))}; its words of 3 volumes: "
      f"{said(lambda: Segmentation.load(old).predict(three_volumes))}")

print("(3) Dataset.from_files(..., channel_names=['T1', 'FLAIR']), a first case of one file")
one_volume = save(rng.uniform(10, 100, (8, 8, 8)).astype(np.float32), "one_volume.nii.gz")
named = Segmentation.load(export(root / "named", in_channels=2, channels={"0": "T1", "1": "FLAIR"}))
for tag, image in (("1 volume", one_volume), ("3 volumes", three_volumes)):
    print(f"  {tag} from_files: {said(lambda: Dataset.from_files([(image, lab)], n_classes=3, block_shape=8, channel_names=['T1', 'FLAIR']))}")
    print(f"  {tag} predict:    {said(lambda: named.predict(image))}")
    print(f"  {tag} check:      {cli('check', msd_dataset(f'msd_names_{tag[0]}', image, ('T1', 'FLAIR')))}")

print("(4) a 4D file whose fourth axis the header says is time")
plain = nib.Nifti1Image(np.zeros((4, 4, 4, 2), np.float32), AFFINE)
print(f"  nibabel's default for a new 4D image: xyzt_units={int(plain.header['xyzt_units'])} "
      f"{plain.header.get_xyzt_units()}, pixdim[4]={float(plain.header['pixdim'][4])}")
timed = nib.Nifti1Image(rng.uniform(10, 100, (8, 8, 8, 2)).astype(np.float32), AFFINE)
timed.header.set_xyzt_units("mm", "sec")
timed.header["pixdim"][4] = 2.0
nib.save(timed, root / "files" / "timed.nii.gz")
timed_path = str(root / "files" / "timed.nii.gz")
print(f"  saved with sec, 2 s: xyzt_units {nib.load(timed_path).header.get_xyzt_units()}, zooms "
      f"{tuple(float(z) for z in nib.load(timed_path).header.get_zooms())}")
print(f"  predict: {said(lambda: model.predict(timed_path))}")
err = io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
    status = main(["check", msd_dataset("msd_timed", timed_path)])
print(f"  check: status {status}; lines naming time: "
      f"{[line for line in err.getvalue().replace(str(root), '<root>').splitlines() if 'time' in line]}")
