"""A launched predict (2 CPU processes, --split windows) whose process 1, asleep in its share of the second case, is
stopped (SIGTERM to the launch's process group, as a job's stop; or to process 1 alone, as a scheduler signalling one
task) while the launch's store takes nothing of its stop (lost_publish_predict.py). For each run: the launch's status,
seconds from the signal to its end, each process's status in the launcher's table, the lines said (stderr, torch's
agent's own records left out), each with the seconds after the signal it came at, and the files in the output folder.

    cd /tmp && PYTHONPATH=<package tree> .venv/bin/python \
        <worktree>/benchmarks/results/stop_end_bounds_2026-12-06/lost_publish.py <worktree>/tests <to>[,<to>...] <runs> [stays]

(from /tmp, not a worktree: the launched processes put their cwd first on sys.path, the package there with it)

<to>: ``group`` (the launch's process group) or ``process1`` (process 1 alone); ``stays``: process 1 stays after its
command returns, as the tests' script keeps it.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
import torch  # noqa: E402

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.exported_model import write_export  # noqa: E402
from accelerated_seg.models import build_from_spec, model_spec  # noqa: E402
from test_distributed import _free_port  # noqa: E402
from test_inference_distributed import PATCH, SIZES_MM, TINY_UNET, launched_by_rank  # noqa: E402

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
AGENT = re.compile(r"^(W|I|E)\d{4} |torch.distributed.elastic|closing signal|Sending process", re.IGNORECASE)

for to in sys.argv[2].split(","):
    for run in range(int(sys.argv[3])):
        out, sleeping = top / "out", top / "sleeping"
        shutil.rmtree(out, ignore_errors=True)
        sleeping.unlink(missing_ok=True)
        env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "ONE_RANK_ERROR": "slow",
               "ONE_RANK_STAGE": "case_prediction", "ONE_RANK_STARTED": str(sleeping), "PROBE_TESTS": str(TESTS),
               "PROBE_STAYS": "1" if "stays" in sys.argv[4:] else "0"}
        cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
               "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port",
               str(_free_port()), str(Path(__file__).with_name("lost_publish_predict.py")), "predict", "--model",
               str(top / "model"), *map(str, scans), "--output", str(out), "--split", "windows"]
        with subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              start_new_session=True) as launch:
            deadline = time.monotonic() + 120
            while not sleeping.exists() and launch.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            came = []  # (seconds after the signal, line) of stderr
            reading = threading.Thread(target=lambda: came.extend((time.monotonic(), line.rstrip("\n"))
                                                                  for line in launch.stderr), daemon=True)
            reading.start()
            if to == "group":
                os.killpg(launch.pid, signal.SIGTERM)
            else:
                os.kill(launched_by_rank(launch.pid)[1], signal.SIGTERM)
            signalled = time.monotonic()
            try:
                launch.wait(timeout=90)
            except subprocess.TimeoutExpired:
                os.killpg(launch.pid, signal.SIGKILL)
                launch.wait()
            ended_after = time.monotonic() - signalled
            reading.join(10)
        came = [(at - signalled, line) for at, line in came]
        stderr = "\n".join(line for _, line in came)
        lines = [f"{at:5.1f} s {line}" for at, line in came if line.strip() and not AGENT.search(line)]
        table = re.findall(r"(?:rank|local_rank)\s*:\s*(\d+).*?exitcode\s*:\s*(-?\d+)", stderr, re.S)
        killed = "forcefully exiting via 9" in stderr or "SIGKILL" in stderr
        print(f"{to}{' stays' if 'stays' in sys.argv[4:] else ''} run {run + 1}: status {launch.returncode}, ended "
              f"{ended_after:.1f} s after the SIGTERM{', the agent SIGKILLed' if killed else ''}; table {table}; "
              f"files {sorted(p.name for p in out.iterdir()) if out.is_dir() else None}", flush=True)
        for line in lines:
            print(f"    | {line.replace(str(top), '<tmp>')[:400]}", flush=True)
