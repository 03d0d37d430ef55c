"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python tall_scans.py <empty folder>
The review of helper h88 (r76): whole-body PET of 4 mm voxels 128 x 128 x n, every case in mm, data.spacing given in
metres (0.004): n = 450 (1.8 m) and 550 (2.2 m, beyond SCAN_EXTENTS_MM's 2,000 mm): the first way each refusal
offers."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from real_geometry import dataset, verdict  # noqa: E402  (its root: this script's folder argument)

for slices in (450, 550):
    folder = dataset(f"pet_{slices}", [(f"w{i}", "mm", (4.0,) * 3, (128, 128, slices)) for i in range(4)])
    said = verdict(folder, (0.004,) * 3)
    first = said.split("; or,")[0]
    way = ("from micrometres" if "np.diag([0.001, " in first else "given in metres?" if "given in metres" in first
           else "other") + (" +doubt" if "one off itself" in said else "")
    print(f"{slices} slices ({slices * 4 / 1000:g} m): {way}")
