"""When does `accelerated-seg train` (one process) take SIGUSR1 / SIGTERM as a preemption notice?

docs/stopping.md (h90) said SIGUSR1 "is recorded from the start" and that a signal "during the setup is acted on
after the first step". This sends the signal at a fixed delay after the command starts and reports the status and
what it said. Copied from review_stopping_doc_2026-12-06/ (r75). Run (PROBE_CODE=/work/main for the code before the
fix): cd /tmp/wt_h97 && PYTHONPATH=. /work/main/.venv/bin/python \
    benchmarks/results/early_signals_2026-12-06/signal_window.py [SIGUSR1@1 SIGTERM@3 ...]
"""
import subprocess
import sys

from tiny import EXE, dataset, signalled, signals_at, tiny_overrides

root, data = dataset("r75_")
for sig, delay in signals_at(sys.argv[1:], ["SIGUSR1@1", "SIGUSR1@3", "SIGTERM@1", "SIGTERM@3", "SIGUSR1@15"]):
    out = root / f"run_{sig.name}_{delay}"
    command = [EXE, "train", *tiny_overrides(data, out, train__max_steps=400, train__val_every=0, train__save_every=0)]
    proc, output, _, took = signalled(command, sig, delay, stderr=subprocess.STDOUT)
    lines = [line for line in output.splitlines() if line.strip()]
    saved = sorted(p.name for p in (out / "checkpoints").glob("*")) if (out / "checkpoints").exists() else None
    print(f"{sig.name} at {delay} s: status {proc.returncode} after {took:.1f} s; checkpoints {saved}")
    print("   last lines:", lines[-2:] if lines else "(nothing said)")
