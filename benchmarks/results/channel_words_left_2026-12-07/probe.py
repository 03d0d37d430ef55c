"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 timeout 900 \
    /work/main/.venv/bin/python benchmarks/results/channel_words_left_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/channel_words_left_2026-12-07/<before|after>.txt
The channel wordings h112's entry left (docs/known_issues.md, "one channel fault was told otherwise ..."; the
hundred-and-twenty-second session, helper h119): (1) a one-channel model's channel said in nested brackets, "one
channel (channel 0 (MRI0))", and how predict, evaluate and the command line name a model's channels; (2) the names of
unnamed channels made by data.cases and recognised by a pattern of resume's own; (3) a truncated channel file on
another grid than the first told the grid alone, its truncation a call later, and what telling both costs."""
import contextlib
import io
import json
import re
import shutil
import statistics
import sys
import time
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg import resume_network_and_data
from accelerated_seg.cli import main
from accelerated_seg.data import cases
from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
rng = np.random.default_rng(0)
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
OTHER_GRID = np.diag([3.0, 3.0, 3.0, 1.0])
NESTED = re.compile(r"\(channel \d+ \(")  # "one channel (channel 0 (MRI0))"


def save(array, name, affine=AFFINE):
    (root / "files").mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(array, affine), root / "files" / name)
    return str(root / "files" / name)


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
        text = str(error).replace(str(root), "<root>").replace("\n", "\n    ")
        nested = "  [NESTED BRACKETS]" if NESTED.search(text) else ""
        return f"refused ({type(error).__name__}){nested}: {text}"


def cli(*args) -> str:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(list(args))
    lines = [line for line in err.getvalue().replace(str(root), "<root>").splitlines() if "error" in line.lower()
             or "channel" in line or line.lstrip().startswith("case ")]
    nested = "  [NESTED BRACKETS]" if any(NESTED.search(line) for line in lines) else ""
    return f"status {status}{nested}: " + "\n    ".join(lines[:6])


def with_channels(folder, channels):
    """The export at ``folder`` with config.json's channels replaced (None: none recorded, as by hand)."""
    config = json.loads((folder / "config.json").read_text())
    config.pop("channels")
    if channels is not None:
        config["channels"] = channels
    (folder / "config.json").write_text(json.dumps(config))
    return folder


label = np.zeros((16, 16, 16), np.uint8)
label[4:12, 4:12, 4:12] = 1
lab = save(label, "label.nii.gz")
vol = lambda: rng.uniform(10, 100, (16, 16, 16)).astype(np.float32)  # noqa: E731
a, b, c = save(vol(), "a.nii.gz"), save(vol(), "b.nii.gz"), save(vol(), "c.nii.gz")
two = save(rng.uniform(10, 100, (16, 16, 16, 2)).astype(np.float32), "two.nii.gz")


def evaluate(model, images):
    data = Dataset.from_files([], validation_pairs=[(images, lab)], n_classes=3, block_shape=16, num_workers=0)
    return said(lambda: model.evaluate(data, output_dir=root / "ev"))


print("(1) a one-channel model's channel in words: exports naming MRI0, none (by hand), T1")
for tag, channels in (("MRI0", {"0": "MRI0"}), ("none", None), ("T1", {"0": "T1"})):
    folder = with_channels(export(root / f"one_{tag}", in_channels=1), channels)
    model = Segmentation.load(folder)
    print(f"  [{tag}] predict of 2 files:            {said(lambda: model.predict([a, b]))}")
    print(f"  [{tag}] predict of one (x,y,z,2) file: {said(lambda: model.predict(two))}")
    print(f"  [{tag}] evaluate of a case of 2 files: {evaluate(model, [a, b])}")
    print(f"  [{tag}] evaluate of one (x,y,z,2) file: {evaluate(model, two)}")
    print(f"  [{tag}] accelerated-seg predict --input a b: "
          f"{cli('predict', '--model', str(folder), '--input', a, b, '--output', str(root / 'o.nii.gz'))}")
