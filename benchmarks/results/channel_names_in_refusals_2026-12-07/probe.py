"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 timeout 900 \
    /work/main/.venv/bin/python benchmarks/results/channel_names_in_refusals_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/channel_names_in_refusals_2026-12-07/<before|after>.txt
(<code>: a copy of main's accelerated_seg for before.txt, `git archive main accelerated_seg tests | tar -x -C <code>`;
the worktree for after.txt.)
How refusals name a case's channels (the hundred-and-twenty-third session, helper h125): (1) each grid's and units'
refusal through training's pre-flight (`accelerated-seg check`, load_cases + check_manifest), predict and evaluate,
for a dataset of named channels (an MSD dataset.json's modality T1, FLAIR; an export naming them) and of unnamed ones
(a CSV's image_0, image_1; an export naming none): is the channel said by its name where it has one, by its index
alone where not, and in nested brackets anywhere; (2) a model naming no channels: its lone channel, and several in
order; (3) the CSV's image columns against data.cases' test of an unnamed channel's name."""
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
from accelerated_seg.data import cases as data_cases
from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

warnings.simplefilter("ignore")
root = Path(sys.argv[1]).absolute()
rng = np.random.default_rng(0)
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])
NESTED = re.compile(r"\([^()]*channel \d+ \(")  # a channel's name in brackets in brackets: "(channel 1 (FLAIR) ..."
NAMES = ("T1", "FLAIR")
FAULTS = {  # channel 1 of each case: how it differs from channel 0 (2.5 mm, RAS, 16^3, mm)
    "spacing": dict(affine=np.diag([3.0, 3.0, 3.0, 1.0])),
    "orientation": dict(affine=np.diag([-2.5, -2.5, 2.5, 1.0])),
    "shape": dict(shape=(16, 16, 18)),
    "origin": dict(affine=np.array([[2.5, 0, 0, 5.0], [0, 2.5, 0, 0], [0, 0, 2.5, 0], [0, 0, 0, 1]])),
    "units": dict(affine=np.diag([2500.0, 2500.0, 2500.0, 1.0]), unit="micron"),
    "unit alone": dict(unit="micron"),  # micrometres declared on channel 0's mm numbers: the files listed
    "no unit": dict(affine=np.diag([2500.0, 2500.0, 2500.0, 1.0]), unit="unknown"),  # micrometre numbers, no unit
}


def save(path, array, affine=AFFINE, unit="mm"):
    path.parent.mkdir(parents=True, exist_ok=True)
    image = nib.Nifti1Image(array, affine)
    image.header.set_xyzt_units(unit)
    nib.save(image, path)
    return path


def flagged(text: str) -> str:
    text = text.replace(str(root), "<root>")
    marks = [mark for mark, hit in (("NESTED BRACKETS", NESTED.search(text)),
                                    ("NAMED", any(f"({name})" in text or f", {name}" in text for name in NAMES)),
                                    ("SAYS image AS A NAME", re.search(r"\(image(_\d+)?\)|, image_\d", text)))
             if hit]
    return (f"[{', '.join(marks)}] " if marks else "") + text.replace("\n", "\n      ")


def said(run) -> str:
    try:
        run()
        return "taken"
    except BaseException as error:  # noqa: BLE001
        return f"refused ({type(error).__name__}): {flagged(str(error))}"


def cli(*args) -> str:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
        status = main(list(args))
    lines = [line.strip() for line in err.getvalue().splitlines() if "grid" in line or "unit" in line
             or "channel" in line]
    return f"status {status}: " + flagged("\n".join(lines[:4]))


label = np.zeros((16, 16, 16), np.uint8)
label[4:12, 4:12, 4:12] = 1


def case_files(folder: Path, fault: str) -> tuple[list[Path], Path]:
    spec = FAULTS[fault]
    first = save(folder / "c_0000.nii.gz", rng.uniform(10, 100, (16, 16, 16)).astype(np.float32))
    second = save(folder / "c_0001.nii.gz", rng.uniform(10, 100, spec.get("shape", (16, 16, 16))).astype(np.float32),
                  spec.get("affine", AFFINE), spec.get("unit", "mm"))
    return [first, second], save(folder / "c.nii.gz", label)


