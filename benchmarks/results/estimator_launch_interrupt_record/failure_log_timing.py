"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 python failure_log_timing.py raise exit_deaf exit_deaf_ctrlc sigkill
A 2-process estimator fit (notebook_launcher, gloo) whose rank 1 fails in its step 4 (a loss hook): when each line of
torch's log reaches stderr, in seconds after the failure, and what fit raised."""
import subprocess, sys, tempfile, threading, time
from pathlib import Path

CASE = r'''
import os, signal, sys, time
from pathlib import Path
os.environ["ACCELERATE_USE_CPU"] = "true"
os.environ.pop("MASTER_PORT", None)
import torch
from monai.losses import DiceCELoss
import accelerated_seg.estimator as estimator
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation

how, root = sys.argv[1], Path(sys.argv[2])
dataset = write_synthetic_dataset(root / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
pairs = [(str(c.images[0]), str(c.label)) for c in load_msd(dataset).training]
original, calls = DiceCELoss.forward, {"n": 0}

def forward(self, input, target):
    loss = original(self, input, target)
    if input.device.type != "meta" and torch.is_grad_enabled():
        if calls["n"] == 3:
            rank = os.environ.get("RANK")
            if rank == "1":
                (root / "event").write_text(str(time.time()))
                if how.startswith("raise"):
                    raise RuntimeError("probe: rank 1 ran out of memory")
                if how.startswith("sigkill"):
                    os.kill(os.getpid(), signal.SIGKILL)
                if how.startswith("exit"):
                    os._exit(1)
            if rank == "0" and "deaf" in how:  # stuck where no Python runs (a device hang): SIGTERM ignored
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                time.sleep(120)
        calls["n"] += 1
    return loss

DiceCELoss.forward = forward
estimator.gpus_to_launch = lambda: 2
data = Dataset.from_files(pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(root / "cache"), num_workers=0,
                          spacing=(2.0, 2.0, 2.0)).batch(2)
model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                     output_dir=str(root / "run"), multi_gpu=True, val_every=0, save_every=2,
                     trackers="none", progress_bar=False)
try:
    model.fit(data, steps=9)
    print("fit returned")
except BaseException as error:
    print("fit raised", type(error).__name__, str(error)[:200].replace(chr(10), " | "), flush=True)
'''

for how in sys.argv[1:]:
    root = Path(tempfile.mkdtemp())
    started = time.time()
    proc = subprocess.Popen([sys.executable, "-c", CASE, how, str(root)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    lines = []

    def read(stream, tag):
        for line in stream:
            lines.append((time.time(), tag, line.rstrip()))

    readers = [threading.Thread(target=read, args=(proc.stdout, "out")),
               threading.Thread(target=read, args=(proc.stderr, "err"))]
    for r in readers:
        r.start()
    if "ctrlc" in how:  # the user's Ctrl-C, 8 s after the failure, while the launch waits for the deaf rank
        while not (root / "event").exists():
            time.sleep(0.05)
        time.sleep(8)
        proc.send_signal(2)
    proc.wait(timeout=300)
    for r in readers:
        r.join()
    event = float((root / "event").read_text()) if (root / "event").exists() else started
    print(f"\n## {how}: status {proc.returncode}, {time.time() - event:.1f} s after the failure")
    for at, tag, line in lines:
        if tag == "out" and not line.startswith(("fit raised", "fit returned", "error", "interrupted")):
            continue
        if tag == "err" and not any(k in line for k in ("failed (exitcode", "Terminating", "Closing", "death signal",
                                                         "Unable to shutdown", "ChildFailedError", "RuntimeError",
                                                         "probe:", "Traceback")):
            continue
        print(f"  {at - event:+6.1f} s {tag}: {line[:150]}")
    print(f"  ({sum(t == 'err' for _, t, _ in lines)} stderr lines in all)")
