"""Run as (from a folder outside the repository, so that PYTHONPATH picks the package):
PYTHONPATH=<package> OMP_NUM_THREADS=1 timeout 900 <repo>/.venv/bin/python launch_leftovers_and_resume_setup.py [0,3 [W]]
W: every case's loader workers (num_workers), 0 where not given (the review's launch_leftovers_with_workers.txt: 2).
The hundred-and-eleventh session's variant of estimator_stopped_step_variations.py: how each way a launched fit ends
leaves the case's own TMPDIR (ended well, SIGINT to a process or to the launcher, SIGTERM, an error in a process),
and the step said of a resume stopped in its setup once it has written run_info.json (accelerate's init_trackers,
"again trackers"), 2 processes and 1."""
import os, subprocess, sys, tempfile, time
from pathlib import Path

CASE = r'''
import os, signal, sys, time
from pathlib import Path
os.environ["ACCELERATE_USE_CPU"] = "true"
os.environ.pop("MASTER_PORT", None)
import torch
from monai.losses import DiceCELoss
import accelerated_seg.estimator as estimator
import accelerated_seg.train as train_module
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation

processes, to, signame, call_at, root, workers, again = (int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4],
                                                         Path(sys.argv[5]), int(sys.argv[6]), sys.argv[7])
dataset = write_synthetic_dataset(root / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
pairs = [(str(c.images[0]), str(c.label)) for c in load_msd(dataset).training]
original, calls = DiceCELoss.forward, {"n": 0, "at": call_at}

def fire():
    if to == "none":
        return
    rank = os.environ.get("RANK", "1")
    if to == "rank0" and rank == "0" or to in ("rank", "launcher") and rank == "1":
        if signame == "error":
            raise RuntimeError("an error in a launched process")
        os.kill(os.getppid() if to == "launcher" else os.getpid(), getattr(signal, signame))

def forward(self, input, target):
    loss = original(self, input, target)
    if input.device.type != "meta" and torch.is_grad_enabled():
        if str(calls["n"]) == calls["at"]:
            fire()
        calls["n"] += 1
    return loss

original_export = train_module.export_model
def export_model(*args, **kwargs):
    if calls["at"] == "export":
        fire()
        time.sleep(2)
    return original_export(*args, **kwargs)

original_resume, original_build = train_module.resume_the_loop, train_module.build_optimizer
def resume_the_loop(*args, **kwargs):
    if calls["at"] == "setup":
        fire()
        time.sleep(2)
    return original_resume(*args, **kwargs)
def build_optimizer(*args, **kwargs):
    if calls["at"] == "setup" and not os.environ.get("R44_RESUMING"):
        fire()
        time.sleep(2)
    return original_build(*args, **kwargs)
train_module.resume_the_loop, train_module.build_optimizer = resume_the_loop, build_optimizer
from accelerate import Accelerator
original_trackers = Accelerator.init_trackers
def init_trackers(self, *args, **kwargs):  # after the run's run_info.json is written, before its first step
    if calls["at"] == "trackers":
        fire()
        time.sleep(2)
    return original_trackers(self, *args, **kwargs)
Accelerator.init_trackers = init_trackers
DiceCELoss.forward = forward
train_module.export_model = export_model
estimator.gpus_to_launch = lambda: processes
data = Dataset.from_files(pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(root / "cache"),
                          num_workers=workers, spacing=(2.0, 2.0, 2.0)).batch(2)
model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                     output_dir=str(root / "run"), multi_gpu=processes > 1, val_every=0, save_every=2,
                     trackers="none", progress_bar=False)
def one_fit(**kw):
    try:
        model.fit(data, steps=9, **kw)
        print("fit returned: step", model.summary["step"], "preempted", model.summary.get("preempted"))
    except BaseException as error:
        print("fit raised", type(error).__name__, "step", getattr(error, "step", "-"))
    print("repr:", repr(model).split(": ", 1)[1].replace(str(root), "<tmp>"))
    saved = root / "run" / "checkpoints"
    print("checkpoints:", sorted(p.name for p in saved.iterdir()) if saved.is_dir() else "none (no folder)")
one_fit()
if again != "-":
    calls["n"], calls["at"] = 0, again
    os.environ["R44_RESUMING"] = "1"
    one_fit(resume="latest")
'''

cases = [(2, "none", "-", "-", 0, "-"), (2, "rank", "SIGINT", "3", 0, "-"), (2, "launcher", "SIGINT", "3", 0, "-"),
         (2, "launcher", "SIGTERM", "3", 0, "-"), (2, "rank", "error", "3", 0, "-"),
         (2, "rank0", "SIGINT", "3", 0, "trackers"), (2, "launcher", "SIGINT", "3", 0, "trackers"),
         (1, "rank", "SIGINT", "3", 0, "trackers"),
         (1, "rank", "SIGINT", "3", 0, "-"), (2, "rank", "SIGTERM", "3", 0, "-")]  # 8, 9: the review's
cases = [c for i, c in enumerate(cases) if not sys.argv[1:] or str(i) in sys.argv[1].split(",")]
import accelerated_seg
print(f"# package {Path(accelerated_seg.__file__).parent}; signal at the training step's loss of call N (step N+1)")
for processes, to, signame, call_at, workers, again in cases:
    workers = int(sys.argv[2]) if sys.argv[2:] else workers
    root = Path(tempfile.mkdtemp(prefix="h57probe_"))
    (root / "tmp").mkdir()
    started = time.time()
    env = dict(os.environ, TMPDIR=str(root / "tmp"))
    done = subprocess.run([sys.executable, "-c", CASE, str(processes), to, signame, call_at, str(root), str(workers),
                           again], capture_output=True, text=True, timeout=300, env=env)
    said = [line.replace(str(root), "<tmp>") for line in done.stdout.splitlines()
            if line.startswith(("interrupted", "preempted", "fit ", "repr", "checkpoints"))]
    print(f"\n## {processes} process(es), {signame} to the {to} at call {call_at}, workers {workers}, again {again}: "
          f"status {done.returncode}, {time.time() - started:.1f} s")
    print("\n".join(said))
    print("left in TMPDIR:", sorted(str(p.relative_to(root / "tmp")) for p in (root / "tmp").rglob("*"))[:10])
    print(f"stderr: {len(done.stderr.splitlines())} line(s)", *done.stderr.splitlines()[-3:], sep="\n  ")
