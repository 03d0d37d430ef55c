"""SIGUSR1 (a requeue's notice, Slurm's `--signal=USR1@60`) to a launched `accelerated-seg predict` (2 CPU processes,
gloo): once its processes have met (process 1 asleep in its share of the second case, the main process waiting for
it there: tests/one_rank_bug_predict.py, ONE_RANK_ERROR=slow), and before they meet (held in their checks, or
process 0 waiting in the rendezvous: tests/predict_held_before_the_processes_meet.py).

Run (PROBE_CODE=/work/main for the code before the fix; 2 CPU cores):
    cd /tmp/wt_h107 && PYTHONPATH=. /work/main/.venv/bin/python \
        benchmarks/results/launched_predict_sigusr1_2026-12-07/sigusr1_to_a_launched_predict.py [CASE ...] \
        > benchmarks/results/launched_predict_sigusr1_2026-12-07/sigusr1_to_a_launched_predict_after.txt

CASE is WHERE:WHAT. WHERE: ``work`` (met), ``plain`` (``-m accelerated_seg predict`` of 8 larger scans, run as the
command line runs it, signalled once its first map is written), ``held`` (both held in their checks), ``rendezvous`` (process 1 held there,
process 0 0.5 s into its wait in the rendezvous). WHAT: ``ranks`` (SIGUSR1 to both processes, process 0 first, not to
the launcher: a scheduler's signal to every task), ``rank0``/``rank1`` (to that process alone), ``launcher`` (to the
launcher alone), ``group`` (to the launcher's process group: its processes are in sessions of their own),
``ranks+term`` (SIGUSR1 to both, then SIGTERM to both 0.02 s later: a notice, then the time limit's stop); a WHAT
ending in ``-ignored`` (``ranks-ignored``): the launcher started with SIGUSR1 ignored, as examples/slurm/node_task.sh
starts training's (its processes inherit it), each process watched 10 s.
Reports the launch's status, the seconds from the signal to its processes' end and to the launcher's, the stop lines
said (how many times), each process's exit code in torch's table, a traceback, what the output folder holds (a
hidden temporary is a map left half-written), and any process of the launch outliving its launcher (then killed).
SHOW_STDERR=1: the launch's stderr in full after each case.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CODE = os.environ.get("PROBE_CODE", str(ROOT))
sys.path.insert(0, CODE)
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from accelerated_seg.exported_model import write_export  # noqa: E402
from accelerated_seg.models import build_from_spec, model_spec  # noqa: E402

TESTS = ROOT / "tests"
ENV = {**os.environ, "PYTHONPATH": f"{CODE}{os.pathsep}{TESTS}", "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}

root = Path(tempfile.mkdtemp(prefix="h107_"))
spec = model_spec("unet", 1, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
write_export(build_from_spec(spec).state_dict(), spec.to_dict(),
             {"in_channels": 1, "num_classes": 2, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0]},
             root / "model")
images = write_synthetic_dataset(root / "dataset", num_cases=2, num_validation=0, size_mm=(32.0, 32.0, 24.0),
                                 spacing_mm=2.0).parent / "imagesTr"
scans = root / "scans"
scans.mkdir()
for number, path in enumerate(sorted(images.glob("*.nii.gz"))):
    shutil.copy(path, scans / f"small_{number}.nii.gz")  # the names tests/one_rank_bug_predict.py waits for
# plain's: 8 scans of 64x64x48 voxels (about 1 s each on a process here), so that a signal finds it working
larger = write_synthetic_dataset(root / "larger", num_cases=8, num_validation=0, size_mm=(128.0, 128.0, 96.0),
                                 spacing_mm=2.0).parent / "imagesTr"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def by_rank(launcher: int) -> dict[int, int]:
    pids = {}
    try:
        children = Path(f"/proc/{launcher}/task/{launcher}/children").read_text().split()
    except OSError:
        return pids
    for child in children:
        try:
            with open(f"/proc/{child}/environ", "rb") as environ:
                items = environ.read().split(b"\0")
        except OSError:  # a short-lived child of the launcher's own
            continue
        pids.update({int(item[5:]): int(child) for item in items if item.startswith(b"RANK=")})
    return pids


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def waited_for(condition, launch: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 120
    while not condition():
        assert launch.poll() is None and time.monotonic() < deadline, f"{what}: not reached"
        time.sleep(0.02)


def run(number: int, case: str) -> None:
    where, what = case.split(":")
    out, marks = root / f"out_{number}_{where}_{what}", root / f"marks_{number}_{where}_{what}"
    marks.mkdir()
    inputs = [str(scans / "small_0.nii.gz"), str(scans / "small_1.nii.gz")]
    if where == "plain":
        program, env, inputs = ["-m", "accelerated_seg", "predict"], ENV, [str(larger)]
    elif where == "work":
        program = [str(TESTS / "one_rank_bug_predict.py"), "predict", "--split", "windows"]
        env = {**ENV, "ONE_RANK_ERROR": "slow", "ONE_RANK_STAGE": "case_prediction",
               "ONE_RANK_STARTED": str(marks / "sleeping")}
    else:
        program = [str(TESTS / "predict_held_before_the_processes_meet.py"), "predict"]
        env = {**ENV, "HELD_RANKS": {"held": "0,1", "rendezvous": "1"}[where], "MARKS": str(marks)}
    command = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
               "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port",
               str(free_port()), *program, "--model", str(root / "model"), *inputs, "--output", str(out)]
    ignored = what.endswith("-ignored")
    what = what.removesuffix("-ignored")
    launch = subprocess.Popen(command, env=env, cwd=CODE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True,
                              preexec_fn=(lambda: signal.signal(signal.SIGUSR1, signal.SIG_IGN)) if ignored else None)
    waited_for(lambda: len(by_rank(launch.pid)) == 2, launch, "both processes started")
    ranks = by_rank(launch.pid)
    if where == "plain":
        waited_for(lambda: out.exists() and any(out.glob("[!.]*.nii.gz")), launch, "the first map written")
    elif where == "work":
        waited_for(lambda: (marks / "sleeping").exists(), launch, "process 1 asleep in its share")
        time.sleep(0.3)
    elif where == "held":
        waited_for(lambda: (marks / "held.0").exists() and (marks / "held.1").exists(), launch, "both held")
    else:
        waited_for(lambda: (marks / "held.1").exists() and (marks / "meeting.0").exists(), launch, "the rendezvous")
        time.sleep(0.5)  # process 0 into torch's wait for process 1
    sent = time.monotonic()
    if what == "group":
        os.killpg(launch.pid, signal.SIGUSR1)
    elif what == "launcher":
        os.kill(launch.pid, signal.SIGUSR1)
    else:
        for rank in {"ranks": (0, 1), "ranks+term": (0, 1), "rank0": (0,), "rank1": (1,)}[what]:
            os.kill(ranks[rank], signal.SIGUSR1)
        if what == "ranks+term":
            time.sleep(0.02)  # the stop under way: its processes end 0.04-0.2 s after the signal here
            for rank in (0, 1):
                try:
                    os.kill(ranks[rank], signal.SIGTERM)
                except ProcessLookupError:  # ended already
                    pass
    processes_ended = launcher_ended = None
    deadline = sent + (10 if ignored else 90)
    while time.monotonic() < deadline and (processes_ended is None or launcher_ended is None):
        if processes_ended is None and not any(alive(pid) for pid in ranks.values()):
            processes_ended = time.monotonic() - sent
        if launcher_ended is None and launch.poll() is not None:
            launcher_ended = time.monotonic() - sent
            if processes_ended is None:  # orphans: how long they outlive it (60 s at most here)
                deadline = min(deadline, time.monotonic() + 60)
        time.sleep(0.02)
    orphans = [rank for rank, pid in ranks.items() if alive(pid)]
    for pid in ranks.values():
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    if launch.poll() is None:
        os.killpg(launch.pid, signal.SIGKILL)
    stdout, stderr = launch.communicate()
    lines = [line.strip() for line in stderr.splitlines()
             if ("SIGUSR1" in line or "SIGTERM" in line or "interrupted" in line or line.startswith("error"))
             and "torch.distributed" not in line and "Sending process" not in line]
    said = {line: lines.count(line) for line in lines}
    codes = re.findall(r"rank\s*:\s*(\d+).*?\n.*?exitcode\s*:\s*(-?\d+)", stderr)
    held = sorted(path.name for path in out.iterdir()) if out.exists() else None
    print(f"{case}: launch status {launch.returncode}; processes ended "
          f"{'-' if processes_ended is None else f'{processes_ended:.2f}'} s, launcher "
          f"{'-' if launcher_ended is None else f'{launcher_ended:.2f}'} s after the signal; "
          f"outliving the launcher (killed here): {orphans or 'none'}; said {said or 'nothing'}; exit codes in "
          f"torch's table {codes or 'none'}; Traceback: {'Traceback' in stderr}; output folder: {held}", flush=True)
    if os.environ.get("SHOW_STDERR"):  # the launch's stderr in full, torch's records and table with it
        print(stderr, flush=True)


for number, case in enumerate(sys.argv[1:] or ["work:ranks", "work:rank1", "work:rank0", "work:ranks+term",
                                               "work:launcher", "work:group", "held:ranks", "held:rank0",
                                               "rendezvous:ranks", "held:launcher"]):
    run(number, case)
