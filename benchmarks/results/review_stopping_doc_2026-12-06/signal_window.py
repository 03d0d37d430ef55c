"""When does `accelerated-seg train` (one process) take SIGUSR1 / SIGTERM as a preemption notice?

docs/stopping.md (h90) says SIGUSR1 "is recorded from the start" and that a signal "during the setup is acted on
after the first step". This sends the signal at a fixed delay after the command starts and reports the status and
what it said. Run: cd /tmp/wt_r75 && PYTHONPATH=. /work/main/.venv/bin/python \
    benchmarks/results/review_stopping_doc_2026-12-06/signal_window.py > .../signal_window.txt 2>&1
"""
import os, signal, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402

root = Path(tempfile.mkdtemp(prefix="r75_"))
dataset = write_synthetic_dataset(root / "data", num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)
env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
exe = str(Path(sys.executable).parent / "accelerated-seg")
for sig, delay in [(signal.SIGUSR1, 1.0), (signal.SIGUSR1, 3.0), (signal.SIGTERM, 1.0), (signal.SIGTERM, 3.0),
                   (signal.SIGUSR1, 15.0)]:
    out = root / f"run_{sig.name}_{delay}"
    cmd = [exe, "train", *tiny_overrides(dataset, out, train__max_steps=400, train__val_every=0,
                                         train__save_every=0)]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(delay)
    proc.send_signal(sig)
    output, _ = proc.communicate(timeout=300)
    lines = [line for line in output.splitlines() if line.strip()]
    print(f"{sig.name} at {delay} s: status {proc.returncode} after {time.monotonic() - start:.1f} s; "
          f"checkpoints {sorted(p.name for p in (out / 'checkpoints').glob('*')) if (out / 'checkpoints').exists() else None}")
    print("   last lines:", lines[-2:] if lines else "(nothing said)")
