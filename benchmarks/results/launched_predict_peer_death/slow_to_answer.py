"""The hundred-and-fourteenth session's review: two launches of one process on this machine (--num_machines 2), every
process alive, the main process meeting gloo's "Connection reset by peer" at its last wait and process 1 slow to answer
(slow_to_answer_predict.py: SLOW stopped|blip). What node 0 says, when, and whether process 1's map is whole.

    PYTHONPATH=<checkout> python slow_to_answer.py <checkout>/tests stopped|blip [SLOW_S] [launches]
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
worker = Path(__file__).resolve().parent / "slow_to_answer_predict.py"
for launch_number in range(int(sys.argv[4]) if len(sys.argv) > 4 else 2):
    out, probe = top / "out", top / f"probe{launch_number}"
    shutil.rmtree(out, ignore_errors=True)
    probe.mkdir()
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "PROBE_DIR": str(probe),
           "SLOW": sys.argv[2], "SLOW_S": sys.argv[3] if len(sys.argv) > 3 else "2"}
    port = str(_free_port())
    procs = [subprocess.Popen(
        [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
         "2", "--machine_rank", str(node), "--main_process_ip", "127.0.0.1", "--main_process_port", port,
         "--mixed_precision", "no", "--dynamo_backend", "no", str(worker),
         "predict", "--model", str(top / "model"), *map(str, scans), "--output", str(out), "--split", "cases"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for node in (0, 1)]
    node0 = procs[0].communicate(timeout=120)
    ended = time.time()
    node1 = procs[1].communicate(timeout=120)
    said0 = [line[:130] for line in node0[1].splitlines() if line.startswith(("predict ", "error"))]
    said1 = [line[:130] for line in node1[1].splitlines() if line.startswith(("predict ", "error"))]
    print(f"launch {launch_number} ({sys.argv[2]}): node 0 status {procs[0].returncode}, node 1 status "
          f"{procs[1].returncode}; node 0 ended {ended - float((probe / 'stop_at').read_text()):.2f} s after the stop; "
          f"maps {sorted(p.name for p in out.iterdir()) if out.exists() else []}; node 0 said: {said0}; node 1 said: "
          f"{said1}", flush=True)
