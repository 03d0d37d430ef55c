"""A real SIGINT to one rank of a launched training alone (hundred-and-sixth session): a 2-process CPU DDP launch
(accelerate launch, gloo) of tests/dist_worker.py on the suite's tiny phantoms, rank 1 sending itself SIGINT at
its 5th forward (SIGNAL_RANK/SIGNAL_CALL, as tests/test_preemption.py signals one rank). Prints the launcher's
status, its time, and the lines that say what stopped it.

    PYTHONPATH=. .venv/bin/python benchmarks/results/known_issues_open_2026-12-05/sigint_to_one_training_rank.py \
        > benchmarks/results/known_issues_open_2026-12-05/sigint_to_one_training_rank.txt 2>&1
"""

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402
from processes import run_bounded  # noqa: E402
from test_distributed import WORKER, _free_port  # noqa: E402

WORDS = ("interrupted", "ChildFailedError", "SignalException", "exitcode", "Connection", "error:", "Terminated")

with tempfile.TemporaryDirectory() as folder:
    root = Path(folder)
    dataset = write_synthetic_dataset(root / "data", num_cases=9, num_validation=3, seed=0,
                                      size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(WORKER.parent), os.environ.get("PYTHONPATH", "")]),
           "SIGNAL_RANK": "1", "SIGNAL_CALL": "4", "SIGNAL": "SIGINT"}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
           "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
           str(WORKER), str(root / "run"), *tiny_overrides(dataset, root / "out", **{"train.max_steps": 8,
                                                                                     "train.val_every": 0,
                                                                                     "train.save_every": 3})]
    start = time.monotonic()
    proc = run_bounded(cmd, env=env, timeout=240)
    print(f"launcher status {proc.returncode} after {time.monotonic() - start:.1f} s")
    for stream, text in (("stdout", proc.stdout), ("stderr", proc.stderr)):
        for line in text.splitlines():
            if any(word in line for word in WORDS):
                print(f"  {stream}:", line.strip()[:200])
    for rank in range(2):
        result = Path(f"{root / 'run'}.rank{rank}.json")
        print(f"rank {rank} result file:", result.read_text()[:300] if result.is_file() else "none")
    checkpoints = root / "out" / "checkpoints"
    print("checkpoints:", sorted(p.name for p in checkpoints.iterdir()) if checkpoints.is_dir() else "none")
