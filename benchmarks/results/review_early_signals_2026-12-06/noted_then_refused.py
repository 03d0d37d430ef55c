"""`accelerated-seg train` sent SIGUSR1 (noted for the training loop, early_signals) as it first imports run_folder
(its pre-flight check, after main began), then refused by that check (data.dataset names no file): which line, which
status? Then the same for SIGTERM. Review r83 of h97's change. Run:
  cd /tmp/wt_r83 && PYTHONPATH=. /work/main/.venv/bin/python \
      benchmarks/results/review_early_signals_2026-12-06/noted_then_refused.py
"""
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
from test_early_signals import AS_THE_COMMAND_LINE, SIGNAL_AT_THE_IMPORT, run_python  # noqa: E402

for signum in (signal.SIGUSR1, signal.SIGTERM):
    code = SIGNAL_AT_THE_IMPORT.format(module="accelerated_seg.run_folder", signum=int(signum)) + AS_THE_COMMAND_LINE.format(
        argv=["accelerated-seg", "train", "--data.dataset=/nonexistent/dataset.json", "--train.output_dir=/tmp/r83_x"])
    done = run_python(code)
    print(f"{signal.Signals(signum).name} then a refusal: status {done.returncode}; stderr {done.stderr.splitlines()}")
