"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python every_channel_unit_combination.py <empty folder>
Predict (``inference.predict_file``, what `accelerated-seg predict --input` calls, in process) on a case of two
channel files of every combination of the eight kinds of file of ../case_units_2026-12-05/every_unit_combination.py
(64 cases; n: no unit, mm numbers; nU: no unit, micrometre numbers; c5: xyzt_units 5; mm; U: micrometres; U~mm:
micrometres on mm numbers; M: metres; M~mm: metres on mm numbers), at true voxel sizes of 2 mm, 0.5 mm and 0.8 x 0.8
x 3 mm, for a model at 1.5 x 1.5 x 1.5 mm whose training cases declared mm ("mm") and for one that records no unit
("none", an export before the hundred-and-sixth session); then three channels, channel 2 of channel 1's kind, at 2 mm.

Each line: the refusal's kind (unit: a unit error; grid: "do not share a voxel grid"; memory; other), and what the
first lines it offers (the nibabel lines before its first "; or," alternative, as every_unit_combination.py's
fixes() reads them, or the "Rewrite it/each"/"Declare it/each" line) do once run: RIGHT where every file is then at
its true voxel size in mm and predict segments the case; OFF where a file is left off its true size; NO LINE where
the refusal offers none (the grid's "resample every channel onto the first one's grid" among them); REFUSED where
the files are right and predict still refuses. PASSES where predict segments the case as given with every file's
numbers its true size in mm (what the resampling reads); SILENT OFF where it segments a file read off its size."""
import itertools, re, shutil, sys, warnings
from pathlib import Path
import numpy as np, nibabel as nib, torch

from accelerated_seg.data.errors import DataError
from accelerated_seg.exported_model import write_export
from accelerated_seg.inference import predict_file
from accelerated_seg.models import build_from_spec, model_spec

PER_MM = {"none": 1.0, "mm": 1.0, "micron": 1000.0, "meter": 0.001, "code5": 1.0}
KINDS = {"n": ("none", "mm"), "nU": ("none", "micron"), "c5": ("code5", "mm"), "mm": ("mm", "mm"),
         "U": ("micron", "micron"), "U~mm": ("micron", "mm"), "M": ("meter", "meter"), "M~mm": ("meter", "mm")}
SIZES = {"2 mm": (2.0, 2.0, 2.0), "0.5 mm": (0.5, 0.5, 0.5), "0.8x0.8x3": (0.8, 0.8, 3.0)}
PATCH = [16, 16, 16]
PATH = r"/\S+?\.nii\.gz"


def export(folder, channels, unit):
    spec = model_spec("unet", channels, 2, PATCH, {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    torch.manual_seed(0)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    metadata = {"labels": {"0": "background", "1": "a"}, "channels": {str(c): f"C{c}" for c in range(channels)},
                "in_channels": channels, "num_classes": 2, "patch_size": PATCH, "spacing": [1.5, 1.5, 1.5],
                "spacing_unit": unit}
    write_export(tensors, spec.to_dict(), metadata, folder)
    return folder


def write(path, unit, numbers, sizes):
    voxels = (np.random.default_rng(0).random((8, 8, 8)) + 1).astype(np.float32)
    image = nib.Nifti1Image(voxels, np.diag([size * PER_MM[numbers] for size in sizes] + [1.0]))
    if unit == "code5":
        image.header["xyzt_units"] = 5
    elif unit != "none":
        image.header.set_xyzt_units(unit)
    nib.save(image, path)


def predict(model, paths, output):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            predict_file(model, paths, output)
        return None
    except DataError as error:
        return str(error)


def first_lines(error):
    """(paths, code) of each nibabel line an error offers before its first alternative."""
    out = []
    for said in error.split("\n"):
        first = said.split("; or,")[0].split(", or, where")[0]
        found = [(re.findall(PATH, m.group(1)), m.group(2)) for m in re.finditer(
            r"(?:[Dd]eclare|[Rr]ewrite) ((?:%s(?:, | and )?)+).*?\(nibabel: (.*?nib\.save\(.*?path\))\)" % PATH, first)]
        if not found:  # "X and Y: their headers declare ... Rewrite each in mm (nibabel: ...)"
            head = re.split(r": (?:its|their) headers? declare", said)[0]
            code = re.search(r"(?:[Dd]eclare|[Rr]ewrite) (?:it|each|them)\b.*?\(nibabel: (.*?nib\.save\(.*?path\))\)",
                             first)
            if head != said and code:
                found = [(re.findall(PATH, head), code.group(1))]
        out += found
    return out


def kind_of(error):
    return ("grid" if "share a voxel grid" in error else "memory" if "GiB is available" in error else
            "unit" if "xyzt_units" in error else "other")


def at_true_size(path, sizes, numbers_only=False):
    image = nib.load(path)
    per_mm = 1.0 if numbers_only else {2: 1.0, 1: 1000.0, 3: 0.001}.get(int(image.header["xyzt_units"]) % 8, 1.0)
    return np.allclose(nib.affines.voxel_sizes(image.affine) * per_mm, sizes, rtol=1e-4)


def one(root, model, combo, sizes):
    folder = root / "_".join(combo).replace("~", "-")
    folder.mkdir(parents=True)
    paths = [folder / f"c_{index:04d}.nii.gz" for index in range(len(combo))]
    for path, kind in zip(paths, combo):
        write(path, *KINDS[kind], sizes)
    error = predict(model, paths, folder / "out.nii.gz")
    line = f"{' '.join(f'{kind:5}' for kind in combo)}: "
    if error is None:
        outcome = "passes" if all(at_true_size(path, sizes, numbers_only=True) for path in paths) else "silent off"
        line += outcome.upper()
    else:
        todo = first_lines(error)
        for targets, code in todo:
            for target in targets:
                exec(code, {"nib": nib, "np": np, "path": target})
        again = predict(model, paths, folder / "out.nii.gz") if todo else error
        right = all(at_true_size(path, sizes) and at_true_size(path, sizes, numbers_only=True) for path in paths)
        outcome = "no line" if not todo else "off" if not right else "refused" if again else "right"
        line += f"refused ({kind_of(error)}), lines {len(todo)} -> {outcome.upper()}"
    shutil.rmtree(folder)
    return line, outcome


if __name__ == "__main__":
    root = Path(sys.argv[1])
    runs = [(name, sizes, 2) for name, sizes in SIZES.items()] + [("2 mm", SIZES["2 mm"], 3)]
    for unit in ("mm", None):
        for name, sizes, channels in runs:
            model = export(root / f"model_{unit}_{channels}", channels, unit)
            counts = {}
            for combo in itertools.product(KINDS, repeat=2):
                combo = combo if channels == 2 else (*combo, combo[1])
                line, outcome = one(root, model, combo, sizes)
                print(f"model {unit or 'none'}, {name}, {channels} ch: {line}", flush=True)
                counts[outcome] = counts.get(outcome, 0) + 1
            print(f"# model {unit or 'none'}, {name}, {channels} channels, 64 combinations: "
                  + ", ".join(f"{key.upper()} {counts.get(key, 0)}" for key in
                              ("right", "off", "no line", "refused", "passes", "silent off")), flush=True)
