"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 timeout 900 \
    /work/main/.venv/bin/python benchmarks/results/r108_channel_names_review_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/r108_channel_names_review_2026-12-07/<main|after>.txt
(<code>: main's accelerated_seg, `git archive cb41d6be accelerated_seg | tar -x -C <code>`, for main.txt; the worktree
for after.txt.)
Review r108 of helper h125's channel names in refusals: (A) training's pre-flight (load_cases + check_manifest) of
an nnU-Net dataset.json (`channel_names`), an MSD one (`modality`, one channel and one 4D file of two), three
channels with the last off, a user's channel named `image`; (B) predict of models whose config.json names channels
by hand (some, all, as a list), a one-channel named model's units refusal, `predict --input`; (C) a CSV's image
columns: a gap, `image_1` alone, `IMAGE_0`, ` image_0`, `image_0` twice, `image_0,image_00`, `image_01` alone;
(D) evaluate of a Dataset whose channel_names differ from the model's."""
import contextlib
import io
import json
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.cli import main
from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.estimator import Segmentation
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
rng = np.random.default_rng(0)
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
OFF = np.diag([3.0, 3.0, 3.0, 1.0])
label = np.zeros((16, 16, 16), np.uint8)
label[4:12, 4:12, 4:12] = 1


def save(path, array, affine=AFFINE, unit="mm"):
    path.parent.mkdir(parents=True, exist_ok=True)
    image = nib.Nifti1Image(array, affine)
    image.header.set_xyzt_units(unit)
    nib.save(image, path)
    return path


def scan(shape=(16, 16, 16)):
    return rng.uniform(10, 100, shape).astype(np.float32)


def short(text: str) -> str:
    return text.replace(str(root), "<root>")


def said(run) -> str:
    try:
        run()
        return "taken"
    except BaseException as error:  # noqa: BLE001
        return f"refused ({type(error).__name__}): {short(str(error))}"


def checked(dataset) -> str:
    try:
        manifest = load_cases(dataset, validation_fraction=0.0)
    except BaseException as error:  # noqa: BLE001
        return f"load_cases refused: {short(str(error))}"
    report = check_manifest(manifest)
    return f"channels {dict(manifest.channels)}: " + (short(" || ".join(report.errors)) or "no error")


def nnunet(folder: Path, names: dict, channel_affines: list, label_affine=AFFINE) -> Path:
    for index, affine in enumerate(channel_affines):
        save(folder / "imagesTr" / f"c_{index:04d}.nii.gz", scan(), affine)
    save(folder / "labelsTr" / "c.nii.gz", label, label_affine)
    (folder / "dataset.json").write_text(json.dumps({
        "channel_names": names, "labels": {"background": 0, "lesion": 1}, "numTraining": 1,
        "file_ending": ".nii.gz"}))
    return folder


def msd(folder: Path, names: dict, images: list, label_affine=AFFINE) -> Path:
    lab = save(folder / "c.nii.gz", label, label_affine)
    (folder / "dataset.json").write_text(json.dumps({
        "name": "probe", "modality": names, "labels": {"0": "background", "1": "lesion"},
        "training": [{"image": [str(p) for p in images] if len(images) > 1 else str(images[0]),
                      "label": str(lab)}]}))
    return folder / "dataset.json"


print("(A) training's pre-flight check")
print("  A1 nnU-Net channel_names T1, FLAIR; channel 1 at 3 mm:",
      checked(nnunet(root / "A1", {"0": "T1", "1": "FLAIR"}, [AFFINE, OFF])))
print("  A2 nnU-Net channel_names T1, FLAIR; the label at 3 mm:",
      checked(nnunet(root / "A2", {"0": "T1", "1": "FLAIR"}, [AFFINE, AFFINE], OFF)))
print("  A3 MSD modality {0: CT}, one channel; the label at 3 mm:",
      checked(msd(root / "A3", {"0": "CT"}, [save(root / "A3" / "i.nii.gz", scan())], OFF)))
print("  A4 MSD modality T1, FLAIR in one (x, y, z, 2) file; the label at 3 mm:",
      checked(msd(root / "A4", {"0": "T1", "1": "FLAIR"}, [save(root / "A4" / "i.nii.gz", scan((16, 16, 16, 2)))],
                  OFF)))
print("  A5 MSD modality image, FLAIR (a user's name 'image'); channel 1 at 3 mm:",
      checked(msd(root / "A5", {"0": "image", "1": "FLAIR"},
                  [save(root / "A5" / "a.nii.gz", scan()), save(root / "A5" / "b.nii.gz", scan(), OFF)])))
print("  A6 nnU-Net channel_names A, B, C; channel 2 at 3 mm:",
      checked(nnunet(root / "A6", {"0": "A", "1": "B", "2": "C"}, [AFFINE, AFFINE, OFF])))
a7 = nnunet(root / "A7", {"0": "A", "1": "B", "2": "C"}, [AFFINE, AFFINE, OFF])
(a7 / "imagesTr" / "c_0000.nii.gz").write_bytes(b"not a nifti")
print("  A7 nnU-Net channel_names A, B, C; channel 0 unreadable, channel 2 at 3 mm:", checked(a7))
print("  A8 nnU-Net channel_names T1, FLAIR; channel 1 in micrometres (xyzt_units) on mm numbers:")
a8 = nnunet(root / "A8", {"0": "T1", "1": "FLAIR"}, [AFFINE, AFFINE])
save(a8 / "imagesTr" / "c_0001.nii.gz", scan(), np.diag([2500.0, 2500.0, 2500.0, 1.0]), "unknown")
print("     ", checked(a8))

