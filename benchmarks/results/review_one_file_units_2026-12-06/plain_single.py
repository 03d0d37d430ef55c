"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python plain_single.py <empty folder>
Review of helper h81 (one file read against the model's spacing): plain, correct single files must pass (mm scans at
0.5-5 mm and 0.7 x 0.7 x 5 against models in mm at 1 and 1.5, of no unit; files of no unit on mm numbers), both with
the spacing set and a median; metres-as-mm files against each; files for a model in metres met by the memory check.
Each: PASSES, or the refusal's first 260 characters."""
import importlib.util, json, sys
from pathlib import Path
import numpy as np, nibabel as nib
here = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("h78", here.parent / "predict_case_units_alike_2026-12-06" / "units_left.py")
h78 = importlib.util.module_from_spec(spec); spec.loader.exec_module(h78); h72 = h78.h72
root = Path(sys.argv[1]); root.mkdir(exist_ok=True)


def write(path, unit, sizes, shape=(8, 8, 8)):
    image = nib.Nifti1Image((np.random.default_rng(0).random(shape) + 1).astype(np.float32),
                            np.diag(list(sizes) + [1.0]))
    if unit != "none":
        image.header.set_xyzt_units(unit)
    nib.save(image, path)
    return path


def model(name, unit, spacing, spacing_set):
    folder = h78.export(root / name, 1, unit, spacing)
    config = json.loads((folder / "config.json").read_text())
    config["spacing_set"] = spacing_set
    (folder / "config.json").write_text(json.dumps(config))
    return folder


n = 0
for unit, spacing in (("mm", [1.0] * 3), ("mm", [1.5] * 3), (None, [1.0] * 3), (None, [1.5] * 3)):
    for spacing_set in (True, False):
        m = model(f"m{n}", unit, spacing, spacing_set)
        for file_unit, sizes in (("mm", [0.5] * 3), ("mm", [0.7, 0.7, 5]), ("mm", [2] * 3), ("mm", [3] * 3),
                                 ("mm", [5] * 3), ("none", [0.5] * 3), ("none", [0.7, 0.7, 5]), ("none", [5] * 3),
                                 ("mm", [0.0015] * 3), ("mm", [0.0007, 0.0007, 0.005]), ("none", [0.0015] * 3)):
            n += 1
            said = h72.predict(m, [write(root / f"c{n}_0000.nii.gz", file_unit, sizes)], root / "o.nii.gz")
            print(f"model {unit} {spacing[0]} set={spacing_set}; file {file_unit} {sizes}:",
                  "PASSES" if said is None else said.replace(str(root), "<root>")[:260])
m = model("metres", "meter", [0.0015] * 3, True)
for file_unit, sizes in (("meter", [2] * 3), ("none", [2] * 3), ("meter", [0.5, 0.5, 300]), ("none", [0.2] * 3),
                         ("meter", [0.2] * 3)):
    n += 1
    said = h72.predict(m, [write(root / f"c{n}_0000.nii.gz", file_unit, sizes)], root / "o.nii.gz")
    print(f"model meter 0.0015; file {file_unit} {sizes}:",
          "PASSES" if said is None else said.replace(str(root), "<root>")[:400])
