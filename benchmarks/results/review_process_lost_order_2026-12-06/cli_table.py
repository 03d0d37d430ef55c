"""Command: cd <checkout> && PYTHONPATH=<checkout>:<checkout>/tests python \
    benchmarks/results/review_process_lost_order_2026-12-06/cli_table.py RUNS KILLED_RANK PROCESSES
The review of h82 (r73): launched `accelerated-seg train` (accelerate launch, PROCESSES CPU processes, one node, gloo),
process KILLED_RANK SIGKILLing itself at its third step's forward (tests/killed_in_training_cli.py), RUNS times. Each
run: torch's table's "Root Cause (first observed failure)" (its rank and exitcode), every failure's rank and exitcode
in the table, the processes' error lines, seconds from the kill to the launcher's end."""
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(sys.path[0]).resolve().parents[2] / "tests"
sys.path.insert(0, str(TESTS))
from conftest import tiny_overrides  # noqa: E402
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402

runs, rank, processes = (int(arg) for arg in (sys.argv[1:] + ["3", "1", "2"][len(sys.argv) - 1:]))
for run_number in range(runs):
    top = Path(tempfile.mkdtemp(prefix="cli_table_"))
    ds = write_synthetic_dataset(top / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                 spacing_mm=2.0)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1", "KILLED_RANK": str(rank),
           "KILLED_CALL": "2", "KILLED_AT": str(top / "killed")}
    overrides = tiny_overrides(ds, top / "run", **{"train.max_steps": 6, "train.val_every": 0, "train.save_every": 2})
    proc = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes",
                           str(processes), "--num_machines", "1", "--main_process_port", str(port), "--mixed_precision",
                           "no", "--dynamo_backend", "no", str(TESTS / "killed_in_training_cli.py"), *overrides],
                          env=env, capture_output=True, text=True, timeout=300)
    ended = time.time()
    if os.environ.get("STDERR_TO"):
        Path(os.environ["STDERR_TO"]).write_text(proc.stderr)
    root = proc.stderr.split("Root Cause (first observed failure):")[-1]
    first = re.search(r"rank\s*:\s*(\d+).*?exitcode\s*:\s*(-?\d+)", root, re.S)
    table = re.findall(r"rank\s*:\s*(\d+) \(local_rank.*?exitcode\s*:\s*(-?\d+)", proc.stderr, re.S)
    lines = [line[:100] for line in proc.stderr.splitlines() if line.startswith("error: ")]
    after = ended - float((top / "killed").read_text()) if (top / "killed").exists() else None
    print(f"== kill process {rank} of {processes}, run {run_number + 1}/{runs}: root cause rank "
          f"{first and first[1]} exitcode {first and first[2]}; table {table}; rc {proc.returncode}; "
          f"{after and round(after, 2)} s after the kill\n   lines {lines}", flush=True)
