"""The CI failure's scenario, run again and again: tests/test_inference_distributed.py::
test_ctrl_c_by_windows_stops_every_process_with_one_line_and_status_130 (a 2-process CPU launch of predict --split
windows, process 1 asleep in its share of the second case, the main process waiting for it in that case's
reduction, SIGINT to the launch's process group as a terminal's Ctrl-C), with what probe_predict.py's PROBE_MODE
changes, the SIGINT sent DELAYS seconds after process 1 starts to sleep (each in turn), BUSY busy loops beside it.
For each run: the launch's status, seconds from the SIGINT to its end, the lines said, whether the test's asserts hold,
and, where the agent SIGKILLed the processes, each one's main thread's stack as it dumped them 20 s after process 1
began to sleep (one_rank_bug_predict.py's ONE_RANK_STACKS_AFTER_S).

    cd /tmp && PYTHONPATH=<package> /work/main/.venv/bin/python \
        <worktree>/benchmarks/results/ctrl_c_by_windows_hang_2026-12-07/launched.py <worktree>/tests \
        <mode>[,<mode>...] <runs> [<delays, comma-separated>] [<busy loops>]
"""
import os
import re
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

DELAYS = [float(d) for d in (sys.argv[4] if len(sys.argv) > 4 else "0").split(",")]
BUSY = int(sys.argv[5]) if len(sys.argv) > 5 else 0

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

busy = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(BUSY)]
counts: dict = {}
try:
    for mode in sys.argv[2].split(","):
        for run in range(int(sys.argv[3])):
            delay = DELAYS[run % len(DELAYS)]
            out, sleeping = top / "out", top / "sleeping"
            shutil.rmtree(out, ignore_errors=True)
            sleeping.unlink(missing_ok=True)
            env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "ONE_RANK_ERROR": "slow",
                   "ONE_RANK_STAGE": "case_prediction", "ONE_RANK_STARTED": str(sleeping), "PROBE_MODE": mode,
                   "PROBE_TESTS": str(TESTS), "ONE_RANK_STACKS_AFTER_S": "20",
                   **({"ONE_RANK_SIGINT_ELSEWHERE": "1"} if mode == "elsewhere" else {})}
            cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
                   "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port",
                   str(_free_port()), str(Path(__file__).with_name("probe_predict.py")), "predict", "--model",
                   str(top / "model"), *map(str, scans), "--output", str(out), "--split", "windows"]
            with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  start_new_session=True) as launch:
                deadline = time.monotonic() + 120
                while not sleeping.exists() and launch.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.1)
                time.sleep(delay)
                os.killpg(launch.pid, signal.SIGINT)
                signalled = time.monotonic()
                try:
                    stdout, stderr = launch.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(launch.pid, signal.SIGKILL)
                    stdout, stderr = launch.communicate()
                ended_after = time.monotonic() - signalled
            said = stop_lines(stderr)
            passed = (launch.returncode == 130 and len(said) == 1 and said[0].startswith(
                "predict interrupted in process 1, case small_1 (1 of 2") and "Traceback" not in stderr)
            killed = "forcefully exiting via 9" in stderr
            key = (mode, delay)
            counts.setdefault(key, [0, 0, 0])
            counts[key][0] += 1
            counts[key][1] += killed
            counts[key][2] += not passed
            said = [line.replace(str(top), "<tmp>") for line in said]
            print(f"{mode} (SIGINT {delay} s after process 1 sleeps) run {run + 1}: status {launch.returncode}, ended "
                  f"{ended_after:.1f} s after the SIGINT, {'the agent SIGKILLed, ' if killed else ''}lines {said}, "
                  f"test {'passes' if passed else 'FAILS'}", flush=True)
            if killed or not passed:
                for dump in re.findall(r"Timeout \(.*?(?=\nTimeout \(|\nW1|\Z)", stderr, re.S):
                    # each process's main thread's stack (faulthandler's dump lists the threads newest first: the
                    # main thread last), where it waits, its first 14 frames
                    main_thread = dump.rstrip().split("\n\n")[-1].splitlines()[:15]
                    print("    " + "\n    ".join(main_thread).replace(str(top), "<tmp>"), flush=True)
finally:
    for loop in busy:
        loop.kill()
    shutil.rmtree(top, ignore_errors=True)
for (mode, delay), (runs, killed, failed) in counts.items():
    print(f"# {mode}, SIGINT {delay} s after: {runs} runs, {killed} SIGKILLed by the agent (hung), {failed} failing the "
          f"test's asserts", flush=True)
