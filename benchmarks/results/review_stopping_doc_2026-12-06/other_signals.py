"""SIGUSR1 to a command other than train, and Ctrl-C to train before train() runs (its imports).

docs/stopping.md's table heads its SIGTERM column "SIGUSR1: training only", and says a Ctrl-C "stopped in its
setup" says `interrupted (Ctrl-C) before training began`. Run: cd /tmp/wt_r75 && PYTHONPATH=. \
    /work/main/.venv/bin/python benchmarks/results/review_stopping_doc_2026-12-06/other_signals.py
"""
import os, signal, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402

root = Path(tempfile.mkdtemp(prefix="r75o_"))
dataset = write_synthetic_dataset(root / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
exe = str(Path(sys.executable).parent / "accelerated-seg")


def run(name, cmd, sig, delay):
    start = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(delay)
    proc.send_signal(sig)
    output, _ = proc.communicate(timeout=300)
    lines = [line for line in output.splitlines() if line.strip()]
    print(f"{name}: {sig.name} at {delay} s: status {proc.returncode} after {time.monotonic() - start:.1f} s; "
          f"last lines: {lines[-2:] if lines else '(nothing said)'}")


run("synth --cases 300", [exe, "synth", str(root / "synth"), "--cases", "300"], signal.SIGUSR1, 2.0)
print("   left in the synth folder:", sorted(p.name for p in (root / "synth").rglob("*") if p.name.startswith("."))[:5])
run("synth --cases 300", [exe, "synth", str(root / "synth2"), "--cases", "300"], signal.SIGTERM, 2.0)
run("train (one process)", [exe, "train", *tiny_overrides(dataset, root / "run", train__max_steps=400,
                                                           train__val_every=0, train__save_every=0)],
    signal.SIGINT, 2.5)
