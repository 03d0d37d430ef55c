"""Run as (from a folder outside the repository, so that PYTHONPATH picks the package):
PYTHONPATH=<package> OMP_NUM_THREADS=1 timeout 1500 <repo>/.venv/bin/python launch_temp_folders.py N [case,...]
The multiprocessing temporary folders (pymp-*) that a launch leaves in its own TMPDIR, N stops of each case:
`accelerate launch --multi_gpu --num_processes 2 -m accelerated_seg train` with --data.num_workers=2 (ended well,
SIGINT to the launcher's process group as a terminal's Ctrl-C sends it, SIGINT to rank 1 alone) once its checkpoint
step_2 is whole; the same of `... predict` (which has no loader workers) once its first map is written, 24 cases
of 96x96x72; and the estimator's own launch, `Segmentation(..., multi_gpu=True)` with num_workers=2, SIGINT from
rank 1 in step 4 to itself or to the launching process. Prints each stop's status, when the signal went, whether the
interrupt was said, and the pymp-* folders left (their entries)."""
import os, signal, socket, subprocess, sys, tempfile, time
from pathlib import Path



def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_pid(launcher: int, rank: str):
    """The pid of the launch's process with RANK=rank (its environment says so; torch's agent, in the launcher's
    process, starts each in a session of its own), None if none yet."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(fields[1]) == launcher and f"RANK={rank}".encode() in environ and b"LOCAL_RANK=" + rank.encode() in \
                environ and b"accelerated_seg" in (entry / "cmdline").read_bytes():
            return int(entry.name)
    return None


def cli(command: str, stop: str, root: Path, dataset: Path, model: Path, scans: Path | None = None):
    out = root / "run"
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
              "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
              "--main_process_port", str(free_port()), "-m", "accelerated_seg", command]
    if command == "train":
        launch += [f"--data.dataset={dataset}", f"--data.cache_dir={dataset.parent.parent / 'cache'}",
                   "--data.patch_size=[16,16,16]", "--data.spacing=[2.0,2.0,2.0]", "--data.num_workers=2",
                   "--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}",
                   f"--train.output_dir={out}", f"--train.max_steps={6 if stop == 'none' else 100000}",
                   "--train.batch_size=2", "--train.val_every=0", "--train.save_every=2", "--train.progress_bar=false",
                   "--train.trackers=none"]
    else:
        launch += ["--model", str(model), str(scans), "--output", str(root / "predicted")]
    env = dict(os.environ, ACCELERATE_USE_CPU="true", TMPDIR=str(root / "tmp"))
    process = subprocess.Popen(launch, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    started, sent = time.monotonic(), "-"
    if stop != "none":
        ready = (lambda: (out / "checkpoints" / "step_2").is_dir()) if command == "train" else \
            (lambda: any((root / "predicted").glob("*.nii.gz")))
        while process.poll() is None and not ready():
            time.sleep(0.1)
        target = process.pid if stop == "group" else rank_pid(process.pid, "1")
        if process.poll() is None and target:
            (os.killpg if stop == "group" else os.kill)(target, signal.SIGINT)
            sent = f"{time.monotonic() - started:.1f} s"
    try:
        stdout, stderr = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:  # the probe's own failure (no signal sent): said, and the launch ended
        for group in {process.pid, *(pid for rank in "01" if (pid := rank_pid(process.pid, rank)))}:
            os.killpg(group, signal.SIGKILL)
        stdout, stderr = process.communicate()
        sent = "timed out"
    return process.returncode, sent, stdout + stderr


ESTIMATOR_CASE = r"""
import os, signal, sys
from pathlib import Path
os.environ["ACCELERATE_USE_CPU"] = "true"
os.environ.pop("MASTER_PORT", None)
import torch
from monai.losses import DiceCELoss
import accelerated_seg.estimator as estimator
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.estimator import Dataset, Segmentation

