"""The hundred-and-eleventh session's review: two 'nodes' on one machine, two launches of 1 process each (--num_machines
2, 127.0.0.1), process 1 (node 1) killing itself at the last wait (tests/killed_at_the_last_wait_predict.py, no SIGTERM
held back). Node 0's main process sees no process beside it end (peer_death's look finds none): gloo's error should stop
every process as before, said as node 0's error, status 1.

    PYTHONPATH=<checkout> python two_nodes.py <checkout>/tests [launches]
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
write_synthetic_dataset(top / "small", num_cases=2, num_validation=0, seed=1, size_mm=SIZES_MM["small"],
                        spacing_mm=2.0)
scans = sorted((top / "small" / "imagesTr").glob("*.nii.gz"))
for launch_number in range(int(sys.argv[2]) if len(sys.argv) > 2 else 2):
    out, killed = top / "out", top / "killed"
    shutil.rmtree(out, ignore_errors=True)
    killed.unlink(missing_ok=True)
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_AT": str(killed)}
    port = str(_free_port())
    procs = [subprocess.Popen(
        [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
         "2", "--machine_rank", str(node), "--main_process_ip", "127.0.0.1", "--main_process_port", port,
         "--mixed_precision", "no", "--dynamo_backend", "no", str(TESTS / "killed_at_the_last_wait_predict.py"),
         "predict", "--model", str(top / "model"), *map(str, scans), "--output", str(out), "--split", "cases"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for node in (0, 1)]
    node0 = procs[0].communicate(timeout=120)
    ended = time.time()
    procs[1].communicate(timeout=120)
    said = [line[:110] for line in node0[1].splitlines() if line.startswith(("predict ", "error"))]
    code = re.findall(r"exitcode  : (-?\d+)", node0[1])
    print(f"launch {launch_number}: node 0 status {procs[0].returncode}, its process {code}; node 1 status "
          f"{procs[1].returncode}; node 0 ended {ended - float(killed.read_text()):.2f} s after the kill; said: {said}",
          flush=True)
