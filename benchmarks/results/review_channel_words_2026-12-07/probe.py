"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 timeout 600 \
    /work/main/.venv/bin/python benchmarks/results/review_channel_words_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/review_channel_words_2026-12-07/<before|after>.txt
Review of helper h112 (hundred-and-twenty-first session): the cases its brief asked to be checked besides its probe."""
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
rng = np.random.default_rng(0)
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
OTHER_GRID = np.diag([3.0, 3.0, 3.0, 1.0])


def save(array, name, affine=AFFINE, folder="files"):
    (root / folder).mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(array, affine), root / folder / name)
    return str(root / folder / name)


def truncated(source, name):
    """A copy of ``source`` whose gzip stream ends half-way: its header whole, its voxels cut short."""
    data = Path(source).read_bytes()
    (root / "files" / name).write_bytes(data[:len(data) // 2])
    return str(root / "files" / name)


def said(run) -> str:
    try:
        run()
        return "taken"
    except BaseException as error:  # noqa: BLE001
        return f"refused ({type(error).__name__}): " + str(error).replace(str(root), "<root>").replace("\n", "\n    ")


def cli(*args) -> str:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(list(args))
    lines = [line for line in err.getvalue().replace(str(root), "<root>").splitlines() if "error" in line.lower()
             or "lacks" in line or "shape" in line or "channel" in line or line.lstrip().startswith("case ")]
    return f"status {status}: " + "\n    ".join(lines[:6])


label = np.zeros((16, 16, 16), np.uint8)
label[4:12, 4:12, 4:12] = 1
lab = save(label, "label.nii.gz")
vol = lambda: rng.uniform(10, 100, (16, 16, 16)).astype(np.float32)  # noqa: E731
a = save(vol(), "a.nii.gz")
b = save(vol(), "b.nii.gz")
b_4d1 = save(vol()[..., None], "b_4d1.nii.gz")
b_int16 = save((vol() * 10).astype(np.int16), "b_int16.nii.gz")
b_other = save(vol(), "b_other.nii.gz", OTHER_GRID)
b_trunc = truncated(save(vol(), "b_whole.nii.gz"), "b_trunc.nii.gz")
b_other_trunc = truncated(b_other, "b_other_trunc.nii.gz")
two = save(rng.uniform(10, 100, (16, 16, 16, 2)).astype(np.float32), "two.nii.gz")
two_trunc = truncated(two, "two_trunc.nii.gz")
model = Segmentation.load(export(root / "model", in_channels=2))
one_model = Segmentation.load(export(root / "one", in_channels=1))

print("(A) one case's channel files, a 2-channel model: predict, then evaluate")
for tag, images in (("3D + (x,y,z,1)", [a, b_4d1]), ("float32 + int16", [a, b_int16]), ("one (x,y,z,2) file", [two]),
                    ("3D + truncated, same grid", [a, b_trunc]), ("3D + truncated, other grid", [a, b_other_trunc]),
                    ("one truncated (x,y,z,2) file", [two_trunc])):
    data = Dataset.from_files([], validation_pairs=[(images if len(images) > 1 else images[0], lab)], n_classes=3,
                              block_shape=16, num_workers=0)
    print(f"  {tag} predict:  {said(lambda: model.predict(images if len(images) > 1 else images[0]))}")
    print(f"  {tag} evaluate: {said(lambda: model.evaluate(data, output_dir=root / 'ev'))}")

print("(B) exports naming their channels ['image_0','image_1'], none, ['T1','FLAIR']: 3 files given")
for tag, channels in (("image_0/image_1", {"0": "image_0", "1": "image_1"}), ("none", None),
                      ("T1/FLAIR", {"0": "T1", "1": "FLAIR"})):
    folder = export(root / f"named_{tag[0]}", in_channels=2)
    config = json.loads((folder / "config.json").read_text())
    config.pop("channels")
    if channels is not None:
        config["channels"] = channels
    (folder / "config.json").write_text(json.dumps(config))
    print(f"  {tag}: {said(lambda: Segmentation.load(folder).predict([a, b, b]))}")
print(f"  a one-channel model given two files: {said(lambda: one_model.predict([a, b]))}")
print(f"  a one-channel model given one (x,y,z,2) file: {said(lambda: one_model.predict(two))}")

print("(C) accelerated-seg predict of a folder of nnU-Net names")
for tag, files in (("case q lacks _0001", {"p_0000": a, "p_0001": b, "q_0000": a}),
                   ("q_0000 of 3 volumes, q_0001 absent",
                    {"p_0000": a, "p_0001": b, "q_0000": save(rng.uniform(1, 2, (16, 16, 16, 3)).astype(np.float32),
                                                              "three.nii.gz")}),
                   ("p_0001 truncated", {"p_0000": a, "p_0001": b_trunc}),
                   ("p_0001 other grid and truncated", {"p_0000": a, "p_0001": b_other_trunc})):
    folder = root / f"cli_{len(list(root.glob('cli_*')))}"
    folder.mkdir()
    for name, source in files.items():
        shutil.copy(source, folder / f"{name}.nii.gz")
    print(f"  {tag}: {cli('predict', '--model', str(root / 'model'), str(folder), '--output', str(root / 'out'))}")

print("(D) Dataset.from_files(..., channel_names=['T1', 'FLAIR']) of a first file saved channel first, (2, x, y, z)")
first = save(rng.uniform(10, 100, (2, 16, 16, 16)).astype(np.float32), "channel_first.nii.gz")
t1_flair = Segmentation.load(export(root / "named", in_channels=2, channels={"0": "T1", "1": "FLAIR"}))
print(f"  from_files: "
      f"{said(lambda: Dataset.from_files([(first, lab)], n_classes=3, block_shape=16, channel_names=['T1', 'FLAIR']))}")
print(f"  predict:    {said(lambda: t1_flair.predict(first))}")

print("(E) accelerated-seg predict of BraTS-named files (<case>_<channel name>), one a 4D file of 3 volumes")
named = export(root / "named_e", in_channels=2, channels={"0": "T1", "1": "FLAIR"})
for tag, files in (("pat_T1 of 3 volumes, pat_FLAIR 3D", {"pat_T1": root / "files" / "three.nii.gz", "pat_FLAIR": a}),
                   ("pat_T1 of 3 volumes, pat_FLAIR absent", {"pat_T1": root / "files" / "three.nii.gz"})):
    folder = root / f"cli_{len(list(root.glob('cli_*')))}"
    folder.mkdir()
    for name, source in files.items():
        shutil.copy(source, folder / f"{name}.nii.gz")
    print(f"  {tag}: {cli('predict', '--model', str(named), str(folder), '--output', str(root / 'out'))}")
