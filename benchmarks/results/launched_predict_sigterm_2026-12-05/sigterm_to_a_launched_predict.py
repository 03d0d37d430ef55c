"""SIGTERM to a 2-process CPU launch of accelerated-seg predict --split windows, process 1 asleep in its share of the
second case (tests/one_rank_bug_predict.py, ONE_RANK_ERROR=slow), the main process waiting for it in that case's
reduction: to the launcher alone; to the launcher and every process at once (as scancel or a time limit signals every
process of a job); to process 1 alone; and process 1 killed outright (SIGKILL, as the OOM killer does), after which
torch's agent sends SIGTERM to the main process. For each: the launch's status, seconds from the signal to its end,
the lines said, each process's status in the launcher's table, and what is left in the output folder.

    PYTHONPATH=<package> .venv/bin/python sigterm_to_a_launched_predict.py <checkout's tests/>
"""
import os, re, shutil, signal, subprocess, sys, tempfile, time
from pathlib import Path

TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
import torch
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec
from test_distributed import _free_port
from test_inference_distributed import PATCH, SIZES_MM, TINY_UNET, launched_by_rank

top = Path(tempfile.mkdtemp())
spec = model_spec("unet", 1, 3, PATCH, TINY_UNET)
torch.manual_seed(0)
write_export({k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}, spec.to_dict(),
             {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1, "num_classes": 3,
              "patch_size": PATCH, "spacing": [2.0, 2.0, 2.0]}, top / "model")
write_synthetic_dataset(top / "small", num_cases=2, num_validation=0, seed=1, size_mm=SIZES_MM["small"], spacing_mm=2.0)
scans = [top / f"small_{number}.nii.gz" for number in (0, 1)]  # the names one_rank_bug_predict.py waits for
for number, scan in enumerate(sorted((top / "small" / "imagesTr").glob("*.nii.gz"))):
    shutil.copy(scan, scans[number])

for how in ("launcher", "every process", "process 1", "process 1 killed"):
    out = top / "out"
    shutil.rmtree(out, ignore_errors=True)
    sleeping = top / "sleeping"
    sleeping.unlink(missing_ok=True)
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "ONE_RANK_ERROR": "slow",
           "ONE_RANK_STAGE": "case_prediction", "ONE_RANK_STARTED": str(sleeping)}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
           "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(_free_port()),
           str(TESTS / "one_rank_bug_predict.py"), "predict", "--model", str(top / "model"), *map(str, scans),
           "--output", str(out), "--split", "windows"]
    with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as launch:
        deadline = time.monotonic() + 120
        while not sleeping.exists() and launch.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        ranks = launched_by_rank(launch.pid)
        signalled = time.monotonic()
        if how in ("launcher", "every process"):
            os.kill(launch.pid, signal.SIGTERM)
        if how == "every process":
            for pid in ranks.values():
                os.kill(pid, signal.SIGTERM)
        if how == "process 1":
            os.kill(ranks[1], signal.SIGTERM)
        if how == "process 1 killed":
            os.kill(ranks[1], signal.SIGKILL)
        try:
            stdout, stderr = launch.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(launch.pid, signal.SIGKILL)
            stdout, stderr = launch.communicate()
        ended = time.monotonic() - signalled
    said = [line for line in (stdout + stderr).splitlines() if line.startswith(("predict", "error"))]
    codes = dict(re.findall(r"rank\s*: (\d).*\n\s*exitcode\s*: (-?\d+)", stderr))
    print(f"{how}: status {launch.returncode} after {ended:.2f} s; said {said}; table {codes}; "
          f"tracebacks {stderr.count('Traceback')}; left {sorted(p.name for p in out.iterdir())}", flush=True)
