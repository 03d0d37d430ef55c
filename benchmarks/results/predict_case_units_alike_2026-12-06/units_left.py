"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python units_left.py <empty folder> [alike|models|memory]
The three kinds of case predict's reading of a case's units still judged file by file after h72
(../predict_case_units_2026-12-06/, whose probe's files, kinds and readers this one imports):

alike:  channel files alike (the same unit and numbers: U~mm U~mm, M~mm M~mm, nU nU, U U, M M, and n n, mm mm, c5 c5
        that pass), at 2 mm, 0.5 mm and 0.8 x 0.8 x 3 mm, 2 and 3 channels, for a model at 1.5 mm in mm and one
        recording no unit;
models: the 64 two-channel combinations at 2 mm for a model in micrometres (spacing 1500 x 1500 x 1500, its
        config.json's spacing_unit "micron"), one in metres (0.0015, "meter"), and one of no spacing (null);
memory: Segmentation.predict given nibabel images (in memory) whose units disagree: the refusal's words, and every
        path they name that does not exist.

Each line of alike and models: the refusal's kind and how many error lines (unit errors one per line), then what its
first nibabel lines do once run, as the h72 probe says (RIGHT, OFF, NO LINE, REFUSED, PASSES, SILENT OFF), every
file's numbers judged in the model's unit (in mm for a model of no unit or no spacing; for one of no spacing,
which resamples nothing, PASSES where the files share one grid whatever their units)."""
import importlib.util, itertools, re, shutil, sys, warnings
from pathlib import Path
import numpy as np, nibabel as nib, torch

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location(
    "h72_probe", HERE.parent / "predict_case_units_2026-12-06" / "every_channel_unit_combination.py")
h72 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(h72)

from accelerated_seg.data.errors import DataError
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec

UNIT_MM = {"mm": 1.0, "micron": 0.001, "meter": 1000.0}
ALIKE = ["U~mm", "M~mm", "nU", "U", "M", "n", "mm", "c5"]


def export(folder, channels, unit, spacing):
    spec = model_spec("unet", channels, 2, h72.PATCH, {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    torch.manual_seed(0)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    metadata = {"labels": {"0": "background", "1": "a"}, "channels": {str(c): f"C{c}" for c in range(channels)},
                "in_channels": channels, "num_classes": 2, "patch_size": h72.PATCH, "spacing": spacing,
                "spacing_unit": unit}
    write_export(tensors, spec.to_dict(), metadata, folder)
    return folder


def right_size(path, sizes, unit, numbers_only=False):
    """Whether the file is at its true voxel size as declared (no unit read in ``unit``, mm where None; not judged
    where ``numbers_only``: a case that passes is judged as the h72 probe judges it) and its numbers are in ``unit``
    (what the resampling reads)."""
    image = nib.load(path)
    declared = {2: "mm", 1: "meter", 3: "micron"}.get(int(image.header["xyzt_units"]) % 8)
    numbers = nib.affines.voxel_sizes(image.affine)
    per_mm = UNIT_MM[unit or "mm"]
    return ((numbers_only or np.allclose(numbers * UNIT_MM[declared or unit or "mm"], sizes, rtol=1e-4))
            and np.allclose(numbers * per_mm, sizes, rtol=1e-4))


def one(root, model, combo, sizes, unit, spacing):
    folder = root / "_".join(combo).replace("~", "-")
    folder.mkdir(parents=True)
    paths = [folder / f"c_{index:04d}.nii.gz" for index in range(len(combo))]
    for path, kind in zip(paths, combo):
        h72.write(path, *h72.KINDS[kind], sizes)
    error = h72.predict(model, paths, folder / "out.nii.gz")
    line = f"{' '.join(f'{kind:5}' for kind in combo)}: "
    if error is None:
        if spacing is None:
            outcome = "passes"
        else:
            outcome = "passes" if all(right_size(path, sizes, unit, numbers_only=True) for path in paths) else \
                "silent off"
        line += outcome.upper()
    else:
        todo = h72.first_lines(error)
        for targets, code in todo:
            for target in targets:
                exec(code, {"nib": nib, "np": np, "path": target})
        again = h72.predict(model, paths, folder / "out.nii.gz") if todo else error
        right = all(right_size(path, sizes, None if spacing is None else unit) for path in paths)
        outcome = "no line" if not todo else "off" if not right else "refused" if again else "right"
        named = all(str(path) in error for path in paths)
        line += (f"refused ({h72.kind_of(error)}, {error.count(chr(10)) + 1} line(s), "
                 f"{'every file named' if named else 'not every file named'}), lines {len(todo)} -> {outcome.upper()}")
    shutil.rmtree(folder)
    return line, outcome


def run(root, title, model, combos, sizes, unit, spacing):
    counts = {}
    for combo in combos:
        line, outcome = one(root, model, combo, sizes, unit, spacing)
        print(f"{title}: {line}", flush=True)
        counts[outcome] = counts.get(outcome, 0) + 1
    print(f"# {title}, {len(combos)} combinations: " + ", ".join(
        f"{key.upper()} {counts.get(key, 0)}" for key in ("right", "off", "no line", "refused", "passes",
                                                          "silent off")), flush=True)


def alike(root):
    for unit in ("mm", None):
        for name, sizes in h72.SIZES.items():
            for channels in (2, 3):
                model = export(root / f"alike_{unit}_{channels}", channels, unit, [1.5] * 3)
                run(root, f"model {unit or 'none'}, {name}, {channels} ch", model,
                    [(kind,) * channels for kind in ALIKE], sizes, unit, [1.5] * 3)
                shutil.rmtree(model)


def models(root):
    for unit, spacing in (("micron", [1500.0] * 3), ("meter", [0.0015] * 3), (None, None)):
        model = export(root / f"models_{unit}", 2, unit, spacing)
        run(root, f"model {unit or 'none'} spacing {spacing and spacing[0]}", model,
            list(itertools.product(h72.KINDS, repeat=2)), h72.SIZES["2 mm"], unit, spacing)
        shutil.rmtree(model)


def memory(root):
    from accelerated_seg.estimator import Segmentation
    model = Segmentation.load(export(root / "memory_model", 2, "mm", [1.5] * 3))
    voxels = (np.random.default_rng(0).random((8, 8, 8)) + 1).astype(np.float32)
    for kinds in (("mm", "U~mm"), ("mm", "U"), ("n", "nU"), ("U~mm", "U~mm")):
        images = []
        for kind in kinds:
            unit, numbers = h72.KINDS[kind]
            image = nib.Nifti1Image(voxels, np.diag([2.0 * h72.PER_MM[numbers]] * 3 + [1.0]))
            if unit != "none":
                image.header.set_xyzt_units(unit)
            images.append(image)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.predict(images)
            said = None
        except DataError as error:
            said = str(error)
        missing = sorted({path for path in re.findall(r"/\S+?\.nii(?:\.gz)?", said or "") if not Path(path).exists()})
        print(f"memory {' '.join(kinds)}: {'segmented' if said is None else said}", flush=True)
        print(f"# memory {' '.join(kinds)}: paths named that do not exist: {len(missing)} {missing}; "
              f"'nib.load(path' offered: {'nib.load(path' in (said or '')}", flush=True)


if __name__ == "__main__":
    root = Path(sys.argv[1])
    for part in sys.argv[2:] or ["alike", "models", "memory"]:
        {"alike": alike, "models": models, "memory": memory}[part](root)
