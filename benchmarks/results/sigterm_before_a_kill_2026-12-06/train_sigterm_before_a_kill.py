"""Command: cd <checkout> && PYTHONPATH=<checkout> /work/main/.venv/bin/python \
    <this folder>/train_sigterm_before_a_kill.py RUNS [KILLED_RANK ...]
The hundred-and-eighteenth session (helper h96): ``accelerated-seg train`` launched on 2 CPU processes (one node, gloo,
6 tiny steps, a save every 2) whose process KILLED_RANK (default: 1, then 0) SIGKILLs itself at its third step's
forward (tests/killed_in_training_cli.py: step_2 saved), sending SIGTERM first to torch's agent and to the other process
(a job's stop just before the kill: job_stop_beside_a_kill.py). Each launch: its status, how long after the kill it
ended, the lines said (error, preempted, interrupted), the table's exit codes, the checkpoints left, and each survivor's
notes (where its stop's end waited)."""
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path.cwd()
TESTS = Path(__file__).resolve().parents[3] / "tests"
STOP = Path(__file__).resolve().with_name("job_stop_beside_a_kill.py")
sys.path[:0] = [str(CHECKOUT), str(TESTS)]
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402

top = Path(tempfile.mkdtemp(prefix="train_killed_"))
dataset = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
runs, killed_ranks = int(sys.argv[1]), sys.argv[2:] or ["1", "0"]
print(f"# {runs} launch(es) of 2 for each killed rank {killed_ranks}; {time.strftime('%H:%M:%S', time.gmtime())} UTC, "
      f"load {' '.join(Path('/proc/loadavg').read_text().split()[:3])}", flush=True)
for killed_rank in killed_ranks:
    for number in range(1, runs + 1):
        killed, run, ends = top / f"killed_{killed_rank}_{number}", top / f"run_{killed_rank}_{number}", top / "ends"
        ends.unlink(missing_ok=True)
        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            port = free.getsockname()[1]
        env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_RANK": killed_rank,
               "KILLED_CALL": "2", "KILLED_AT": str(killed), "ENDS_LOG": str(ends),
               "PYTHONPATH": os.pathsep.join([str(CHECKOUT), str(TESTS), os.environ.get("PYTHONPATH", "")])}
        overrides = tiny_overrides(dataset, run, **{"train.max_steps": 6, "train.val_every": 0, "train.save_every": 2})
        proc = subprocess.run(
            [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
             "--num_machines", "1", "--main_process_port", str(port), "--mixed_precision", "no", "--dynamo_backend",
             "no", str(STOP), str(TESTS / "killed_in_training_cli.py"), *overrides], env=env, capture_output=True,
            text=True, timeout=300)
        ended = time.time()
        kill = float(killed.read_text()) if killed.exists() else None
        said = [line[:260] for line in (proc.stderr + proc.stdout).splitlines()
                if line.startswith(("error:", "preempted", "interrupted"))]
        codes = re.findall(r"rank\s*:\s*(\d+) \(local_rank.*?exitcode\s*:\s*(-?\d+)", proc.stderr, re.S)
        kept = sorted(path.name for path in (run / "checkpoints").iterdir()) if (run / "checkpoints").exists() else []
        print(f"process {killed_rank} killed, run {number}: status {proc.returncode}; ended "
              f"{kill and round(ended - kill, 2)} s after the kill; table {codes}; said {said}; checkpoints {kept}; "
              f"traceback {'Traceback' in proc.stderr}, gloo {'gloo' in proc.stderr}", flush=True)
        for line in ends.read_text().splitlines() if ends.exists() and kill else []:
            at, rank, what = line.split(" ", 2)
            print(f"   process {rank}: {float(at) - kill:6.2f} s after the kill: {what}", flush=True)
        if os.environ.get("STDERR_TO"):
            Path(os.environ["STDERR_TO"]).with_suffix(f".{killed_rank}.{number}.txt").write_text(proc.stderr)
