"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python check_case_units.py <empty folder>
A case (case_002 of 4, every other file in mm) of two channels and a label, one of them declaring no unit
(xyzt_units) beside others declaring micrometres or mm: `accelerated-seg check`'s exit status and error lines
(hundred-and-eleventh session, h58; its output in check_case_units.txt, main before and h58 after)."""
import contextlib, io, sys
from pathlib import Path
import numpy as np, nibabel as nib
from accelerated_seg.cli import main

PER_MM = {"unknown": 1.0, "mm": 1.0, "micron": 1000.0}


def cases(root, odd):
    """nnU-Net raw folder, 4 two-channel cases of 8^3 voxels of 2 mm; case_002's (unit, numbers per mm) of its
    channel 0, channel 1 and label from odd."""
    for folder in ("imagesTr", "labelsTr"):
        (root / folder).mkdir(parents=True)
    rng = np.random.default_rng(0)
    for index in range(4):
        case = f"case_{index:03d}"
        units = odd if case == "case_002" else [("mm", 1.0)] * 3
        for (name, folder, voxels), (unit, per_mm) in zip(
                ((f"{case}_0000", "imagesTr", rng.random((8, 8, 8)) + 1),
                 (f"{case}_0001", "imagesTr", rng.random((8, 8, 8)) + 1),
                 (case, "labelsTr", (rng.random((8, 8, 8)) > .7))), units):
            image = nib.Nifti1Image(voxels.astype(np.uint8 if folder == "labelsTr" else np.float32),
                                    np.diag([2.0 * per_mm] * 3 + [1.0]))
            image.header.set_xyzt_units(unit)
            nib.save(image, root / folder / f"{name}.nii.gz")
    (root / "dataset.json").write_text('{"channel_names": {"0": "T1", "1": "T2"}, "numTraining": 4, '
                                       '"labels": {"background": 0, "tumour": 1}, "file_ending": ".nii.gz"}')
    return root / "dataset.json"


def said(unit, numbers):
    return f"{unit}" + (f" ({numbers} numbers)" if unit == "micron" else "")


SITUATIONS = [  # (channel 0, channel 1, label): (unit, the unit whose numbers it holds)
    [("unknown", "mm"), ("micron", "micron"), ("micron", "micron")],
    [("unknown", "mm"), ("micron", "micron"), ("mm", "mm")],
    [("unknown", "mm"), ("micron", "mm"), ("mm", "mm")],
    [("unknown", "mm"), ("mm", "mm"), ("micron", "mm")],
    [("unknown", "mm"), ("micron", "micron"), ("micron", "mm")],
    [("micron", "micron"), ("unknown", "mm"), ("unknown", "mm")],
]
if __name__ == "__main__":
    root = Path(sys.argv[1])
    for index, situation in enumerate(SITUATIONS):
        dataset = cases(root / str(index), [(unit, PER_MM[numbers]) for unit, numbers in situation])
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = main(["check", str(dataset)])
        errors = [line for line in err.getvalue().splitlines() if line.startswith("error:")]
        print(f"## ch0 {said(*situation[0])}, ch1 {said(*situation[1])}, label {said(*situation[2])}: exit {status}, "
              f"{len(errors)} error line(s)")
        for line in errors:
            print("  " + line.replace(str(root / str(index)), "<data>")[:260])
