"""The hundred-and-eleventh session: a 2-process CPU launch of accelerated-seg predict --split cases of two small
scans, process 1 killing itself (SIGKILL) as it comes to the last wait for every process
(tests/killed_at_the_last_wait_predict.py; with KILLED_PAST_IT=1 in the environment, just past it). With
SIGTERM_LATE_S set, the main process's SIGTERM (torch's agent's, after the death) is held back that long, so gloo's
error reaches it first every time; without, the launch's own race. Per launch: the launch's status, each process's
exit code in the launcher's table, seconds from the kill to the launch's end, whether gloo's error or an "error:" line
was said, the files in the output folder and the lines said.

    PYTHONPATH=<checkout> .venv/bin/python killed_in_the_last_wait.py <checkout>/tests [launches] [SIGTERM_LATE_S]

The tests/ folder must be the checkout's whose package is measured, the worker (tests/killed_at_the_last_wait_predict.py)
copied into it for a checkout from before it: the launched processes took the package beside the worker's folder, not
PYTHONPATH's, in this session's runs (why, found by its review: the import of test_distributed below imports
tests/conftest.py, which puts its checkout first on os.environ["PYTHONPATH"], inherited by the launch). Before: git
archive f9593eb3 accelerated_seg tests into /tmp/h59_base.
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
write_synthetic_dataset(top / "small", num_cases=2, num_validation=0, seed=1, size_mm=SIZES_MM["small"], spacing_mm=2.0)
scans = sorted((top / "small" / "imagesTr").glob("*.nii.gz"))
late = {"SIGTERM_LATE_S": sys.argv[3]} if len(sys.argv) > 3 else {}
print("package:", __import__("accelerated_seg").__file__, "| SIGTERM held back:", late or "no")
for launch_number in range(int(sys.argv[2]) if len(sys.argv) > 2 else 3):
    out, killed = top / "out", top / "killed"
    shutil.rmtree(out, ignore_errors=True)
    killed.unlink(missing_ok=True)
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_AT": str(killed), **late}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
           "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(_free_port()),
           str(TESTS / "killed_at_the_last_wait_predict.py"), "predict", "--model", str(top / "model"),
           *map(str, scans), "--output", str(out), "--split", "cases"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    ended = time.time()
    main_code = re.search(r"rank      : 0 \(local_rank: 0\)\n  exitcode  : (-?\d+)", proc.stderr)
    whole = sorted(p.name for p in out.iterdir()) if out.exists() else []
    said = [line for line in proc.stderr.splitlines() if line.startswith(("predict ", "error"))]
    process_1 = re.search(r"rank      : 1 \(local_rank: 1\)\n  exitcode  : (-?\d+)", proc.stderr)
    print(f"launch {launch_number}: status {proc.returncode}; main process {main_code and main_code.group(1)}; "
          f"process 1 {process_1 and process_1.group(1)}; {ended - float(killed.read_text()):.2f} s after the kill; "
          f"gloo's error said: {'by peer' in proc.stderr}; 'error:' said: {'error:' in proc.stderr}; files: {whole}; "
          f"said: {said}")
