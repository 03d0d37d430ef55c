"""SIGINT to process 1 of a 2-process CPU launch of accelerated-seg predict as it calls process_state (before the
process group starts: the processes have not met), once process 0 calls it too (waiting there for process 1); and the
same SIGINT to the launcher (a terminal's Ctrl-C, which its agent sends on to both): the launch's status, seconds from
the signal to its end, the lines said, each process's status (tests/interrupted_before_the_processes_meet.py).

    PYTHONPATH=<package> .venv/bin/python sigint_before_the_processes_meet.py <checkout's tests/>
"""
import os, re, shutil, sys, tempfile, time
from pathlib import Path

TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
import torch
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec
from processes import run_bounded
from test_distributed import _free_port
from test_inference_distributed import PATCH, SIZES_MM, TINY_UNET

top = Path(tempfile.mkdtemp())
spec = model_spec("unet", 1, 3, PATCH, TINY_UNET)
write_export({k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}, spec.to_dict(),
             {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1, "num_classes": 3,
              "patch_size": PATCH, "spacing": [2.0, 2.0, 2.0]}, top / "model")
write_synthetic_dataset(top / "small", num_cases=2, num_validation=0, seed=1, size_mm=SIZES_MM["small"], spacing_mm=2.0)
for to in ("process 1", "launcher"):
    signalled = top / f"signalled_{to.replace(' ', '_')}"
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "SIGNAL_RANK": "1",
           "SIGNAL_IN": "accelerated_seg.inference_distributed:process_state",
           "OTHERS_AT": "accelerated_seg.inference_distributed:process_state", "SIGNALLED_AT": str(signalled),
           **({"SIGNAL_TO": "launcher"} if to == "launcher" else {})}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
           "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(_free_port()),
           str(TESTS / "interrupted_before_the_processes_meet.py"), "predict", "--model", str(top / "model"),
           str(top / "small" / "imagesTr"), "--output", str(top / "out")]
    done = run_bounded(cmd, env=env, timeout=200)
    codes = dict(re.findall(r"rank\s*: (\d).*\n\s*exitcode\s*: (-?\d+)", done.stderr))
    print(f"SIGINT to {to}: status {done.returncode} after {time.time() - float(signalled.read_text()):.1f} s; said "
          f"{[line for line in (done.stdout + done.stderr).splitlines() if line.startswith('predict')]}; table "
          f"{codes}; out "
          f"{sorted(p.name for p in (top / 'out').iterdir()) if (top / 'out').exists() else 'none'}", flush=True)
