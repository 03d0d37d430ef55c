"""Finding (1) of the hundred-and-tenth session: in a 2-process CPU launch of accelerated-seg predict --split cases of
three equal scans (the main process 2 cases, process 1 one), how long the main process outlives process 1. Process 1
has fewer cases but waits in the last wait for every process (a barrier) for the main process; past it, it ends
(status 0) while the main process says its last line and ends its process group: the window in which a job's SIGTERM
found process 1 gone and ended the main process at once, saying nothing (before the session's change). Each child's
end is seen by polling its /proc/<pid>/stat every 2 ms (a zombie: ended, before the launcher's agent reaps it).

    PYTHONPATH=<package> .venv/bin/python window_after_process_1_ends.py <checkout's tests/> [launches]
"""
import os, shutil, subprocess, sys, tempfile, time
from pathlib import Path

TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
import torch
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec
from test_distributed import _free_port
from test_inference_distributed import PATCH, SIZES_MM, TINY_UNET, launched_by_rank



def state(pid):
    """The process's state (Z: ended, not yet reaped), None where gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return None


top = Path(tempfile.mkdtemp())
spec = model_spec("unet", 1, 3, PATCH, TINY_UNET)
torch.manual_seed(0)
write_export({k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}, spec.to_dict(),
             {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1, "num_classes": 3,
              "patch_size": PATCH, "spacing": [2.0, 2.0, 2.0]}, top / "model")
write_synthetic_dataset(top / "small", num_cases=3, num_validation=0, seed=1, size_mm=SIZES_MM["small"], spacing_mm=2.0)
scans = sorted((top / "small" / "imagesTr").glob("*.nii.gz"))
for launch_number in range(int(sys.argv[2]) if len(sys.argv) > 2 else 3):
    out = top / "out"
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
           "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(_free_port()),
           "-m", "accelerated_seg.cli", "predict", "--model", str(top / "model"), *map(str, scans),
           "--output", str(out), "--split", "cases"]
    with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as launch:
        children = Path(f"/proc/{launch.pid}/task/{launch.pid}/children")
        ranks, ended = {}, {}
        while launch.poll() is None:
            try:
                living = set(map(int, children.read_text().split()))
            except OSError:
                break
            if len(ranks) < 2 and len(living) == 2:
                try:
                    ranks = {pid: rank for rank, pid in launched_by_rank(launch.pid).items()}
                except OSError:
                    pass
            for pid, rank in ranks.items():
                if rank not in ended and (pid not in living or state(pid) in ("Z", "X", None)):
                    ended[rank] = time.monotonic()
            time.sleep(0.002)
        stdout, stderr = launch.communicate()
    print(f"launch {launch_number}: status {launch.returncode}; process 1 ended "
          f"{(ended.get(0, float('nan')) - ended.get(1, float('nan'))) * 1000:.0f} ms before the main process; "
          f"lines: {[line for line in stdout.splitlines() if 'wrote' in line or 'segmented' in line]}", flush=True)
