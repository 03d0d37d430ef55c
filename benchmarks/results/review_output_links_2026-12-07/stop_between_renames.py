"""Command: PYTHONPATH=<tree> /work/main/.venv/bin/python stop_between_renames.py
evaluate's write_evaluation (files.write_files_together) with sigterm's handler in place, SIGTERM sent to this process
as metrics.csv's rename is done (a real signal, its handler run where Python runs it). What the folder holds after."""
import os
import signal
import tempfile
from pathlib import Path

import accelerated_seg
import accelerated_seg.files as files
from accelerated_seg.evaluate_output import write_evaluation
from accelerated_seg.sigterm import raised_once

print("package:", Path(accelerated_seg.__file__).parent)
folder = Path(tempfile.mkdtemp())
(folder / "metrics.csv").write_text("earlier\n")
(folder / "summary.json").write_text('{"earlier": 1}\n')
renamed, calls = os.replace, []


def replace(*args):
    renamed(*args)
    calls.append(args[1])
    if len(calls) == 1:
        os.kill(os.getpid(), signal.SIGTERM)


files.os.replace = replace
signal.signal(signal.SIGTERM, raised_once())
try:
    write_evaluation(folder, [], {"new": 1})
except BaseException as stop:
    print("raised:", type(stop).__name__, "after renames of", [Path(p).name for p in calls])
for name in ("metrics.csv", "summary.json"):
    text = (folder / name).read_text()
    print(f"{name}: {'earlier' if 'earlier' in text else 'new'}")
print("hidden left:", [p.name for p in folder.iterdir() if p.name.startswith(".")])
