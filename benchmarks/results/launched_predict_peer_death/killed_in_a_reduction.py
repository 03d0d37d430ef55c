"""The hundred-and-eleventh session: killed_in_a_reduction_worker.py launched on 2 CPU processes (--split windows, two
small scans), the main process's SIGTERM held back 3 s after process 1's SIGKILL. Per launch: status, each process's
exit code in the launcher's table, seconds from the kill to the launch's end, gloo's error or an "error:" said, the
files left in the output folder (a hidden temporary would be a map half-written).

    PYTHONPATH=<checkout> .venv/bin/python killed_in_a_reduction.py <checkout>/tests [launches]
"""
import os, re, shutil, subprocess, sys, tempfile, time
from pathlib import Path

TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
import torch
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec
from test_distributed import _free_port
from test_inference_distributed import PATCH, SIZES_MM, TINY_UNET

top = Path(tempfile.mkdtemp())
spec = model_spec("unet", 1, 3, PATCH, TINY_UNET)
torch.manual_seed(0)
write_export({k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}, spec.to_dict(),
             {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1, "num_classes": 3,
              "patch_size": PATCH, "spacing": [2.0, 2.0, 2.0]}, top / "model")
write_synthetic_dataset(top / "small", num_cases=2, num_validation=0, seed=1, size_mm=SIZES_MM["medium"],
                        spacing_mm=2.0)
scans = sorted((top / "small" / "imagesTr").glob("*.nii.gz"))
worker = Path(__file__).with_name("killed_in_a_reduction_worker.py")
for launch_number in range(int(sys.argv[2]) if len(sys.argv) > 2 else 3):
    out, killed = top / "out", top / "killed"
    shutil.rmtree(out, ignore_errors=True)
    killed.unlink(missing_ok=True)
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_AT": str(killed),
           "SIGTERM_LATE_S": "3"}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
           "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(_free_port()),
           str(worker), str(TESTS), "predict", "--model", str(top / "model"), *map(str, scans), "--output", str(out),
           "--split", "windows", "--sw-batch-size", "1"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    ended = time.time()
    codes = dict(re.findall(r"rank      : (\d) \(local_rank: \d\)\n  exitcode  : (-?\d+)", proc.stderr))
    files = sorted(p.name for p in out.iterdir()) if out.exists() else []
    print(f"launch {launch_number}: status {proc.returncode}; exit codes by rank {codes}; "
          f"{ended - float(killed.read_text()):.2f} s after the kill; gloo's error said: {'by peer' in proc.stderr}; "
          f"'error:' said: {'error:' in proc.stderr}; files: {files}")
