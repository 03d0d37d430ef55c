"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 timeout 900 \
    /work/main/.venv/bin/python benchmarks/results/review_four_d_cases_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/review_four_d_cases_2026-12-07/probe.txt
Review r94 of helper h109's one-4D-file cases: (1) evaluate's Dice of a case of one (x, y, z, 2) file against
predict's map of it + a hand Dice, and against the same channels as two 3D files (in order, and swapped: the order
is fed); (2) fit on 4D pairs/validation_pairs without channel_names, a new model and one loaded (2 channels):
refused, in which words, and does the run folder exist after; (3) a 1-channel model given a (x, y, z, 2) file;
(4) a 4D file whose 4th axis the header says is time (xyzt_units sec, pixdim[4] = 2 s).
probe.txt: run at b5bdeba8 (none of its paths reaches r94's fix; mixed_files.py shows that)."""
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
rng = np.random.default_rng(0)
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
(root / "files").mkdir(parents=True)


def save(array, name, time=False):
    image = nib.Nifti1Image(array, AFFINE)
    if time:
        image.header.set_xyzt_units("mm", "sec")
        image.header["pixdim"][4] = 2.0
    nib.save(image, root / "files" / name)
    return str(root / "files" / name)


label = np.zeros((16, 16, 16), np.uint8)
label[3:12, 3:12, 3:12] = 1
label[6:9, 6:9, 6:9] = 2
lab, train_lab = save(label, "label.nii.gz"), save(label, "train_label.nii.gz")
a, b = (rng.uniform(10, 100, (16, 16, 16)).astype(np.float32) for _ in range(2))
a += 80 * (label > 0)
four = save(np.stack([a, b], -1), "four.nii.gz")
four_train = save(np.stack([a, b], -1), "four_train.nii.gz")
ch0, ch1 = save(a, "ch0.nii.gz"), save(b, "ch1.nii.gz")
model = Segmentation.load(export(root / "model", in_channels=2))


def dice(x, y, c):
    x, y = x == c, y == c
    return 2 * (x & y).sum() / (x.sum() + y.sum()) if x.sum() + y.sum() else float("nan")


print("(1) Dice of evaluate against predict + hand Dice")
def labels_of(images):
    return np.asanyarray(model.predict(images).dataobj)


predicted = labels_of(four)
hand = {c: round(float(dice(predicted, label, c)), 6) for c in (1, 2)}
for tag, images in (("one 4D file", four), ("two 3D files", [ch0, ch1]), ("two 3D files swapped", [ch1, ch0])):
    data = Dataset.from_files([], validation_pairs=[(images, lab)], n_classes=3, block_shape=16, num_workers=0)
    summary = model.evaluate(data, output_dir=root / f"eval_{tag.replace(' ', '_')}")
    per_class = {c: round(summary["per_class"][str(c)]["dice"]["mean"], 6) for c in (1, 2)}
    print(f"  {tag:22} evaluate {per_class}")
print(f"  predict(four) + hand Dice: {hand}; predict(two files) == predict(four): "
      f"{np.array_equal(labels_of([ch0, ch1]), predicted)}; swapped equal: "
      f"{np.array_equal(labels_of([ch1, ch0]), predicted)}")

print("(2) fit on one-4D-file cases without channel_names")
SMALL = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
for tag, make in (("new model", lambda out: Segmentation("unet", model_args=SMALL, output_dir=out, trackers="none",
                                                         progress_bar=False, val_every=1, save_every=0)),
                  ("loaded 2-ch", lambda out: Segmentation.load(root / "model", output_dir=out, trackers="none",
                                                                progress_bar=False, val_every=1, save_every=0))):
    for split in ("pairs and validation_pairs 4D", "3D-pair training, 4D validation"):
        out = root / f"run_{tag.replace(' ', '_')}_{split[:5]}"
        pairs = [(four_train, train_lab)] if split.startswith("pairs") else [([ch0, ch1], train_lab)]
        try:
            data = Dataset.from_files(pairs, validation_pairs=[(four, lab)], n_classes=3, block_shape=16,
                                      num_workers=0, cache_dir=str(root / "cache" / out.name),
                                      spacing=(2.5, 2.5, 2.5))
            make(str(out)).fit(data, steps=1)
            verdict = "taken"
        except BaseException as error:  # noqa: BLE001
            verdict = f"refused ({type(error).__name__}): {str(error)[:400]}"
        print(f"  {tag:12} | {split:34} | {verdict}\n    run folder exists after: {out.exists()}"
              f"{' ' + str(sorted(p.name for p in out.iterdir())) if out.exists() else ''}")

print("(3) a 1-channel model given one (x, y, z, 2) file")
single = Segmentation.load(export(root / "single"))
data = Dataset.from_files([], validation_pairs=[(four, lab)], n_classes=3, block_shape=16, num_workers=0)
for what, run in (("evaluate", lambda: single.evaluate(data, output_dir=root / "eval_single")),
                  ("predict", lambda: single.predict(four))):
    try:
        run()
        print(f"  {what}: taken")
    except BaseException as error:  # noqa: BLE001
        print(f"  {what}: refused ({type(error).__name__}): {error}")

print("(4) a 4D file whose header says its 4th axis is time (xyzt_units mm+sec, pixdim[4] 2 s)")
timed = save(np.stack([a, b], -1), "timed.nii.gz", time=True)
print(f"  header: xyzt_units={nib.load(timed).header.get_xyzt_units()} zooms={nib.load(timed).header.get_zooms()}")
data = Dataset.from_files([], validation_pairs=[(timed, lab)], n_classes=3, block_shape=16, num_workers=0)
for what, run in (("evaluate", lambda: model.evaluate(data, output_dir=root / "eval_timed")["num_cases"]),
                  ("predict", lambda: labels_of(timed).shape)):
    try:
        print(f"  {what}: taken ({run()})")
    except BaseException as error:  # noqa: BLE001
        print(f"  {what}: refused ({type(error).__name__}): {error}")
