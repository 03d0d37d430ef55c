"""SIGTERM to `accelerate launch` of the command line's train and predict on 2 CPU processes (gloo): to the launcher's
pid alone ("launcher": `kill <pid>`) or to its process group ("group": `kill -- -<pgid>`, as a job's stop or
`timeout` sends it to what it started). train: sent once its first checkpoint is whole (save_every=2, log_every=1);
predict: once its first label map is written (--split cases, 16 small scans, a random-weight tiny U-Net). Then: the
launcher's status and seconds from the signal to its end, the lines that say a stop, the tracebacks (the launcher's
SignalException, torch's ChildFailedError, a rank's), the ranks' exit codes in the launcher's table, what is whole.

    PYTHONPATH=<checkout> .venv/bin/python sigterm_to_a_launch.py <checkout> <train|predict>:<launcher|group> [...]
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(CHECKOUT / "tests"))

import torch  # noqa: E402

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.exported_model import write_export  # noqa: E402
from accelerated_seg.model_folders import complete_checkpoints  # noqa: E402
from accelerated_seg.models import build_from_spec, model_spec  # noqa: E402
from conftest import tiny_overrides  # noqa: E402
from test_distributed import _free_port  # noqa: E402

ENV = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(CHECKOUT)}
LAUNCH = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
          "1", "--mixed_precision", "no", "--dynamo_backend", "no"]


def model_and_scans(top: Path) -> tuple[Path, list[Path]]:
    spec = model_spec("unet", 1, 3, [16, 16, 16], {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1})
    torch.manual_seed(0)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    write_export(tensors, spec.to_dict(), {"labels": {"0": "background", "1": "a", "2": "b"}, "in_channels": 1,
                                           "num_classes": 3, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0]},
                 top / "model")
    write_synthetic_dataset(top / "phantoms", num_cases=16, num_validation=0, seed=1, size_mm=(60.0, 56.0, 48.0),
                            spacing_mm=2.0)
    return top / "model", sorted((top / "phantoms" / "imagesTr").glob("*.nii.gz"))


def one(command: str, to: str, top: Path, dataset: Path, folder: Path) -> None:
    folder.mkdir()
    out = folder / "out"
    if command == "train":
        args = ["-m", "accelerated_seg", "train", *tiny_overrides(dataset, out, **{
            "train.max_steps": 100000, "train.val_every": 0, "train.save_every": 2})]
        started = lambda: bool(complete_checkpoints(out / "checkpoints"))  # noqa: E731
    else:
        model, scans = model_and_scans(top) if not (top / "model").is_dir() else (
            top / "model", sorted((top / "phantoms" / "imagesTr").glob("*.nii.gz")))
        args = ["-m", "accelerated_seg", "predict", "--model", str(model), *map(str, scans), "--output", str(out),
                "--split", "cases"]
        started = lambda: out.is_dir() and any(p.name.endswith(".nii.gz") for p in out.iterdir())  # noqa: E731
    launch = subprocess.Popen([*LAUNCH, "--main_process_port", str(_free_port()), *args], env=ENV, cwd=folder,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 180
    while not started() and launch.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    sent = time.monotonic()
    (os.killpg if to == "group" else os.kill)(launch.pid, signal.SIGTERM)
    stdout, stderr = launch.communicate(timeout=150)
    seconds = time.monotonic() - sent
    output = stdout + stderr
    said = [line for line in output.splitlines()
            if re.search(r"preempted|stopped|interrupted|SIGTERM|error:", line) and not line.startswith(("[rank", " "))]
    written = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    print(f"{command} SIGTERM to the {to}: status {launch.returncode} {seconds:.1f} s after the signal; "
          f"SignalException {'SignalException' in output}; ChildFailedError {'ChildFailedError' in output}; "
          f"tracebacks {output.count('Traceback')}; ranks' exit codes {re.findall(r'exitcode  : (-?[0-9]+)', output)}; "
          f"lines {said[:6]}; "
          + (f"whole checkpoints {[p.name for p in complete_checkpoints(out / 'checkpoints')]}; model/ "
             f"{(out / 'model').is_dir()}" if command == "train" else
             f"label maps {sum(n.endswith('.nii.gz') for n in written)} of 16; other files {[n for n in written if not n.endswith('.nii.gz')]}"),
          flush=True)
    if os.environ.get("PROBE_SHOW"):
        print(output[-5000:])
    shutil.rmtree(folder, ignore_errors=True)


with tempfile.TemporaryDirectory() as top:
    data = write_synthetic_dataset(Path(top) / "data", num_cases=9, num_validation=3, seed=0,
                                   size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
    for number, which in enumerate(sys.argv[2:]):
        command, to = which.split(":")
        one(command, to, Path(top), data, Path(top) / f"case{number}")
