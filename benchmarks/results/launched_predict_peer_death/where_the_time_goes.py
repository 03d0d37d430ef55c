"""The hundred-and-fourteenth session: two_nodes.py's run (two launches of one process, process 1 killed at the last
wait; with KILLED_RANK=0 process 0 instead) with timed_killed_at_the_last_wait_predict.py, which notes when each
step of the other node's stop happens; printed in seconds after the kill, then each node's end as its launcher returns.

    PYTHONPATH=<checkout> [KILLED_RANK=0] python where_the_time_goes.py <checkout>/tests [launches]
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
worker = Path(__file__).with_name("timed_killed_at_the_last_wait_predict.py")
for launch_number in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1):
    out, killed, events = top / "out", top / "killed", top / "events"
    shutil.rmtree(out, ignore_errors=True)
    killed.unlink(missing_ok=True)
    events.unlink(missing_ok=True)
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_AT": str(killed),
           "EVENTS": str(events)}
    port = str(_free_port())
    started = time.time()
    procs = [subprocess.Popen(
        [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
         "2", "--machine_rank", str(node), "--main_process_ip", "127.0.0.1", "--main_process_port", port,
         "--mixed_precision", "no", "--dynamo_backend", "no", str(worker), str(TESTS),
         "predict", "--model", str(top / "model"), *map(str, scans), "--output", str(out), "--split", "cases"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for node in (0, 1)]
    ended = [None, None]
    while None in ended:
        for node, proc in enumerate(procs):
            if ended[node] is None and proc.poll() is not None:
                ended[node] = time.time()
        time.sleep(0.01)
    kill = float(killed.read_text())
    survivor = 1 if os.environ.get("KILLED_RANK") == "0" else 0
    stderr = procs[survivor].stderr.read()
    if os.environ.get("SURVIVOR_STDERR"):  # the whole of it, to read
        Path(os.environ["SURVIVOR_STDERR"]).write_text(stderr)
    said = [line for line in stderr.splitlines() if line.startswith(("predict ", "error"))]
    # a traceback of ours before the launcher's own report (torch's ChildFailedError's, from runpy)
    ours = stderr.split('Traceback (most recent call last):\n  File "<frozen runpy>"')[0]
    print(f"launch {launch_number}: {kill - started:.1f} s from the start to the kill; node {survivor} (survivor) "
          f"status {procs[survivor].returncode}, its process {re.findall(r'exitcode  : (-?[0-9]+)', stderr)}; "
          f"a traceback before the launcher's report: {'Traceback' in ours}; in the output folder: "
          f"{sorted(path.name for path in out.iterdir()) if out.is_dir() else None}; said: {said}")
    for line in events.read_text().splitlines():
        at, rank, what = line.split(" ", 2)
        print(f"  {float(at) - kill:+7.2f} s  process {rank}: {what}")
    for node in sorted((0, 1), key=lambda node: ended[node]):
        print(f"  {ended[node] - kill:+7.2f} s  node {node}'s launcher returned, status {procs[node].returncode}")
    print(f"  whole run {max(ended) - started:.1f} s", flush=True)
