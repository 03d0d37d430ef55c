"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python lines_run.py <empty folder> [one|memory|pass]
Output on r66: lines_run_r66.txt.
Review of h78 (r66): do the lines predict offers work when run, and does a case that passed before still pass?
one:    a single channel declaring micrometres on mm numbers (2 mm) for a model in mm at 1.5: the first line run.
memory: Segmentation.predict on in-memory images (the units_left.py kinds and more): every first in-memory line run
        on the images, predict again, and each image's voxel size in mm after.
pass:   cases that must pass: a model of no spacing with channels 1.0 vs 1.0000001 (a resampler's rounding) and of
        no unit beside mm; a model in micrometres at 1500 with channels of no unit at 1500 and 1500.0001; an
        anisotropic model (0.8 x 0.8 x 3 mm) with two channels of no unit at 0.8 x 0.8 x 3."""
import importlib.util, re, sys, warnings
from pathlib import Path
import numpy as np, nibabel as nib

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("h78", HERE.parent / "predict_case_units_alike_2026-12-06" / "units_left.py")
h78 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(h78)
h72 = h78.h72
from accelerated_seg.data.errors import DataError
from accelerated_seg.estimator import Segmentation

root = Path(sys.argv[1])


def said_of(call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
        return None
    except DataError as error:
        return str(error)


def one():
    model = h78.export(root / "one_model", 1, "mm", [1.5] * 3)
    path = root / "one_0000.nii.gz"
    h72.write(path, "micron", "mm", (2.0, 2.0, 2.0))
    said = h72.predict(model, [path], root / "one_out.nii.gz")
    print("one U~mm, model mm 1.5:", said)
    for targets, code in h72.first_lines(said):
        for target in targets:
            exec(code, {"nib": nib, "np": np, "path": target})
    image = nib.load(path)
    print("# after the first line:", image.header.get_xyzt_units()[0], nib.affines.voxel_sizes(image.affine),
          "; predict again:", h72.predict(model, [path], root / "one_out.nii.gz"))


MEMORY_LINE = re.compile(r"(?:[Dd]eclare|[Rr]ewrite) ((?:image \d of the list(?:, | and )?)+)[^;]*?\(nibabel, [^:]*: "
                         r"(.*?\['(?:mm|micron|meter)'\])\)")


def memory():
    model = Segmentation.load(h78.export(root / "memory_model", 2, "mm", [1.5] * 3))
    voxels = (np.random.default_rng(0).random((8, 8, 8)) + 1).astype(np.float32)
    for kinds in (("mm", "U~mm"), ("n", "nU"), ("U~mm", "U~mm"), ("nU", "nU"), ("M~mm", "M~mm"), ("mm", "U")):
        images = []
        for kind in kinds:
            unit, numbers = h72.KINDS[kind]
            image = nib.Nifti1Image(voxels, np.diag([2.0 * h72.PER_MM[numbers]] * 3 + [1.0]))
            if unit != "none":
                image.header.set_xyzt_units(unit)
            images.append(image)
        said = said_of(lambda: model.predict(images))
        first = re.split(r"; or,|, or, where", said)[0] if said else ""
        lines = MEMORY_LINE.findall(first)
        if not lines and (alone := re.match(r"predict: (image \d of the list): its header", said or "")):
            # one image judged by itself: "Rewrite it in mm (nibabel, ...)"
            lines = [(alone.group(1), code) for code in re.findall(
                r"(?:Rewrite|Declare) it[^(]*\(nibabel, [^:]*: (.*?\['(?:mm|micron|meter)'\])\)", first)[:1]]
        for named, code in lines:
            for index in map(int, re.findall(r"image (\d)", named)):
                scope = {"nib": nib, "np": np, "img": images[index]}
                exec(code, scope)
                images[index] = scope["img"]
        sizes = [float(nib.affines.voxel_sizes(image.affine)[0]) * h72.PER_MM.get(
            {"micron": "micron", "meter": "meter"}.get(image.header.get_xyzt_units()[0], "mm"), 1.0) ** -1
            for image in images]
        again = said_of(lambda: model.predict(images)) if lines else said
        print(f"memory {' '.join(kinds)}: lines run {len(lines)}; voxel sizes in mm after: {sizes}; predict again: "
              f"{'segmented' if again is None else again[:300]}")


def must_pass():
    cases = [("no spacing, n 1.0 / n 1.0000001", None, None, [("none", (1.0,) * 3), ("none", (1.0000001,) * 3)]),
             ("no spacing, n 1.0 / mm 1.0000001", None, None, [("none", (1.0,) * 3), ("mm", (1.0000001,) * 3)]),
             ("micron 1500, n 1500 / n 1500.0001", "micron", [1500.0] * 3,
              [("none", (1500.0,) * 3), ("none", (1500.0001,) * 3)]),
             ("mm 0.8x0.8x3, n / n", "mm", [0.8, 0.8, 3.0], [("none", (0.8, 0.8, 3.0))] * 2),
             ("none 0.8x0.8x3, n / mm", None, [0.8, 0.8, 3.0], [("none", (0.8, 0.8, 3.0)), ("mm", (0.8, 0.8, 3.0))])]
    voxels = (np.random.default_rng(0).random((8, 8, 8)) + 1).astype(np.float32)
    for index, (title, unit, spacing, files) in enumerate(cases):
        model = h78.export(root / f"pass_model_{index}", 2, unit, spacing)
        paths = []
        for channel, (declared, numbers) in enumerate(files):
            image = nib.Nifti1Image(voxels, np.diag(list(numbers) + [1.0]))
            if declared != "none":
                image.header.set_xyzt_units(declared)
            paths.append(root / f"pass_{index}_{channel:04d}.nii.gz")
            nib.save(image, paths[-1])
        said = h72.predict(model, paths, root / f"pass_{index}_out.nii.gz")
        print(f"pass {title}: {'PASSES' if said is None else 'REFUSED ' + said[:400]}")


for part in sys.argv[2:] or ["one", "memory", "pass"]:
    {"one": one, "memory": memory, "pass": must_pass}[part]()
