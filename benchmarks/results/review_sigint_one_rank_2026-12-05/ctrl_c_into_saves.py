"""The review of SIGINT to one training rank (hundred-and-sixth session): 2-process CPU DDP launches (accelerate
launch, gloo) of tests/dist_worker.py on the suite's tiny phantoms, save_every=1, log_every=1, TensorBoard on, SIGINT
sent as a checkpoint's hidden folder (.step_N.partial) appears (the save in progress) or a time after the first:
to the launcher's process group (a terminal's Ctrl-C: "group"; "group2" twice, PROBE_GAP s apart) or to one rank alone
("rank0", "rank1"). Then: the
launcher's status, the lines "interrupted (Ctrl-C)" on stdout, whether the checkpoint the line names is there and the
newest whole one, hidden leftovers, the steps TensorBoard's events hold, processes naming the run left, and whether
--train.resume=latest then finishes. Which code: the PYTHONPATH it is run with (the checkout before or after).
PROBE_CLI=1: `accelerate launch -m accelerated_seg train` (the command line's cli, end_process) for the worker.
PROBE_WORKERS=N: data.num_workers (0 otherwise, the tests' tiny runs). PROBE_VAL_EVERY=N: train.val_every (0
otherwise): validations, which export the best model, among the saves.

    PYTHONPATH=<checkout> .venv/bin/python ctrl_c_into_saves.py <checkout> <mode> <at: partial:N | time:S> [...]
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(CHECKOUT / "tests"))

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.model_folders import complete_checkpoints  # noqa: E402
from conftest import tiny_overrides  # noqa: E402
from processes import run_bounded  # noqa: E402
from test_distributed import WORKER, _free_port  # noqa: E402


def launch(root: Path, out: Path, dataset: Path, extra: dict) -> list[str]:
    return [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
            "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend",
            "no", *(["-m", "accelerated_seg", "train"] if os.environ.get("PROBE_CLI")
                    else [str(WORKER), str(root / "run")]),
            *tiny_overrides(dataset, out, **extra)]


def rank_pids(marker: str) -> dict[int, int]:
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker.encode() in cmd:
            ranks = [e for e in env if e.startswith(b"RANK=")]
            if ranks and b"accelerate.commands.launch" not in cmd:
                found[int(ranks[0][5:])] = int(pid)
    return found


def left_processes(marker: str) -> list[int]:
    return [int(p) for p in filter(str.isdigit, os.listdir("/proc"))
            if marker.encode() in Path(f"/proc/{p}/cmdline").read_bytes()] if True else []


def helpers_and_shm() -> tuple[int, int]:
    """Processes of multiprocessing's (a fork server, a resource tracker) and files in /dev/shm, on the machine."""
    helpers = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            helpers += b"multiprocessing" in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
    return helpers, len(os.listdir("/dev/shm"))


def tensorboard_steps(out: Path) -> list[int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    steps = set()
    for events in (out / "train").rglob("events.out.tfevents*"):
        accumulator = EventAccumulator(str(events.parent), size_guidance={"scalars": 0})
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            if "loss" in tag:
                steps |= {e.step for e in accumulator.Scalars(tag)}
    return sorted(steps)


def one(mode: str, at: str, dataset: Path, folder: Path) -> None:
    out, checkpoints = folder / "out", folder / "out" / "checkpoints"
    extra = {"train.max_steps": 40, "train.val_every": os.environ.get("PROBE_VAL_EVERY", "0"), "train.save_every": 1, "train.keep_last": 1,
             "train.trackers": "tensorboard", "data.num_workers": os.environ.get("PROBE_WORKERS", "0")}
    before = helpers_and_shm()
    proc = subprocess.Popen(launch(folder, out, dataset, extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env=ENV)
    kind, value = at.split(":")
    deadline = time.monotonic() + 200
    while time.monotonic() < deadline and proc.poll() is None:
        names = os.listdir(checkpoints) if checkpoints.is_dir() else []
        if kind == "partial" and f".step_{value}.partial" in names:
            break
        if kind == "time" and any(n.startswith("step_") for n in names):
            time.sleep(float(value))
            break
        time.sleep(0.002)
    if mode.startswith("group"):  # "group2": a second Ctrl-C PROBE_GAP s (0.1) after the first, as the ranks end
        os.killpg(proc.pid, signal.SIGINT)
        if mode == "group2":
            time.sleep(float(os.environ.get("PROBE_GAP", "0.1")))
            os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(rank_pids(str(folder))[int(mode[-1])], signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    time.sleep(6)  # a loader's workers, a fork server: do they outlive the launch?
    lines = [line for line in stdout.splitlines() if "interrupted (Ctrl-C)" in line]
    named = re.search(r"checkpoint is (\S+):", lines[0]).group(1) if lines else None
    step = int(re.search(r"after step (\d+)", lines[0]).group(1)) if lines else None
    whole = [p.name for p in complete_checkpoints(checkpoints)]
    hidden = sorted(n for n in os.listdir(checkpoints) if n.startswith("."))
    hidden += sorted(f"out/{n}" for n in os.listdir(out) if n.startswith("."))  # an export's, a record's temporary
    print(f"{mode} at {at}: launcher {proc.returncode}; lines on stdout {len(lines)}, on stderr "
          f"{stderr.count('interrupted (Ctrl-C)')} (launcher table included); named "
          f"{Path(named).name if named else None} (step {step}), there {bool(named) and Path(named).is_dir()}; "
          f"whole {whole}; hidden {hidden}; TensorBoard loss steps {tensorboard_steps(out)[-3:]}; "
          f"processes left {len(left_processes(str(folder)))}; SignalException {'SignalException' in stderr}; "
          f"multiprocessing helpers and /dev/shm files {before} before, {helpers_and_shm()} after")
    again = run_bounded(launch(folder, out, dataset, {**extra, "train.max_steps": (step or 0) + 2,
                                                      "train.resume": "latest"}), env=ENV, timeout=200)
    print(f"  resume latest: status {again.returncode}"
          + ("" if again.returncode == 0 else f"\n{again.stdout[-800:]}\n{again.stderr[-1500:]}"))


ENV = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
       "PYTHONPATH": os.pathsep.join([str(CHECKOUT), str(WORKER.parent)])}
with tempfile.TemporaryDirectory() as top:
    data = write_synthetic_dataset(Path(top) / "data", num_cases=9, num_validation=3, seed=0,
                                   size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
    for number, (mode, at) in enumerate(zip(sys.argv[2::2], sys.argv[3::2])):
        one(mode, at, data, Path(top) / f"case{number}")
