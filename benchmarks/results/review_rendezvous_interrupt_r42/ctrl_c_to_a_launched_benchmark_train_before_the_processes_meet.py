"""A terminal's Ctrl-C before a launched ``accelerated-seg benchmark train``'s processes meet: SIGINT to the launcher's
process group of a 2-process CPU launch (torch's agent sends it on to every rank), once rank 0 waits in the rendezvous
(its key in the launch's store) and rank 1 is still on its way to it (tests/interrupted_before_the_processes_meet.py,
SIGNAL_TO=group AND_RANK0_WAITING=1, both at benchmark_train.fresh_accelerator).

    PYTHONPATH=<package> .venv/bin/python ctrl_c_to_a_launched_benchmark_train_before_the_processes_meet.py <tests/>
"""
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

PACKAGE = os.environ.get("PYTHONPATH", "")
TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
from processes import run_bounded  # noqa: E402
from test_distributed import _free_port  # noqa: E402

top = Path(tempfile.mkdtemp())
at = "accelerated_seg.benchmark_train:fresh_accelerator"
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "SIGNAL_RANK": "1", "SIGNAL_IN": at,
       "OTHERS_AT": at, "SIGNALLED_AT": str(top / "s"), "SIGNAL_TO": "group", "AND_RANK0_WAITING": "1",
       "PYTHONPATH": PACKAGE}
tiny = {"channels": [4, 8], "strides": [2], "num_res_units": 0}
cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
       "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
       str(TESTS / "interrupted_before_the_processes_meet.py"), "benchmark", "train", "--model", "unet",
       "--model-args", json.dumps(tiny), "--patch", "16", "--batch", "2", "--steps", "2", "--blocks", "2",
       "--output", str(top / "train.json")]
done = run_bounded(cmd, env=env, timeout=200)
out = done.stdout + done.stderr
print("status", done.returncode, "after", round(time.time() - float((top / "s").read_text()), 1), "s; said",
      [line for line in out.splitlines() if "interrupted" in line or line.startswith("error")], "codes",
      re.findall(r"exitcode  : (-?[0-9]+)", out), "tracebacks", out.count("Traceback"), "output",
      (top / "train.json").exists())
