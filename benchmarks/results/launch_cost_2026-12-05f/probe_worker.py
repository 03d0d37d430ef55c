"""A rank of the probe's launch: tests/dist_worker.py, with each phase's wall and CPU time written to
``<prefix>.phases<rank>.json`` (start of this script, stack imported, first loss forward, train() returned)."""
import importlib
import json
import os
import resource
import sys
import time


def mark():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"wall": time.time(), "cpu": usage.ru_utime + usage.ru_stime}


marks = {"start": mark()}
sys.argv[0] = os.path.join(os.environ["TESTS"], "dist_worker.py")
sys.path.insert(0, os.environ["TESTS"])
import dist_worker  # noqa: E402  (imports the loss, as the worker does)
import faults  # noqa: E402
from accelerated_seg.collector import importing_without_collection  # noqa: E402

with importing_without_collection():
    importlib.import_module("accelerated_seg.train")
marks["imported"] = mark()
from monai.losses import DiceCELoss  # noqa: E402

original_forward, original_exit = DiceCELoss.forward, faults.write_result_and_exit


def forward(self, *args):
    marks.setdefault("first_step", mark())
    return original_forward(self, *args)


def write_result_and_exit(prefix, rank, result):
    marks["trained"] = mark()
    marks["process_start"] = {"wall": float(os.environ.get("LAUNCH_T0", 0))}
    with open(f"{prefix}.phases{rank}.json", "w") as file:
        json.dump(marks, file)
    original_exit(prefix, rank, result)


DiceCELoss.forward = forward
dist_worker.write_result_and_exit = write_result_and_exit
dist_worker.main()
