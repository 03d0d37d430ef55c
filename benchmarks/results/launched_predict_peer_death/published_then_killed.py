"""The hundred-and-eleventh session's review of peer_death: a 2-process CPU launch of predict of two small scans
(tests/one_rank_bug_predict.py): process 1 meets a bug (ValueError) in the second case's stage ONE_RANK_STAGE (default
prepare_case; ``failures``: as the gather of the cases' failures returns, the main process then in the last wait),
publishes it, and is SIGKILLed ONE_RANK_KILLED_AFTER seconds after its watcher sees it ("-": not killed; it ends once
it has read the main process's line). Per launch: status, exit codes by rank, seconds from the raise to the launch's
end, whether gloo's error was said, the lines said.

    PYTHONPATH=<checkout> python published_then_killed.py <checkout>/tests <launches> <killed_after> [options...]

The launched processes import the package of the checkout holding <checkout>/tests, whatever PYTHONPATH says: the
import of test_distributed imports tests/conftest.py, which puts its checkout first on os.environ["PYTHONPATH"],
and the launch inherits it. Before: git archive ce0d1b1a accelerated_seg tests into /tmp/r50_base.
"""
import os, re, shutil, subprocess, sys, tempfile, time
from pathlib import Path

TESTS = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(TESTS))
import torch
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec
from test_distributed import _free_port  # imports conftest: PYTHONPATH begins with TESTS' checkout from here on
from test_inference_distributed import PATCH, SIZES_MM, TINY_UNET

top = Path(tempfile.mkdtemp())
spec = model_spec("unet", 1, 3, PATCH, TINY_UNET)
torch.manual_seed(0)
write_export({k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}, spec.to_dict(),
             {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1, "num_classes": 3,
              "patch_size": PATCH, "spacing": [2.0, 2.0, 2.0]}, top / "model")
write_synthetic_dataset(top / "small", num_cases=2, num_validation=0, seed=1, size_mm=SIZES_MM["small"], spacing_mm=2.0)
(top / "scans").mkdir()
for i, path in enumerate(sorted((top / "small" / "imagesTr").glob("*.nii.gz"))):
    shutil.copy(path, top / "scans" / f"small_{i}.nii.gz")
print("package in the launched processes:", os.environ["PYTHONPATH"].split(os.pathsep)[0])
for launch_number in range(int(sys.argv[2])):
    out, raised = top / "out", top / "raised"
    shutil.rmtree(out, ignore_errors=True)
    raised.unlink(missing_ok=True)
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "ONE_RANK_STARTED": str(raised)}
    if sys.argv[3] != "-":
        env["ONE_RANK_KILLED_AFTER"] = sys.argv[3]
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
           "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(_free_port()),
           str(TESTS / "one_rank_bug_predict.py"), "predict", "--model", str(top / "model"),
           str(top / "scans" / "small_0.nii.gz"), str(top / "scans" / "small_1.nii.gz"), "--output", str(out),
           *sys.argv[4:]]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    ended = time.time()
    codes = dict(re.findall(r"rank      : (\d) \(local_rank: \d\)\n  exitcode  : (-?\d+)", proc.stderr))
    said = [line[:90] for line in proc.stderr.splitlines() if line.startswith(("predict ", "error"))]
    print(f"launch {launch_number}: status {proc.returncode}; exit codes {codes}; "
          f"{ended - float(raised.read_text()):.2f} s after the raise; by peer: {'by peer' in proc.stderr}; "
          f"said: {said}", flush=True)
