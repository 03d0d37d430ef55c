"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 timeout 600 .venv/bin/python estimator_interrupted_record.py
What a Segmentation says after a fit stopped at a known step (a loss hook, save_every=2, steps=9), 1 process and the
estimator's own launch of 2 CPU processes (notebook_launcher, gloo): SIGINT or SIGTERM to rank 1, SIGINT to the
launching process (a notebook's interrupt). Per case, in a fresh interpreter: the rank's own line, what fit raised or
returned, repr(model), the checkpoints, and the lines on stderr (torch's log)."""
import subprocess, sys, tempfile, time
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

processes, to, signame, call_at, root = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), Path(sys.argv[5])
dataset = write_synthetic_dataset(root / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
pairs = [(str(c.images[0]), str(c.label)) for c in load_msd(dataset).training]
original, calls = DiceCELoss.forward, {"n": 0}

def forward(self, input, target):  # the training step's loss: signal at the call_at-th (step call_at + 1)
    loss = original(self, input, target)
    if input.device.type != "meta" and torch.is_grad_enabled():
        if calls["n"] == call_at and os.environ.get("RANK", "1") == "1":
            os.kill(os.getppid() if to == "launcher" else os.getpid(), getattr(signal, signame))
        calls["n"] += 1
    return loss

DiceCELoss.forward = forward
estimator.gpus_to_launch = lambda: processes
data = Dataset.from_files(pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(root / "cache"), num_workers=0,
                          spacing=(2.0, 2.0, 2.0)).batch(2)
model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                     output_dir=str(root / "run"), multi_gpu=processes > 1, val_every=0, save_every=2,
                     trackers="none", progress_bar=False)
try:
    model.fit(data, steps=9)
    print("fit returned: step", model.summary["step"], "preempted", model.summary.get("preempted"))
except BaseException as error:
    print("fit raised", type(error).__name__)
print("repr:", repr(model).split(": ", 1)[1].replace(str(root), "<tmp>"))
saved = root / "run" / "checkpoints"
print("checkpoints:", sorted(p.name for p in saved.iterdir()) if saved.is_dir() else "none (no folder)")
'''

cases = [(1, "rank", "SIGINT", 3), (2, "rank", "SIGINT", 3), (2, "launcher", "SIGINT", 3),
         (1, "rank", "SIGTERM", 3), (2, "rank", "SIGTERM", 3), (2, "rank", "SIGINT", 1)]
import accelerated_seg
print(f"# package {Path(accelerated_seg.__file__).parent}; signal at the training step's loss of call N (step N+1)")
for processes, to, signame, call_at in cases:
    root = Path(tempfile.mkdtemp())
    started = time.time()
    done = subprocess.run([sys.executable, "-c", CASE, str(processes), to, signame, str(call_at), str(root)],
                          capture_output=True, text=True, timeout=300)
    said = [line.replace(str(root), "<tmp>") for line in done.stdout.splitlines()
            if line.startswith(("interrupted", "preempted", "fit ", "repr", "checkpoints"))]
    print(f"\n## {processes} process(es), {signame} to the {to} at call {call_at}: status {done.returncode}, "
          f"{time.time() - started:.1f} s")
    print("\n".join(said))
    print(f"stderr: {len(done.stderr.splitlines())} line(s)", *done.stderr.splitlines()[:3], sep="\n  ")