print("(B) predict")
files = [save(root / "B" / "c_0000.nii.gz", scan()), save(root / "B" / "c_0001.nii.gz", scan(), OFF)]
for tag, channels in (("config.json channels {'1': 'FLAIR'} alone", {"1": "FLAIR"}),
                      ("config.json channels {'0': 'image', '1': 'FLAIR'}", {"0": "image", "1": "FLAIR"}),
                      ("config.json channels ['T1', 'FLAIR'] (a list)", ["T1", "FLAIR"]),
                      ("config.json channels {'0': '', '1': 'FLAIR'}", {"0": "", "1": "FLAIR"})):
    folder = export(root / "B" / tag.split(" ")[2].strip("[{'"), in_channels=2)
    config = json.loads((folder / "config.json").read_text())
    config["channels"] = channels
    (folder / "config.json").write_text(json.dumps(config))
    print(f"  {tag}: {said(lambda: Segmentation.load(folder).predict([str(p) for p in files]))}")
one = export(root / "B" / "one", in_channels=1)
micron = save(root / "B" / "micron.nii.gz", scan(), np.diag([2500.0, 2500.0, 2500.0, 1.0]), "micron")
print(f"  one channel MRI0, a file in micrometres: {said(lambda: Segmentation.load(one).predict(str(micron)))}")
two = export(root / "B" / "two", in_channels=2, channels={"0": "T1", "1": "FLAIR"})
err = io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
    status = main(["predict", "--model", str(two), "--input", *map(str, files), "--output", str(root / "o.nii.gz")])
    folder_status = main(["predict", "--model", str(two), str(root / "B"), "--output", str(root / "B_out")])
print(f"  predict --input c_0000 c_0001 (channel 1 at 3 mm), status {status}; predict <folder>, status "
      f"{folder_status}: " + short(" | ".join(line for line in err.getvalue().splitlines()
                                              if "grid" in line or "channel" in line)))
count = export(root / "B" / "count", in_channels=2, channels={"0": "", "1": "FLAIR"})
print(f"  channels {{'0': '', '1': 'FLAIR'}}, given 3 files: "
      f"{said(lambda: Segmentation.load(count).predict([str(p) for p in [*files, files[0]]]))}")
blank = nnunet(root / "A9", {"0": " ", "1": "FLAIR"}, [AFFINE, OFF])
print("  (A9) nnU-Net channel_names ' ', FLAIR; channel 1 at 3 mm:", checked(blank))

print("(C) a CSV's image columns")
for number, header in enumerate(("image_0,image_2", "image_1", "IMAGE_0,IMAGE_1", " image_0, image_1",
                                 "image_0,image_0", "image_0,image_00", "image_01", "Image_0,image_1",
                                 "image_0,image_1 ")):
    folder = root / "csv" / str(number)
    columns = header.split(",")
    paths = [save(folder / f"{index}.nii.gz", scan()) for index in range(len(columns))]
    lab = save(folder / "label.nii.gz", label)
    table = folder / "cases.csv"
    table.write_text(header + ",label\n" + ",".join(map(str, (*paths, lab))) + "\n")
    try:
        manifest = load_cases(table, validation_fraction=0.0)
        print(f"  {header!r}: channels {dict(manifest.channels)}")
    except Exception as error:  # noqa: BLE001
        print(f"  {header!r}: refused: {short(str(error))}")

print("(D) evaluate: the Dataset's channel_names beside the model's")
from accelerated_seg.estimator import Dataset  # noqa: E402

lab = save(root / "D" / "label.nii.gz", label)
unnamed = export(root / "D" / "unnamed", in_channels=2)
config = json.loads((unnamed / "config.json").read_text())
del config["channels"]
(unnamed / "config.json").write_text(json.dumps(config))
for tag, model_dir, names in (("model naming none, Dataset T1, FLAIR", unnamed, ["T1", "FLAIR"]),
                              ("model MRI0, MRI1, Dataset T1, FLAIR", export(root / "D" / "mri", in_channels=2),
                               ["T1", "FLAIR"])):
    data = Dataset.from_files([], validation_pairs=[([str(p) for p in files], str(lab))], n_classes=3,
                              block_shape=16, num_workers=0, channel_names=names)
    model = Segmentation.load(model_dir)
    print(f"  {tag}: {said(lambda: model.evaluate(data, output_dir=root / 'ev'))}")
good = [save(root / "D" / f"g_{index:04d}.nii.gz", scan()) for index in range(2)]
data = Dataset.from_files([], validation_pairs=[(good, str(lab))], n_classes=3, block_shape=16, num_workers=0,
                          channel_names=["FLAIR", "T1"])
with warnings.catch_warnings(record=True) as raised:
    warnings.simplefilter("always")
    outcome = said(lambda: Segmentation.load(root / "D" / "mri").evaluate(data, output_dir=root / "ev_good"))
print(f"  model MRI0, MRI1, Dataset FLAIR, T1, files on one grid: {outcome[:40]}; warnings naming a channel: "
      f"{[short(str(w.message))[:200] for w in raised if 'channel' in str(w.message)]}")
print("  (D2) two cases, Dataset T1, FLAIR, model MRI0, MRI1: case a's channel 1 at 3 mm, case b's label at 3 mm:")
pairs = []
for case, (second, label_affine) in {"a": (OFF, AFFINE), "b": (AFFINE, OFF)}.items():
    images = [str(save(root / "D2" / f"{case}_{index:04d}.nii.gz", scan(), affine))
              for index, affine in enumerate((AFFINE, second))]
    pairs.append((images, str(save(root / "D2" / f"{case}.nii.gz", label, label_affine))))
data = Dataset.from_files([], validation_pairs=pairs, n_classes=3, block_shape=16, num_workers=0,
                          channel_names=["T1", "FLAIR"])
print("     ", said(lambda: Segmentation.load(root / "D" / "mri").evaluate(data, output_dir=root / "ev2")))
