"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python thousand_files.py <empty folder>
The review of helper h88 (r76): the mixed-units refusal with 1,000 files in micrometres among 1,001 in mm, paths as
an MSD task's (…/Task03_Liver/imagesTr/liver_0123.nii.gz): its length, its lines, and the time the refusal takes."""
import sys, time
from pathlib import Path

from accelerated_seg.config import DataConfig
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.prepare import settings_and_unit

sys.path.insert(0, str(Path(__file__).parent))
from real_geometry import dataset  # noqa: E402  (its root: this script's folder argument)

folder = dataset("Task03_Liver", [(f"liver_{i:04d}", *(("micron", (2000.0,) * 3) if i % 2 else ("mm", (2.0,) * 3)),
                                   (8, 8, 8)) for i in range(2001)])
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
