"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python mixed_resolutions.py <empty folder>
The review of helper h88 (r76): h88's rule (a case declaring mm 100 times finer than the cases' median is refused
against a coarser data.spacing) on scans truly that far apart: three micro-CT cases of 50 micrometres and one of 0.4
(125 times), and of 0.5 (100 times, float32's rounding puts it a hair under), every header in mm, data.spacing 0.5."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from real_geometry import dataset, verdict  # noqa: E402  (its root: this script's folder argument)

for fine in (0.0004, 0.0005):
    folder = dataset(f"mix_{fine}", [(f"m{i}", "mm", (0.05,) * 3, (64, 64, 64)) for i in range(3)] +
                     [("s0", "mm", (fine,) * 3, (64, 64, 64))])
    said = verdict(folder, (0.5,) * 3)
    print(f"{fine} mm among 0.05 mm, data.spacing 0.5: {said[:160]} … {said[-200:] if len(said) > 400 else ''}")
