"""SIGUSR1 to the process group of `benchmark data` once both loaders' workers run (ours from the fork server, the
MONAI tutorial's forked from the command), as tests/test_benchmark.py's SIGTERM test sends SIGTERM: with every
one-process command taking SIGUSR1 as its SIGTERM (review r83), does a forked worker take it for its own (a
traceback, status 1) or leave it to the command (138, nothing left)? Run:
  cd /tmp/wt_r83 && PYTHONPATH=. /work/main/.venv/bin/python \
      benchmarks/results/review_early_signals_2026-12-06/benchmark_data_sigusr1.py
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
import terminated_mid_work  # noqa: E402
from test_benchmark import _line_said, _processes_left_in_session  # noqa: E402

for signum in (signal.SIGUSR1, signal.SIGTERM):
    temporary, out = Path(tempfile.mkdtemp(prefix="sigusr1_")), Path(tempfile.mkdtemp(prefix="r83b_"))
    job = subprocess.Popen(
        [sys.executable, terminated_mid_work.__file__, "benchmark", "data", "--cases", "2", "--size-mm", "32", "32",
         "32", "--spacing-mm", "2", "--patch", "8", "--workers", "1", "--batch", "2", "--output", str(out / "d.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "TMPDIR": str(temporary)})
    said = _line_said(job.stdout, terminated_mid_work.BOTH_LOADERS_RUN)
    if said:
        os.killpg(job.pid, signum)
    _, stderr = job.communicate(timeout=120)
    left = list(temporary.glob("accelerated_seg_bench_*"))
    shutil.rmtree(temporary, ignore_errors=True)
    print(f"{signal.Signals(signum).name}: both loaders ran {said}; status {job.returncode}; traceback "
          f"{'Traceback' in stderr}; temporary left {left}; processes left {_processes_left_in_session(job.pid)}")
