"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python thousand_files.py <empty folder>
The review of helper h88 (r76): the mixed-units refusal with 1,000 files in micrometres among 1,001 in mm, paths as
an MSD task's (…/Task03_Liver/imagesTr/liver_0123.nii.gz): its length, its lines, and the time the refusal takes."""
import json, sys, time
from pathlib import Path
import numpy as np, nibabel as nib

from accelerated_seg.config import DataConfig
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.prepare import settings_and_unit

folder = Path(sys.argv[1]).absolute() / "Task03_Liver"
entries = []
for i in range(2001):
    unit, size = ("micron", 2000.0) if i % 2 else ("mm", 2.0)
    for kind in ("imagesTr", "labelsTr"):
        image = nib.Nifti1Image(np.zeros((8, 8, 8), np.uint8), np.diag([size] * 3 + [1.0]))
        image.header.set_xyzt_units(unit)
        (folder / kind).mkdir(parents=True, exist_ok=True)
        nib.save(image, folder / kind / f"liver_{i:04d}.nii.gz")
    entries.append({"image": f"./imagesTr/liver_{i:04d}.nii.gz", "label": f"./labelsTr/liver_{i:04d}.nii.gz"})
(folder / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"}, "modality": {"0": "CT"},
                                                 "training": entries}))
manifest = load_msd(folder / "dataset.json")
start = time.perf_counter()
try:
    settings_and_unit(DataConfig(), manifest)
except DataError as error:
    said = str(error)
took = time.perf_counter() - start
lines = said.split("\n")
print(f"refused in {took:.2f} s: {len(said):,} characters in {len(lines)} line(s), of {[len(l) for l in lines]}")
print(f"files in micrometres named: {sum(f'liver_{i:04d}.nii.gz' in said for i in range(1, 2001, 2))} of 1000")
print(lines[0].replace(str(folder), "<root>")[:400])
print(lines[1].replace(str(folder), "<root>")[:400] + " …")
