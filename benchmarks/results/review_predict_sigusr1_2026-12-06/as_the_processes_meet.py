"""(The hundred-and-nineteenth session's review: h101's launched_before_the_meeting.py with WHERE ``met`` (process 1
held just after its meeting returned, inside said_once_until_the_processes_meet, process 0 in its steps:
held_after_the_meeting.py) and WHAT ``staggered@MS``,
SIGTERM to process 0, then to process 1 MS milliseconds later, not to the launcher: a job's stop reaching one process
after the other, the race its Fixed entry names.)

SIGTERM (a job's stop) and SIGKILL (a death, which the agent follows with SIGTERM to the others) to a launched
`accelerated-seg predict` (2 CPU processes, gloo) before its processes have met: in their imports, held in their
checks, one of them waiting in the rendezvous.

Run (PROBE_CODE=/work/main for the code before the fix; 2 CPU cores):
    cd /tmp/wt_h101 && PYTHONPATH=. /work/main/.venv/bin/python \
        benchmarks/results/review_predict_sigusr1_2026-12-06/as_the_processes_meet.py met:group met:ranks
    (staggered_sigterm.txt: held:staggered@0 ... rendezvous:staggered@200, run before ``met`` was added)

CASE is WHERE:WHAT. WHERE: ``imports@S`` (``python -m accelerated_seg predict``, S seconds after both processes have
started: importing torch and MONAI), ``held`` (both processes held in their checks,
tests/predict_held_before_the_processes_meet.py), ``rendezvous`` (process 1 held there, process 0 0.5 s into its
wait in the rendezvous). WHAT: ``group`` (SIGTERM to the launcher's process group, as a job's stop reaches every
process), ``rank0`` (SIGTERM to process 0 alone), ``ranks`` (SIGTERM to both processes, process 0 first, and not
to the launcher: its table then gives each one's status), ``kill1`` (SIGKILL to process 1: the agent then sends
SIGTERM to process 0). Reports the launch's status, the seconds from the signal to its end, the stop lines said (how many
times), each process's exit code in torch's table, and whether a traceback or the output folder was left.
"""
import os
import re
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

HELD = str(ROOT / "tests" / "predict_held_before_the_processes_meet.py")
AFTER = str(Path(__file__).with_name("held_after_the_meeting.py"))
ENV = {**os.environ, "PYTHONPATH": CODE, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}

root = Path(tempfile.mkdtemp(prefix="r90l_"))
spec = model_spec("unet", 1, 2, [16, 16, 16], {"channels": [4, 8], "strides": [2], "num_res_units": 0})
write_export(build_from_spec(spec).state_dict(), spec.to_dict(),
             {"in_channels": 1, "num_classes": 2, "patch_size": [16, 16, 16], "spacing": [2.0, 2.0, 2.0]},
             root / "model")
scans = write_synthetic_dataset(root / "scans", num_cases=2, num_validation=0, size_mm=(32.0, 32.0, 24.0),
                                spacing_mm=2.0).parent / "imagesTr"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def by_rank(launcher: int) -> dict[int, int]:
    pids = {}
    for child in Path(f"/proc/{launcher}/task/{launcher}/children").read_text().split():
        try:
            with open(f"/proc/{child}/environ", "rb") as environ:
                items = environ.read().split(b"\0")
        except OSError:  # a short-lived child of the launcher's own
            continue
        pids.update({int(item[5:]): int(child) for item in items if item.startswith(b"RANK=")})
    return pids


def waited_for(condition, launch: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 120
    while not condition():
        assert launch.poll() is None and time.monotonic() < deadline, f"{what}: not reached"
        time.sleep(0.02)


def run(number: int, case: str) -> None:
    where, what = case.split(":")
    out, marks = root / f"out_{number}_{where}_{what}", root / f"marks_{number}_{where}_{what}"
    marks.mkdir()
    held = {"held": "0,1", "rendezvous": "1"}.get(where, "")
    program = (["-m", "accelerated_seg"] if where.startswith("imports") else [AFTER] if where == "met" else [HELD])
    command = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
               "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port",
               str(free_port()), *program, "predict", "--model", str(root / "model"), str(scans), "--output", str(out)]
    launch = subprocess.Popen(command, env={**ENV, "HELD_RANKS": held, "MARKS": str(marks)}, cwd=CODE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    waited_for(lambda: len(by_rank(launch.pid)) == 2, launch, "both processes started")
    ranks = by_rank(launch.pid)
    if where.startswith("imports@"):
        time.sleep(float(where.split("@")[1]))
    elif where == "met":
        waited_for(lambda: (marks / "met.0").exists() and (marks / "met.1").exists(), launch, "both met")
        time.sleep(1.0)  # process 0 into its steps (its first collective waits for process 1)
    elif where == "held":
        waited_for(lambda: (marks / "held.0").exists() and (marks / "held.1").exists(), launch, "both held")
    else:
        waited_for(lambda: (marks / "held.1").exists() and (marks / "meeting.0").exists(), launch, "the rendezvous")
        time.sleep(0.5)  # process 0 into torch's wait for process 1
    sent = time.monotonic()
    if what == "group":
        os.killpg(launch.pid, signal.SIGTERM)
    elif what in ("rank0", "ranks"):
        for rank in (0, 1) if what == "ranks" else (0,):
            os.kill(ranks[rank], signal.SIGTERM)
    elif what.startswith("staggered@"):
        os.kill(ranks[0], signal.SIGTERM)
        time.sleep(float(what.split("@")[1]) / 1000)
        try:
            os.kill(ranks[1], signal.SIGTERM)
        except ProcessLookupError:  # ended (and reaped) before: the agent's SIGTERM came first
            print(f"{case}: process 1 had ended before its SIGTERM", flush=True)
    else:
        os.kill(ranks[1], signal.SIGKILL)
    try:
        stdout, stderr = launch.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(launch.pid, signal.SIGKILL)
        stdout, stderr = launch.communicate()
    took = time.monotonic() - sent
    lines = [line for line in stderr.splitlines()
             if "before it began" in line or "before the launch's" in line or line.startswith(("predict ", "error"))]
    said = {line: lines.count(line) for line in lines}
    codes = re.findall(r"rank\s*:\s*(\d+).*?\n.*?exitcode\s*:\s*(-?\d+)", stderr)
    print(f"{case}: launch status {launch.returncode} {took:.2f} s after the signal; said {said or 'nothing'}; "
          f"exit codes in torch's table {codes or 'none'}; Traceback: {'Traceback' in stderr}; output folder: "
          f"{out.exists()}", flush=True)


for number, case in enumerate(sys.argv[1:] or ["imports@1:group", "held:group", "rendezvous:group", "held:rank0",
                                               "rendezvous:kill1", "imports@1:kill1"]):
    run(number, case)
