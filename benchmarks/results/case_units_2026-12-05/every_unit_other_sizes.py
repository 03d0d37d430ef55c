"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python every_unit_other_sizes.py <empty folder> [CHANNELS]
every_unit_combination.py (its eight kinds of file, its `accelerated-seg check`, its parsing of the first nibabel
lines) over its 2 mm and other true voxel sizes: 1 mm, 0.5 mm and anisotropic 0.8 x 0.8 x 3 mm, and CHANNELS image
channels (default 2; 1: channel 0 and the label; 3: a third channel of the kind of channel 1); the first line of an error
telling "it" or "each" is run too (``it_lines``), which the 2 mm probe counts "no line". "RIGHT" where every file
of the case is then at its true sizes along every axis in its declared unit (the 2 mm probe looks at the first axis).
Each combination's line also says "alone" where the error reads the case "one way alone" and "2 ways" where it offers
two readings (case_readings.py, the hundred-and-thirteenth session's review of h68); a summary per voxel size."""
import itertools, re, shutil, sys
from pathlib import Path
import numpy as np, nibabel as nib
import runpy

probe = runpy.run_path(str(Path(__file__).with_name("every_unit_combination.py")), run_name="every_unit_other_sizes")
KINDS, PER_MM, check, fixes, PATH = (probe[name] for name in ("KINDS", "PER_MM", "check", "fixes", "PATH"))
SIZES = {"2 mm": (2.0, 2.0, 2.0), "1 mm": (1.0, 1.0, 1.0), "0.5 mm": (0.5, 0.5, 0.5), "0.8x0.8x3": (0.8, 0.8, 3.0)}


def write(path, voxels, unit, numbers, sizes):
    image = nib.Nifti1Image(voxels, np.diag([size * PER_MM[numbers] for size in sizes] + [1.0]))
    if unit == "code5":
        image.header["xyzt_units"] = 5
    elif unit != "none":
        image.header.set_xyzt_units(unit)
    nib.save(image, path)


def cases(root, odd, sizes, channels):
    """case_000 all mm, case_001 of ``odd``'s kinds: its channels, then its label (a third channel, where asked for,
    of the second's kind)."""
    for folder in ("imagesTr", "labelsTr"):
        (root / folder).mkdir(parents=True)
    rng = np.random.default_rng(0)
    for index in range(2):
        case = f"case_{index:03d}"
        kinds = odd if index == 1 else [("mm", "mm")] * (channels + 1)
        for number, kind in enumerate(kinds[:-1]):
            write(root / "imagesTr" / f"{case}_{number:04d}.nii.gz",
                  (rng.random((8, 8, 8)) + 1).astype(np.float32), *kind, sizes)
        write(root / "labelsTr" / f"{case}.nii.gz", (rng.random((8, 8, 8)) > .7).astype(np.uint8), *kinds[-1], sizes)
    names = ", ".join(f'"{number}": "C{number}"' for number in range(channels))
    (root / "dataset.json").write_text(f'{{"channel_names": {{{names}}}, "numTraining": 2, '
                                       '"labels": {"background": 0, "tumour": 1}, "file_ending": ".nii.gz"}')
    return root / "dataset.json"


def it_lines(error):
    """(paths, code) of the first line of an error that names its files at its start and tells them "Rewrite it",
    "Declare it", "Rewrite each" or "declare each" (the 2 mm probe's fixes() runs none of those, and counts such an
    error "no line", whether its line is right or not)."""
    head = re.split(r": (?:its|their) headers? declare", error)[0]
    first = error.split("; or,")[0].split(", or, where")[0]
    code = re.search(r"(?:[Dd]eclare|[Rr]ewrite) (?:it|each|them)\b.*?\(nibabel: (.*?nib\.save\(.*?path\))\)", first)
    return [(re.findall(PATH, head.split("): ", 1)[-1]), code.group(1))] if head != error and code else []


def true_sizes(path, sizes):
    image = nib.load(path)
    per_mm = {2: 1.0, 1: 1000.0, 3: 0.001}.get(int(image.header["xyzt_units"]) % 8, 1.0)
    return np.allclose(nib.affines.voxel_sizes(image.affine) * per_mm, sizes, rtol=1e-4)


def one(root, combo, sizes, channels):
    kinds = [KINDS[kind] for kind in combo]
    kinds = kinds[:2] + [kinds[1]] + kinds[2:] if channels == 3 else kinds
    kinds = [kinds[0], kinds[-1]] if channels == 1 else kinds
    folder = root / "_".join(combo).replace("~", "-")
    dataset = cases(folder, kinds, sizes, channels)
    status, errors = check(dataset)
    said = " ".join(word for word, text in (("alone", "one way alone"), ("2ways", "ways, and which")) if
                    any(text in error for error in errors))
    line = f"{' '.join(f'{kind:5}' for kind in combo)}: exit {status} errors {len(errors)} {said}".rstrip()
    if status:
        todo = [line for error in errors for line in fixes([error], folder) or it_lines(error)]
        for paths, code in todo:
            for path in paths:
                exec(code, {"nib": nib, "np": np, "path": path})
        status, after = check(dataset)
        line += f" | fixes {len(todo)} -> exit {status} errors {len(after)}"
        outcome = "no line" if not todo else "right" if all(
            true_sizes(path, sizes) for path in folder.glob("*/case_001*.nii.gz")) else "off"
    else:
        outcome = "passes"
    shutil.rmtree(folder)
    return f"{line} {outcome.upper()}", outcome, said


if __name__ == "__main__":
    root, channels = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 2
    combos = list(itertools.product(KINDS, repeat=2 if channels == 1 else 3))
    for name, sizes in SIZES.items():
        counts = {}
        for combo in combos:
            line, outcome, said = one(root, combo, sizes, channels)
            print(f"{name}: {line}", flush=True)
            for key in (outcome, *said.split()):
                counts[key] = counts.get(key, 0) + 1
        print(f"# {name}, {channels} channel(s), {len(combos)} combinations: first lines RIGHT {counts.get('right', 0)}, "
              f"leave a file off {counts.get('off', 0)}, no line {counts.get('no line', 0)}, passing "
              f"{counts.get('passes', 0)}; read one way alone {counts.get('alone', 0)}, 2 ways "
              f"{counts.get('2ways', 0)}", flush=True)
