"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python every_unit_combination.py <empty folder>
Every combination of eight kinds of file over a case's channel 0, channel 1 and label (512 cases; case_001 of 2,
case_000 all mm; voxels 2 mm, written in the numbers of the unit named second): `accelerated-seg check`'s exit status
and error lines, then the first nibabel line of each error run on the files it names and the case checked again;
"RIGHT" where every file of the case is then 2 mm in its declared unit (hundred-and-eleventh session's review of h58;
its output in every_unit_combination.txt, h58's ce0d1b1a and the review's; h64's, with a summary of what changed,
in every_unit_combination_h64.txt; h68's in every_unit_combination_h68.txt). Kinds: n: no unit, mm numbers; nU: no
unit, micrometre numbers; c5: xyzt_units 5 (no named unit), mm numbers; mm; U: micrometres; U~mm: micrometres with
mm numbers; M: metres; M~mm: metres with mm numbers.

At the end a summary counts, over every combination, whether the first lines offered are right: "first lines
RIGHT" where a refused case's first lines put every file at its true 2 mm, "first lines leave a file off" where
they do not (the hundred-and-twelfth session's review counted 78 such); with `--against <an earlier output>` it
lists the combinations whose first lines were RIGHT there and are not now, and those the other way (h68)."""
import contextlib, io, itertools, re, sys, shutil
from pathlib import Path
import numpy as np, nibabel as nib
from accelerated_seg.cli import main

PER_MM = {"none": 1.0, "mm": 1.0, "micron": 1000.0, "meter": 0.001, "code5": 1.0}
# kinds: (declared unit, unit of numbers)
KINDS = {"n": ("none", "mm"), "nU": ("none", "micron"), "c5": ("code5", "mm"), "mm": ("mm", "mm"),
         "U": ("micron", "micron"), "U~mm": ("micron", "mm"), "M": ("meter", "meter"), "M~mm": ("meter", "mm")}

def write(path, voxels, unit, numbers):
    image = nib.Nifti1Image(voxels, np.diag([2.0 * PER_MM[numbers]] * 3 + [1.0]))
    if unit == "code5":
        image.header["xyzt_units"] = 5
    elif unit != "none":
        image.header.set_xyzt_units(unit)
    nib.save(image, path)

def cases(root, odd):
    for folder in ("imagesTr", "labelsTr"):
        (root / folder).mkdir(parents=True)
    rng = np.random.default_rng(0)
    for index in range(2):
        case = f"case_{index:03d}"
        kinds = odd if index == 1 else [("mm", "mm")] * 3
        for (name, folder, voxels), (unit, numbers) in zip(
                ((f"{case}_0000", "imagesTr", (rng.random((8, 8, 8)) + 1).astype(np.float32)),
                 (f"{case}_0001", "imagesTr", (rng.random((8, 8, 8)) + 1).astype(np.float32)),
                 (case, "labelsTr", (rng.random((8, 8, 8)) > .7).astype(np.uint8))), kinds):
            write(root / folder / f"{name}.nii.gz", voxels, unit, numbers)
    (root / "dataset.json").write_text('{"channel_names": {"0": "T1", "1": "T2"}, "numTraining": 2, '
                                       '"labels": {"background": 0, "tumour": 1}, "file_ending": ".nii.gz"}')
    return root / "dataset.json"

def check(dataset):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["check", str(dataset)])
    return status, [line for line in err.getvalue().splitlines() if line.startswith("error:")]

PATH = r"/\S+?\.nii\.gz"
def fixes(errors, root):
    """(paths, code) of each line an error offers before its "or, where" alternative"""
    out = []
    for line in errors:
        first = line.split("; or,")[0].split(", or, where")[0]
        # every "verb PATHS ... (nibabel: CODE)" after the first "Declare|Rewrite|rewrite|declare"
        for m in re.finditer(r"(?:[Dd]eclare|[Rr]ewrite) ((?:%s(?:, | and )?)+).*?\(nibabel: (.*?nib\.save\(.*?path\))\)" % PATH, first):
            out.append((re.findall(PATH, m.group(1)), m.group(2)))
    return out

def mm_sizes(path):
    img = nib.load(path)
    code = int(img.header["xyzt_units"]) % 8
    f = {2: 1.0, 1: 1000.0, 3: 0.001}.get(code, 1.0)
    return float(nib.affines.voxel_sizes(img.affine)[0] * f)

def outcome(line):
    """What a probe line says of the first lines offered: "right", "off" (a file left off 2 mm), "no line"
    (refused, no nibabel line found) or "passes" (not refused)."""
    if "passes" in line:
        return "passes"
    if " fixes 0 " in line:
        return "no line"
    return "right" if line.endswith("RIGHT") else "off"


def summary(lines, against=None):
    counts = {kind: 0 for kind in ("right", "off", "no line", "passes")}
    for line in lines:
        counts[outcome(line)] += 1
    said = [f"# summary: first lines RIGHT {counts['right']}, first lines leave a file off {counts['off']}, "
            f"refused with no line {counts['no line']}, passing unrefused {counts['passes']} "
            f"(of {len(lines)})"]
    if against:
        before = {line.split(":")[0]: outcome(line.rstrip()) for line in open(against) if line[:1] not in "#\n"}
        now = {line.split(":")[0]: outcome(line) for line in lines}
        right_before = {line.split(":")[0] for line in open(against) if line.rstrip().endswith("RIGHT")}
        lost = [line.split(":")[0] for line in lines if line.split(":")[0] in right_before and not line.endswith("RIGHT")]
        said.append(f"# RIGHT before (any way), not now: {len(lost)}" + "".join(f"\n#   {combo}" for combo in lost))
        for was, became, words in (("right", "off", "first lines RIGHT before, off now"),
                                   ("off", "right", "first lines off before, RIGHT now")):
            moved = [combo for combo in now if before.get(combo) == was and now[combo] == became]
            said.append(f"# {words}: {len(moved)}" + "".join(f"\n#   {combo}" for combo in moved))
    return "\n".join(said)


if __name__ == "__main__":
    args = sys.argv[1:]
    against = None
    if "--against" in args:
        at = args.index("--against"); against = args[at + 1]; del args[at:at + 2]
    root = Path(args[0]); only = args[1:]
    printed = []
    names = list(KINDS)
    combos = [c for c in itertools.product(names, repeat=3)] if not only else [tuple(only)]
    for combo in combos:
        folder = root / "_".join(combo).replace("~", "-")
        dataset = cases(folder, [KINDS[k] for k in combo])
        status, errors = check(dataset)
        line = f"{' '.join(f'{k:5}' for k in combo)}: exit {status} errors {len(errors)}"
        if status:
            todo = fixes(errors, folder)
            for paths, code in todo:
                for p in paths:
                    exec(code, {"nib": nib, "np": np, "path": p})
            s2, e2 = check(dataset)
            sizes = [mm_sizes(p) for p in sorted((folder).glob("*/case_001*.nii.gz"))]
            ok = all(abs(s - 2) < 1e-6 for s in sizes)
            line += f" | fixes {len(todo)} -> exit {s2} errors {len(e2)} mm-sizes {'RIGHT' if ok else sizes}"
            if only:
                for e in errors: print("  ", e.replace(str(folder), "<d>"))
                for e in e2: print("  2:", e.replace(str(folder), "<d>"))
        else:
            sizes = [mm_sizes(p) for p in sorted((folder).glob("*/case_001*.nii.gz"))]
            ok = all(abs(s - 2) < 1e-6 for s in sizes)
            line += f" | passes, mm-sizes {'RIGHT' if ok else sizes}"
        print(line, flush=True)
        printed.append(line)
        shutil.rmtree(folder)
    print(summary(printed, against), flush=True)
