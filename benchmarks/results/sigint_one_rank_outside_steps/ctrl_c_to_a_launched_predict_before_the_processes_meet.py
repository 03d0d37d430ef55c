"""A terminal's Ctrl-C before a launched predict's processes meet: SIGINT to the launcher's process group of a 2-process
CPU launch of accelerated-seg predict (torch's agent sends it on to every rank), once rank 0 waits in the rendezvous
(its key in the launch's store) and rank 1 is still on its way to it (tests/interrupted_before_the_processes_meet.py,
SIGNAL_TO=group AND_RANK0_WAITING=1).

    PYTHONPATH=<package> .venv/bin/python ctrl_c_to_a_launched_predict_before_the_processes_meet.py <checkout's tests/>
"""
import os, re, sys, time, tempfile
from pathlib import Path
PACKAGE = os.environ.get("PYTHONPATH", "")
TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
import torch
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec
from processes import run_bounded
from test_distributed import _free_port
from test_inference_distributed import PATCH, TINY_UNET
top = Path(tempfile.mkdtemp())
spec = model_spec("unet", 1, 3, PATCH, TINY_UNET)
write_export({k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}, spec.to_dict(),
             {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1, "num_classes": 3, "patch_size": PATCH,
              "spacing": [2.0, 2.0, 2.0]}, top / "model")
write_synthetic_dataset(top / "data", num_cases=2, num_validation=0, seed=1, size_mm=(32.0, 32.0, 32.0), spacing_mm=2.0)
scans = sorted((top / "data" / "imagesTr").glob("*.nii.gz"))
at = "accelerated_seg.inference_distributed:process_state"
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "SIGNAL_RANK": "1", "SIGNAL_IN": at,
       "OTHERS_AT": at, "SIGNALLED_AT": str(top / "s"), "SIGNAL_TO": "group", "AND_RANK0_WAITING": "1",
       "PYTHONPATH": PACKAGE}
cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
       "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
       str(TESTS / "interrupted_before_the_processes_meet.py"), "predict", "--model", str(top / "model"),
       *map(str, scans), "--output", str(top / "out")]
done = run_bounded(cmd, env=env, timeout=200)
out = done.stdout + done.stderr
print("status", done.returncode, "after", round(time.time() - float((top / "s").read_text()), 1), "s; said",
      [l for l in out.splitlines() if "interrupted" in l or l.startswith("error")], "codes",
      re.findall(r"exitcode  : (-?[0-9]+)", out), "tracebacks", out.count("Traceback"), "output folder",
      sorted(p.name for p in (top / "out").iterdir()) if (top / "out").exists() else None)
