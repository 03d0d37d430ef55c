"""SIGUSR1 and SIGTERM to synth, and Ctrl-C to train before train() runs (its imports).

docs/stopping.md's table heads its SIGTERM column "SIGUSR1: training only", and says a Ctrl-C "stopped in its
setup" says `interrupted (Ctrl-C) before training began`. Copied from review_stopping_doc_2026-12-06/ (r75). Run (PROBE_CODE=/work/main for the code before the
fix): cd /tmp/wt_h97 && PYTHONPATH=. \
    /work/main/.venv/bin/python benchmarks/results/early_signals_2026-12-06/other_signals.py
"""
import signal
import subprocess

from tiny import EXE, dataset, signalled, tiny_overrides

root, data = dataset("r75o_")


def run(name, command, sig, delay):
    proc, output, _, took = signalled(command, sig, delay, stderr=subprocess.STDOUT)
    lines = [line for line in output.splitlines() if line.strip()]
    print(f"{name}: {sig.name} at {delay} s: status {proc.returncode} after {took:.1f} s; "
          f"last lines: {lines[-2:] if lines else '(nothing said)'}")


run("synth --cases 300", [EXE, "synth", str(root / "synth"), "--cases", "300"], signal.SIGUSR1, 2.0)
print("   left in the synth folder:", sorted(p.name for p in (root / "synth").rglob("*") if p.name.startswith("."))[:5])
run("synth --cases 300", [EXE, "synth", str(root / "synth2"), "--cases", "300"], signal.SIGTERM, 2.0)
run("train (one process)", [EXE, "train", *tiny_overrides(data, root / "run", train__max_steps=400,
                                                           train__val_every=0, train__save_every=0)],
    signal.SIGINT, 2.5)
