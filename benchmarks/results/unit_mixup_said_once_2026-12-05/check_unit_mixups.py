"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python check_unit_mixups.py <empty folder>
A case of two channels and a label whose files declare different units (xyzt_units): how many errors
`accelerated-seg check` says (hundred-and-tenth session, h56; its output in check_unit_mixups.txt)."""
import json, sys, io, contextlib
from pathlib import Path
import numpy as np, nibabel as nib
from accelerated_seg.cli import main

def cases(root, odd):
    """nnU-Net raw folder, 4 one-channel cases of 8^3 voxels of 2 mm; case_002's (image unit, image scale, label unit,
    label scale) from odd."""
    for folder in ("imagesTr", "labelsTr"):
        (root / folder).mkdir(parents=True)
    rng = np.random.default_rng(0)
    for index in range(4):
        case = f"case_{index:03d}"
        iu, isc, ju, jsc, lu, lsc = odd if case == "case_002" else ("mm", 1.0, "mm", 1.0, "mm", 1.0)
        for name, voxels, unit, scale, folder in ((f"{case}_0000", rng.random((8, 8, 8)) + 1, iu, isc, "imagesTr"),
                                                  (f"{case}_0001", rng.random((8, 8, 8)) + 1, ju, jsc, "imagesTr"),
                                                  (case, (rng.random((8, 8, 8)) > .7), lu, lsc, "labelsTr")):
            image = nib.Nifti1Image(voxels.astype(np.uint8 if folder == "labelsTr" else np.float32),
                                    np.diag([2.0 * scale] * 3 + [1.0]))
            image.header.set_xyzt_units(unit)
            nib.save(image, root / folder / f"{name}.nii.gz")
    (root / "dataset.json").write_text(json.dumps({"channel_names": {"0": "T1", "1": "T2"}, "numTraining": 4,
                                                   "labels": {"background": 0, "tumour": 1}, "file_ending": ".nii.gz"}))
    return root / "dataset.json"

base = Path(sys.argv[1])
for name, odd in {"ch0 micron (micron numbers), ch1 mm, label mm": ("micron", 1000.0, "mm", 1.0, "mm", 1.0),
                  "ch0 micron (mm numbers), ch1 mm, label mm": ("micron", 1.0, "mm", 1.0, "mm", 1.0),
                  "ch0 mm, ch1 micron, label micron (micron numbers)": ("mm", 1.0, "micron", 1000.0, "micron", 1000.0),
                  "ch0 mm, ch1 micron (micron numbers), label mm": ("mm", 1.0, "micron", 1000.0, "mm", 1.0),
                  "ch0 mm, ch1 mm, label micron": ("mm", 1.0, "mm", 1.0, "micron", 1000.0),
                  }.items():
    root = base / name.replace(" ", "_").replace(",", "").replace("(", "").replace(")", "")
    dataset = cases(root, odd)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["check", str(dataset)])
    errors = [l for l in err.getvalue().splitlines() if l.startswith("error")]
    print(f"## {name}: exit {status}, {len(errors)} error line(s)")
    for l in err.getvalue().splitlines():
        print("  " + l.replace(str(root), "<data>")[:600])
