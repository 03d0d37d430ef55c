"""The CI failure's scenario, run again and again: tests/test_inference_distributed.py::
test_sigterm_to_a_launched_predict_stops_every_process_with_one_line_and_status_143 (a 2-process CPU launch of
predict --split windows, process 1 asleep in its share of the second case, the main process waiting for it in that
case's reduction, SIGTERM to the launch's process group), with what probe_predict.py's PROBE_MODE changes. For each
run: the launch's status, seconds from the SIGTERM to its end, the lines said, and whether the test's asserts hold.

    cd <worktree> && PYTHONPATH=<package> .venv/bin/python \
        benchmarks/results/sigterm_on_another_thread_2026-12-06/launched.py <tests/> <mode>[,<mode>...] <runs> [<ranks>]
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
import torch  # noqa: E402

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.exported_model import write_export  # noqa: E402
from accelerated_seg.models import build_from_spec, model_spec  # noqa: E402
from test_distributed import _free_port  # noqa: E402
from test_inference_distributed import PATCH, SIZES_MM, TINY_UNET, stop_lines  # noqa: E402

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

for mode in sys.argv[2].split(","):
    for run in range(int(sys.argv[3])):
        out, sleeping = top / "out", top / "sleeping"
        shutil.rmtree(out, ignore_errors=True)
        sleeping.unlink(missing_ok=True)
        env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "ONE_RANK_ERROR": "slow",
               "ONE_RANK_STAGE": "case_prediction", "ONE_RANK_STARTED": str(sleeping), "PROBE_MODE": mode,
               "PROBE_TESTS": str(TESTS), "PROBE_RANKS": sys.argv[4] if len(sys.argv) > 4 else "1"}
        cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
               "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port",
               str(_free_port()), str(Path(__file__).with_name("probe_predict.py")), "predict", "--model",
               str(top / "model"), *map(str, scans), "--output", str(out), "--split", "windows"]
        with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True) as launch:
            deadline = time.monotonic() + 120
            while not sleeping.exists() and launch.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            os.killpg(launch.pid, signal.SIGTERM)
            signalled = time.monotonic()
            try:
                stdout, stderr = launch.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(launch.pid, signal.SIGKILL)
                stdout, stderr = launch.communicate()
            ended_after = time.monotonic() - signalled
        said = stop_lines(stderr)
        passed = (launch.returncode == 143 and len(said) == 1 and said[0].startswith(
            "predict stopped by SIGTERM in process 1, case small_1 (1 of 2") and ended_after < 10.0)
        killed = "forcefully exiting via 9" in stderr
        print(f"{mode} run {run + 1}: status {launch.returncode}, ended {ended_after:.1f} s after the SIGTERM, "
              f"{'the agent SIGKILLed, ' if killed else ''}lines {said}, test {'passes' if passed else 'FAILS'}",
              flush=True)