print("(1) a case whose channel 1 differs from channel 0, refused by training's pre-flight, predict and evaluate")
named_model = export(root / "model_named", in_channels=2, channels={"0": "T1", "1": "FLAIR"})
unnamed_model = export(root / "model_unnamed", in_channels=2)
config = json.loads((unnamed_model / "config.json").read_text())
del config["channels"]
(unnamed_model / "config.json").write_text(json.dumps(config))
for fault in FAULTS:
    print(f"  [{fault}]")
    for tag in ("named", "unnamed"):
        folder = root / fault.replace(" ", "_") / tag
        images, lab = case_files(folder, fault)
        if tag == "named":  # an MSD dataset.json whose modality names the channels
            dataset = folder / "dataset.json"
            dataset.write_text(json.dumps({"name": "probe", "modality": {"0": "T1", "1": "FLAIR"},
                                           "labels": {"0": "background", "1": "lesion"},
                                           "training": [{"image": [str(p) for p in images], "label": str(lab)}]}))
        else:  # a CSV of image_0, image_1 columns: no channel named
            dataset = folder / "cases.csv"
            dataset.write_text(f"image_0,image_1,label\n{images[0]},{images[1]},{lab}\n")
        manifest = load_cases(dataset, validation_fraction=0.0)
        report = check_manifest(manifest)
        print(f"    {tag} load_cases + check_manifest: {flagged(chr(10).join(report.errors))}")
        print(f"    {tag} accelerated-seg check: {cli('check', str(dataset))}")
        model = Segmentation.load(named_model if tag == "named" else unnamed_model)
        print(f"    {tag} predict: {said(lambda: model.predict([str(p) for p in images]))}")
        data = Dataset.from_files([], validation_pairs=[([str(p) for p in images], str(lab))], n_classes=3,
                                  block_shape=16, num_workers=0, channel_names=list(NAMES) if tag == "named" else None)
        print(f"    {tag} evaluate: {said(lambda: model.evaluate(data, output_dir=root / 'ev'))}")

print("(2) a model naming no channels: its lone channel, and several in order")
lone = export(root / "lone", in_channels=1)
config = json.loads((lone / "config.json").read_text())
del config["channels"]
(lone / "config.json").write_text(json.dumps(config))
one = save(root / "files" / "one.nii.gz", rng.uniform(10, 100, (16, 16, 16)).astype(np.float32))
two = save(root / "files" / "two.nii.gz", rng.uniform(10, 100, (16, 16, 16, 2)).astype(np.float32))
three = save(root / "files" / "three.nii.gz", rng.uniform(10, 100, (16, 16, 16)).astype(np.float32))
other = save(root / "files" / "other.nii.gz", rng.uniform(10, 100, (16, 16, 16)).astype(np.float32))
lab = save(root / "files" / "label.nii.gz", label)
for tag, folder in (("one channel, named MRI0", export(root / "lone_named", in_channels=1)),
                    ("one channel, named none", lone), ("two channels, named none", unnamed_model)):
    model = Segmentation.load(folder)
    print(f"  [{tag}] predict of one (x, y, z, 2) file: {said(lambda: model.predict(str(two)))}")
    print(f"  [{tag}] predict of 3 files: {said(lambda: model.predict([str(one), str(three), str(other)]))}")
    data = Dataset.from_files([], validation_pairs=[([str(one), str(three), str(other)], str(lab))], n_classes=3,
                              block_shape=16, num_workers=0)
    print(f"  [{tag}] evaluate of cases of 3 files: {said(lambda: model.evaluate(data, output_dir=root / 'ev'))}")

print("(3) a CSV's image columns, against data.cases.is_unnamed_channel")
for number, columns in enumerate((("image_0", "image_1"), ("image_0", "image_\u0661"), ("image_\u0661",),
                                  ("image_0", "image_01"), ("image_00", "image_01"), ("image", "image_0"),
                                  ("T1", "FLAIR"), ("image",))):
    folder = root / "csv" / str(number)
    files = [save(folder / f"{index}.nii.gz", rng.uniform(10, 100, (16, 16, 16)).astype(np.float32))
             for index in range(len(columns))]
    lab = save(folder / "label.nii.gz", label)
    table = folder / "cases.csv"
    table.write_text(",".join((*columns, "label")) + "\n" + ",".join(map(str, (*files, lab))) + "\n", encoding="utf-8")
    try:
        manifest = load_cases(table, validation_fraction=0.0)
        names = list(manifest.channels.values())
        print(f"  {columns!r}: channels {names!r}; unnamed by data.cases: "
              f"{[data_cases.is_unnamed_channel(name) for name in names]}")
    except Exception as error:  # noqa: BLE001
        print(f"  {columns!r}: refused: {str(error).replace(str(root), '<root>')}")