to, dataset, root = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
pairs = [(str(c.images[0]), str(c.label)) for c in load_msd(dataset).training]
original, calls = DiceCELoss.forward, {"n": 0}

def forward(self, input, target):  # SIGINT from rank 1 in step 4's loss: to itself, or to the launching process
    loss = original(self, input, target)
    if input.device.type != "meta" and torch.is_grad_enabled():
        if calls["n"] == 3 and os.environ.get("RANK") == "1":
            os.kill(os.getppid() if to == "launcher" else os.getpid(), signal.SIGINT)
        calls["n"] += 1
    return loss

if __name__ == "__main__":
    DiceCELoss.forward = forward
    estimator.gpus_to_launch = lambda: 2
    data = Dataset.from_files(pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(root / "cache"),
                              num_workers=2, spacing=(2.0, 2.0, 2.0)).batch(2)
    model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                         output_dir=str(root / "run"), multi_gpu=True, val_every=0, save_every=2, trackers="none",
                         progress_bar=False)
    try:
        model.fit(data, steps=100000)
        print("fit returned")
    except KeyboardInterrupt:
        print("fit raised KeyboardInterrupt")
"""


def estimator(stop: str, root: Path, dataset: Path):
    """The estimator's own launch (multi_gpu=True, 2 processes, 2 loader workers each): SIGINT to rank 1, or to
    the launching process (as Jupyter's "interrupt kernel"), in step 4."""
    (root / "case.py").write_text(ESTIMATOR_CASE)
    env = dict(os.environ, TMPDIR=str(root / "tmp"))
    done = subprocess.run([sys.executable, "case.py", stop, str(dataset), str(root)], capture_output=True, text=True,
                          timeout=300, env=env, cwd=root)
    return done.returncode, "step 4", done.stdout + done.stderr


def left(tmp: Path) -> list[str]:
    return sorted(f"{p.name}({len(list(p.iterdir()))})" for p in tmp.rglob("pymp-*") if p.is_dir())


CASES = ["train none", "train group", "train rank", "predict group", "predict rank", "estimator rank",
         "estimator launcher"]

if __name__ == "__main__":
    import accelerated_seg
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    stops = int(sys.argv[1])
    chosen = [CASES[int(i)] for i in sys.argv[2].split(",")] if sys.argv[2:] else CASES
    base = Path(tempfile.mkdtemp(prefix="h63probe_"))
    dataset = write_synthetic_dataset(base / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                      spacing_mm=2.0)
    print(f"# package {Path(accelerated_seg.__file__).parent}; {stops} stop(s) per case; pymp-*(entries) left")
    model = scans = None
    if any(case.startswith("predict") for case in chosen):  # one trained model for every predict
        (base / "trained").mkdir()
        cli("train", "none", base / "trained", dataset, None)
        model = next(base / "trained" / "run" / name for name in ("best_model", "model")
                     if (base / "trained" / "run" / name).is_dir())
        scans = write_synthetic_dataset(base / "scans", num_cases=24, num_validation=0, seed=1,
                                        size_mm=(96.0, 96.0, 72.0), spacing_mm=1.0).parent / "imagesTr"
    for case in chosen:
        kind, stop = case.split()
        totals = 0
        for attempt in range(stops):
            root = Path(tempfile.mkdtemp(prefix="case_", dir=base))
            (root / "tmp").mkdir()
            started = time.time()
            status, sent, said = (estimator(stop, root, dataset) if kind == "estimator"
                                  else cli(kind, stop, root, dataset, model, scans))
            found = left(root / "tmp")
            totals += len(found)
            interrupted = "interrupted" in said  # training's "interrupted (Ctrl-C)", predict's "predict interrupted"
            print(f"{case:20s} #{attempt}: status {status}, SIGINT at {sent}, said interrupted {interrupted}, "
                  f"{time.time() - started:.1f} s; pymp left: {len(found)} {found}", flush=True)
        print(f"== {case}: {totals} pymp-* folder(s) left in {stops} stop(s)", flush=True)
