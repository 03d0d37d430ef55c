"""Finding (3) of the hundred-and-tenth session: a second SIGTERM (or SIGINT) to a 2-process CPU launch of
accelerated-seg predict --split windows, SECOND_AFTER_S (0.3) s after the first, both to the launch's process group
(a job's stop signalled twice; a terminal's Ctrl-C pressed twice). Process 1 sleeps in its share of the second case
(tests/one_rank_bug_predict.py, ONE_RANK_ERROR=slow), as in launched_predict_sigterm_2026-12-05/. For each: the
launch's status, when the launcher's own handler of the signal was last seen (/proc/<pid>/status SigCgt: after it,
the default is back, Python's finalization having put it back), the lines said, what is left in the output folder,
and the launcher's stderr from torch's agent on. Then SIGTERM once, for the launch's status and the same timings.

    PYTHONPATH=<package> .venv/bin/python second_signal_to_a_launched_predict.py <checkout's tests/> [SIGTERM SIGINT]
"""
import os, shutil, signal, subprocess, sys, tempfile, time
from pathlib import Path

TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
import torch
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec
from test_distributed import _free_port
from test_inference_distributed import PATCH, SIZES_MM, TINY_UNET

SECOND_AFTER_S = float(os.environ.get("SECOND_AFTER_S", "0.3"))
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



def handles(pid: int, sig: int) -> bool:
    """Whether the process has a handler of its own for ``sig`` (/proc/<pid>/status's SigCgt), not the default."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False


for name, twice in [(name, True) for name in sys.argv[2:] or ["SIGTERM", "SIGINT"]] + [("SIGTERM", False)]:
    sig = getattr(signal, name)
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
        signalled = time.monotonic()
        os.killpg(launch.pid, sig)
        # the launcher's handler of the signal, looked at every 2 ms: when it is gone (the default back), still alive
        handled_until = signalled
        while time.monotonic() < signalled + SECOND_AFTER_S and launch.poll() is None:
            if handles(launch.pid, sig):
                handled_until = time.monotonic()
            time.sleep(0.002)
        second = launch.poll() is None and twice
        if second:
            os.killpg(launch.pid, sig)
        try:
            stdout, stderr = launch.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(launch.pid, signal.SIGKILL)
            stdout, stderr = launch.communicate()
        ended = time.monotonic() - signalled
    said = [line for line in (stdout + stderr).splitlines() if line.startswith(("predict", "error"))]
    how = ("second sent" if second else "launch ended before the second") if twice else "once"
    print(f"{name} {'twice' if twice else 'once'} ({how}): status {launch.returncode} after {ended:.2f} s; the "
          f"launcher's own handler of it gone {handled_until - signalled:.3f} s after the first; said {said}; left "
          f"{sorted(p.name for p in out.iterdir())}")
    print("  launcher's stderr, torch's lines on:\n    " + "\n    ".join(
        stderr[stderr.find("W12"):].splitlines()[-40:]), flush=True)
