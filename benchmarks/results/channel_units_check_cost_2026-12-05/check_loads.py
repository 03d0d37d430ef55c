"""The nib.load calls `accelerated-seg check` makes on still_open.py's four situations (12 files: 4 cases of 2 channels
and a label), to show the unit checks of labels read no header twice:

    PYTHONPATH=<code> python benchmarks/results/channel_units_check_cost_2026-12-05/check_loads.py <name>
"""
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path
import nibabel as nib

code = sys.argv[1]  # what the output calls the code run
src = (Path(__file__).parent / "still_open.py").read_text().split("for name, odd in SITUATIONS.items():")[0]
ns = {}
exec(src, ns)  # its writer of the four situations, without its printing loop
from accelerated_seg.cli import main
calls = [0]
real = nib.load


def counting(*args, **kwargs):
    calls[0] += 1
    return real(*args, **kwargs)


nib.load = counting
for situation, odd in ns["SITUATIONS"].items():
    with tempfile.TemporaryDirectory() as work:
        dataset = ns["write"](Path(work) / "data", odd)
        calls[0] = 0
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            status = main(["check", str(dataset)])
        print(json.dumps({"code": code, "situation": situation, "exit": status, "nib_load_calls": calls[0]}))