print("  a 2-channel model (MRI0, MRI1), for its order:")
pair = Segmentation.load(export(root / "two_model", in_channels=2))
print(f"  predict of 3 files:            {said(lambda: pair.predict([a, b, c]))}")
print(f"  evaluate of a case of 3 files: {evaluate(pair, [a, b, c])}")

print("(2) unnamed channels: made by data.cases.unnamed_channels, recognised by resume's channel_name_differences")
print(f"  resume_network_and_data has a pattern of its own (_UNNAMED_CHANNEL): "
      f"{hasattr(resume_network_and_data, '_UNNAMED_CHANNEL')}; data.cases.is_unnamed_channel: "
      f"{hasattr(cases, 'is_unnamed_channel')}")
made = [name for count in range(1, 13) for name in cases.unnamed_channels(count).values()]
recognised = [name for name in made if not resume_network_and_data.channel_name_differences({"0": name}, {"0": "T1"})
              and not resume_network_and_data.channel_name_differences({"0": "T1"}, {"0": name})]
print(f"  names unnamed_channels makes (1..12 channels) taken for no name by resume: {len(recognised)} of {len(made)}")
named = ["T1", "images", "image_", "image_x", "Image_0", "image0", "FLAIR"]
told = [name for name in named if resume_network_and_data.channel_name_differences({"0": name}, {"0": "T2"})]
print(f"  names of a user's compared by resume: {len(told)} of {len(named)} ({', '.join(told)})")

print("(3) a truncated channel file on another grid than the first: predict, evaluate, the command line")
b_other = save(vol(), "b_other.nii.gz", OTHER_GRID)
b_other_trunc = truncated(b_other, "b_other_trunc.nii.gz")
a_trunc = truncated(a, "a_trunc.nii.gz")
b_trunc = truncated(b, "b_trunc.nii.gz")
for tag, images in (("channel 1 on another grid and truncated", [a, b_other_trunc]),
                    ("channel 0 truncated, channel 1 on another grid", [a_trunc, b_other]),
                    ("channel 1 on another grid, whole", [a, b_other]),
                    ("channel 1 truncated, same grid", [a, b_trunc])):
    print(f"  [{tag}] predict:  {said(lambda: pair.predict(images))}")
    print(f"  [{tag}] evaluate: {evaluate(pair, images)}")
    folder = root / f"cli_{len(list(root.glob('cli_*')))}"
    folder.mkdir()
    for index, source in enumerate(images):
        shutil.copy(source, folder / f"p_{index:04d}.nii.gz")
    print(f"  [{tag}] accelerated-seg predict: "
          f"{cli('predict', '--model', str(root / 'two_model'), str(folder), '--output', str(root / 'out'))}")

print("  time to refuse a case of 2 channels of 192 x 192 x 128 float32 (smooth, gzip), the second on another grid,")
print("  median of 5 (s):")
grid = np.linspace(0, 6, 192)
smooth = (np.sin(grid)[:, None, None] * np.cos(grid)[None, :, None] * np.linspace(1, 2, 128)[None, None, :] * 100
          + 200).astype(np.float32)
big_a, big_b = save(smooth, "big_a.nii.gz"), save(smooth, "big_b.nii.gz", OTHER_GRID)
big_b_trunc = truncated(big_b, "big_b_trunc.nii.gz")
for tag, images in (("whole", [big_a, big_b]), ("the second truncated", [big_a, big_b_trunc])):
    times = []
    for _ in range(5):
        start = time.perf_counter()
        said(lambda: pair.predict(images))
        times.append(time.perf_counter() - start)
    print(f"    {tag}: {statistics.median(times):.3f} (sizes on disk {Path(images[0]).stat().st_size // 1024} KiB, "
          f"{Path(images[1]).stat().st_size // 1024} KiB)")
