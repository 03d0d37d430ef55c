"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python mm_at_its_word.py <empty folder>
A header declaring mm is taken at its word against a spacing set (inference_reading.refuse_voxels_far_finer): one
file, and two alike, declaring mm on numbers 0.002 (micro-CT at 2 micrometres, a model at 1.5 mm trained coarser on
purpose), for a model whose config.json says "spacing_set": true, and one whose spacing is a median, and a file
declaring micrometres, or metres, on micrometre-like numbers for a model in micrometres. PASSES or the refusal's first
200 characters. Output at main (39a7cd80): mm_at_its_word_main.txt; on h81: mm_at_its_word_h81.txt."""
import importlib.util, json, sys
from pathlib import Path
import numpy as np, nibabel as nib
here = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("h78", here.parent / "predict_case_units_alike_2026-12-06" / "units_left.py")
h78 = importlib.util.module_from_spec(spec); spec.loader.exec_module(h78); h72 = h78.h72
root = Path(sys.argv[1]); root.mkdir(exist_ok=True)


def write(path, unit, numbers):
    image = nib.Nifti1Image((np.random.default_rng(0).random((8, 8, 8)) + 1).astype(np.float32),
                            np.diag([numbers] * 3 + [1.0]))
    image.header.set_xyzt_units(unit)
    nib.save(image, path)
    return path


for channels in (1, 2):
    for spacing_set in (True, False):
        model = h78.export(root / f"m{channels}{spacing_set}", channels, "mm", [1.5] * 3)
        config = json.loads((model / "config.json").read_text())
        config["spacing_set"] = spacing_set
        (model / "config.json").write_text(json.dumps(config))
        paths = [write(root / f"c{channels}{spacing_set}_{i:04d}.nii.gz", "mm", 0.002) for i in range(channels)]
        said = h72.predict(model, paths, root / "o.nii.gz")
        print(f"{channels} file(s) declaring mm at 0.002, spacing_set {spacing_set}:",
              "PASSES" if said is None else said.replace(str(root), "<root>")[:200])
