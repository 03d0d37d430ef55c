"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python far_off.py <empty folder>
Where the nearest reading of a case is 100 times or more off the model's spacing (at 1.5 mm, in mm): is it "told"?
A: two channel files of no unit alike on numbers 2,000,000 (readings 2,000,000 mm and 2,000 mm, the nearest 1,333
times off); B: one such file; C: one file declaring metres on micrometre numbers 2000 (2 mm as micrometres), whose
numbers read in mm (2000 mm) came 1,000 times nearer the spacing than as metres, told "Declare it mm" at r66.
Each: the refusal's first 330 characters and whether it says the spacing "tells", then what its first line does
(h72's first_lines; RIGHT where the file is then at 2 mm and predict segments it). Output at main (39a7cd80):
far_off_main.txt; on h81: far_off_h81.txt."""
import importlib.util, sys
from pathlib import Path
import numpy as np, nibabel as nib
here = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("h78", here.parent / "predict_case_units_alike_2026-12-06" / "units_left.py")
h78 = importlib.util.module_from_spec(spec); spec.loader.exec_module(h78); h72 = h78.h72
root = Path(sys.argv[1]); root.mkdir(exist_ok=True)


def write(path, unit, numbers):
    image = nib.Nifti1Image((np.random.default_rng(0).random((8, 8, 8)) + 1).astype(np.float32),
                            np.diag([numbers] * 3 + [1.0]))
    if unit:
        image.header.set_xyzt_units(unit)
    nib.save(image, path)
    return path


for name, files, truth in (("A", [(None, 2e6), (None, 2e6)], None), ("B", [(None, 2e6)], None),
                           ("C", [("meter", 2000.0)], 2.0)):
    model = h78.export(root / f"m{len(files)}", len(files), "mm", [1.5] * 3)
    paths = [write(root / f"{name}_{i:04d}.nii.gz", *kind) for i, kind in enumerate(files)]
    said = h72.predict(model, paths, root / "o.nii.gz")
    print(name, "PASSES" if said is None else said.replace(str(root), "<root>")[:330])
    if said:
        print(f"   'tells': {' tells ' in said}")
        if truth:
            todo = h72.first_lines(said)
            for targets, code in todo:
                for target in targets:
                    exec(code, {"nib": nib, "np": np, "path": target})
            again = h72.predict(model, paths, root / "o.nii.gz") if todo else said
            ok = all(h78.right_size(p, (truth,) * 3, "mm") for p in paths)
            print("   lines", len(todo), "->", "NO LINE" if not todo else "RIGHT" if ok and again is None else
                  "OFF" if not ok else "REFUSED")
