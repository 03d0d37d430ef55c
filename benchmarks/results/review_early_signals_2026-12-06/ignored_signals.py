"""`accelerated-seg train` started with SIGTERM and SIGINT ignored (nohup-like wrappers, a non-interactive shell's
background job: SIG_IGN is inherited across exec), sent SIGTERM at 0.5 s and SIGINT at 0.7 s, in its first seconds:
early_signals must leave an ignored signal ignored, as the command's own handling does (the run trains on to its end).
Review r83 of h97's change. Run:
  cd /tmp/wt_r83 && PYTHONPATH=. /work/main/.venv/bin/python benchmarks/results/review_early_signals_2026-12-06/ignored_signals.py
"""
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "early_signals_2026-12-06"))
from tiny import ENV, EXE, dataset, tiny_overrides  # noqa: E402


def ignoring() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


root, data = dataset("r83i_")
out = root / "run"
start = time.monotonic()
proc = subprocess.Popen([EXE, "train", *tiny_overrides(data, out, train__max_steps=3, train__val_every=0)], env=ENV,
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ignoring)
time.sleep(0.5)
proc.send_signal(signal.SIGTERM)
time.sleep(0.2)
proc.send_signal(signal.SIGINT)
stdout, stderr = proc.communicate(timeout=300)
print(f"status {proc.returncode} after {time.monotonic() - start:.1f} s; model exported: {(out / 'model').is_dir()}; "
      f"'before it began' said: {'before it began' in stderr}; stderr's last line: "
      f"{stderr.strip().splitlines()[-1][:120] if stderr.strip() else '(nothing)'}")
