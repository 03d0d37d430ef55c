"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python edges.py <empty folder>
The hundred-and-seventeenth session (helper h88): three edges of training's units/spacing checks left by h84's review
(r72), each dataset through training's spacing checks (``prepare.settings_and_unit``: the units, budget and far finer
checks, what `accelerated-seg check` and training run before the cache) and its odd case through ``predict_file`` for
a model trained in mm at the same spacing (set or a median, config.json's spacing_set):
  (1) micro-CT finer than 10 micrometres: cases at 0.005 mm in mm, one written in micrometres under mm (5), along a
      long axis of 512 voxels (2.56 mm across; read in mm 2,560 mm, no body) or 200 (1 mm; 1,000 mm, a body's);
      beside them CT of 2 mm written in metres under mm (0.002) with one case in mm (2), 512 and 8 voxels along;
      and every case at 0.005 mm, none off, which must pass;
  (2) mixed units: 12 cases in mm, 10 in micrometres (numbers 2000): how many of the 10 the refusal names;
  (3) a dataset outlier: cases at 5 mm in mm, data.spacing 10 (coarser on purpose), one case in metres declaring mm
      (0.005); beside it cases of 0.5 and 5 mm with data.spacing 5 (thin and thick slices), and micro-CT all at
      0.005 mm with data.spacing 0.5 (100 times coarser on purpose), which must pass.
Each cell: PASSES, or the refusing check (units, budget, finer) and the first line offered (from micrometres, from
metres, declare mm, spacing? for a line about data.spacing alone, none), "+doubt" where the reading told is said with
its doubt ("unless ... is the one off itself"), and "+spacing" where the spacing's own words follow it."""
import json, re, sys, warnings
from pathlib import Path
import numpy as np, nibabel as nib, torch

from accelerated_seg.config import DataConfig
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.prepare import settings_and_unit
from accelerated_seg.exported_model import write_export
from accelerated_seg.inference import predict_file
from accelerated_seg.models import build_from_spec, model_spec

PATCH = [16, 16, 16]
root = Path(sys.argv[1]).absolute()
root.mkdir(exist_ok=True)


def write(path, unit, sizes, shape, label=False):
    voxels = np.zeros(shape, np.uint8) if label else (np.random.default_rng(0).random(shape) + 1).astype(np.float32)
    if label:
        voxels[tuple(slice(n // 4, 3 * n // 4) for n in shape)] = 1
    image = nib.Nifti1Image(voxels, np.diag([*sizes, 1.0]))
    image.header.set_xyzt_units(unit)
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(image, path)


def dataset(name, cases):
    """``cases``: (case id, unit, voxel sizes as the header's numbers, shape)."""
    folder = root / name
    entries = []
    for case, unit, sizes, shape in cases:
        for kind, label in (("imagesTr", False), ("labelsTr", True)):
            write(folder / kind / f"{case}.nii.gz", unit, sizes, shape, label)
        entries.append({"image": f"./imagesTr/{case}.nii.gz", "label": f"./labelsTr/{case}.nii.gz"})
    (folder / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"}, "modality": {"0": "CT"},
                                                     "training": entries, "validation": []}))
    return folder


def export(name, spacing, spacing_set):
    folder = root / name
    spec = model_spec("unet", 1, 2, PATCH, {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    torch.manual_seed(0)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    metadata = {"labels": {"0": "background", "1": "a"}, "channels": {"0": "CT"}, "in_channels": 1, "num_classes": 2,
                "patch_size": PATCH, "spacing": list(spacing), "spacing_unit": "mm"}
    write_export(tensors, spec.to_dict(), metadata, folder)
    config = json.loads((folder / "config.json").read_text())
    config["spacing_set"] = spacing_set
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def train(folder, spacing):
    try:
        settings_and_unit(DataConfig(spacing=spacing), load_msd(folder / "dataset.json"))
        return None
    except DataError as error:
        return str(error)


def predict(model, image):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            predict_file(model, [image], root / "out.nii.gz", device="cpu")
        return None
    except DataError as error:
        return str(error)


#: the first line offered, by what its nibabel code does (the geometry scaled, or the unit declared alone)
LINES = (("np.diag([0.001, ", "from micrometres"), ("np.diag([1000, ", "from metres"),
         ("unit_codes['mm']; nib.save(img, path)", "declare mm"))


#: the refusing check, by words of its own (the first that a refusal holds)
CHECKS = (("GiB is available", "memory"), ("data.max_voxels", "budget"), ("times finer than", "finer"),
          ("(xyzt_units)", "units"))


def verdict(said):
    if said is None:
        return "PASSES"
    which = next((name for mark, name in CHECKS if mark in said), "other")
    first = said.split("; or,")[0].split(", or, where")[0]
    line = next((name for code, name in LINES if code in first),
                "spacing?" if "data.spacing" in first and "nibabel" not in first else "none")
    extra = ("+doubt" if "is the one off itself" in said else "") + (
        "+spacing" if "is the one off: data.spacing" in said or "is the one off: the median" in said else "")
    return f"{which}: {line}{extra}"


def rows_one():
    """(1): (row name, dataset folder, spacing, the odd case's path or None)."""
    rows = []
    for name, fine, odd, shape in (("uCT5um_512", 0.005, 5.0, (512, 8, 8)), ("uCT5um_200", 0.005, 5.0, (200, 8, 8)),
                                   ("CTm_512", 0.002, 2.0, (512, 8, 8)), ("CTm_8", 0.002, 2.0, (8, 8, 8))):
        folder = dataset(name, [(f"c{i}", "mm", (fine,) * 3, shape) for i in range(3)] +
                         [("odd", "mm", (odd,) * 3, shape)])
        for how, spacing in (("set", (fine,) * 3), ("median", None)):
            rows.append((f"(1) {name} {how}", folder, spacing, folder / "imagesTr" / "odd.nii.gz", fine, how))
    folder = dataset("uCT5um_all", [(f"c{i}", "mm", (0.005,) * 3, (512, 8, 8)) for i in range(4)])
    for how, spacing in (("set", (0.005,) * 3), ("median", None)):
        rows.append((f"(1) uCT5um_all {how}", folder, spacing, None, 0.005, how))
    return rows


def rows_three():
    rows = []
    folder = dataset("outlier", [(f"c{i}", "mm", (5.0,) * 3, (20, 20, 12)) for i in range(5)] +
                     [("odd", "mm", (0.005,) * 3, (20, 20, 12))])
    rows.append(("(3) outlier set10", folder, (10.0,) * 3, folder / "imagesTr" / "odd.nii.gz", 10.0, "set"))
    folder = dataset("thin_thick", [(f"c{i}", "mm", (0.5,) * 3, (40, 40, 30)) for i in range(3)] +
                     [(f"t{i}", "mm", (0.5, 0.5, 5.0), (40, 40, 4)) for i in range(3)])
    rows.append(("(3) thin_thick set5", folder, (5.0,) * 3, None, 5.0, "set"))
    folder = dataset("uCT_coarser", [(f"c{i}", "mm", (0.005,) * 3, (64, 64, 32)) for i in range(4)])
    rows.append(("(3) uCT_coarser set0.5", folder, (0.5,) * 3, None, 0.5, "set"))
    return rows


print(f"{'row':28} | {'train':36} | {'predict':36}")
words = []
for name, folder, spacing, odd, model_size, how in rows_one() + rows_three():
    said = train(folder, spacing)
    predicted = predict(export(f"model_{model_size}_{how}", (model_size,) * 3, how == "set"), odd) if odd else None
    print(f"{name:28} | {verdict(said):36} | {verdict(predicted) if odd else '-':36}")
    for who, text in (("train", said), ("predict", predicted)):
        if text is not None:
            words.append(f"{name} {who}: {text.replace(str(root), '<root>')}")

# (2): 12 cases in mm, 10 in micrometres (2 mm voxels written 2000)
folder = dataset("mixed", [(f"m{i:02d}", "mm", (2.0,) * 3, (8, 8, 8)) for i in range(12)] +
                 [(f"u{i:02d}", "micron", (2000.0,) * 3, (8, 8, 8)) for i in range(10)])
said = train(folder, None) or ""
named = sorted(set(re.findall(r"u\d\d\.nii\.gz", said)))
print(f"\n(2) mixed: the refusal names {len(named)} of the 10 files in micrometres, in {said.count(chr(10)) + 1} line(s)")
words.append(f"(2) mixed train: {said.replace(str(root), '<root>')}")
print()
print("\n\n".join(words))
