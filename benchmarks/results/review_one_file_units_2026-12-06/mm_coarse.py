"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python mm_coarse.py <empty folder>
Review of helper h81's "files declaring mm alike are taken at their word against a spacing set": the far finer check
takes a header of mm at its word for voxels FAR FINER than a spacing set (micro-CT); does the new rule take files
declaring mm on micrometre numbers (far COARSER: 2 mm voxels written 2000, 0.3 mm written 300) at their word too?
One and two files alike, 8 x 8 x 8 and 4 x 4 x 4 voxels, model in mm at 1.5, spacing set and median. PASSES (then
the size predict resampled to: a voxel of the scan becoming so many) or the refusal's first 240 characters."""
import importlib.util, json, sys
from pathlib import Path
import numpy as np, nibabel as nib
here = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("h78", here.parent / "predict_case_units_alike_2026-12-06" / "units_left.py")
h78 = importlib.util.module_from_spec(spec); spec.loader.exec_module(h78); h72 = h78.h72
root = Path(sys.argv[1]); root.mkdir(exist_ok=True)


def write(path, numbers, shape):
    image = nib.Nifti1Image((np.random.default_rng(0).random(shape) + 1).astype(np.float32),
                            np.diag([numbers] * 3 + [1.0]))
    image.header.set_xyzt_units("mm")
    nib.save(image, path)
    return path


n = 0
for spacing_set in (True, False):
    model = h78.export(root / f"m{spacing_set}", 2, "mm", [1.5] * 3)
    one = h78.export(root / f"one{spacing_set}", 1, "mm", [1.5] * 3)
    for folder in (model, one):
        config = json.loads((folder / "config.json").read_text())
        config["spacing_set"] = spacing_set
        (folder / "config.json").write_text(json.dumps(config))
    for channels, m in ((1, one), (2, model)):
        for numbers, shape in ((2000.0, (8, 8, 8)), (300.0, (4, 4, 4)), (2000.0, (4, 4, 4))):
            n += 1
            paths = [write(root / f"c{n}_{i:04d}.nii.gz", numbers, shape) for i in range(channels)]
            said = h72.predict(m, paths, root / "o.nii.gz")
            out = "" if said is not None else f" -> prediction of {nib.load(root / 'o.nii.gz').shape}"
            print(f"{channels} file(s) declaring mm on {numbers:g} (micrometre numbers), {shape}, spacing_set "
                  f"{spacing_set}:", ("PASSES" + out) if said is None else said.replace(str(root), "<root>")[:240])
