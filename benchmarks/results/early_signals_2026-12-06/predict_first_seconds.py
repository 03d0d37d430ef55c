"""One-process `accelerated-seg predict` signalled in its first seconds (its checks and imports) and later.

docs/stopping.md says a one-process predict's Ctrl-C says `predict interrupted: ...` and SIGTERM `predict stopped by
SIGTERM: ...`. This trains and exports a tiny model, then signals predict at fixed delays and reports the status and
the last line said. Run (SIZE_MM: the phantoms' size, default 40 40 32): cd /tmp/wt_h97 && PYTHONPATH=. \
    /work/main/.venv/bin/python benchmarks/results/early_signals_2026-12-06/predict_first_seconds.py \
    [SIGINT@1 SIGTERM@3 ...]
"""
import os
import subprocess
import sys

from tiny import ENV, EXE, dataset, signalled, signals_at, tiny_overrides

root, data = dataset("r75p_", cases=40, size_mm=tuple(float(x) for x in os.environ.get("SIZE_MM", "40 40 32").split()))
subprocess.run([EXE, "train", *tiny_overrides(data, root / "run", train__max_steps=2, train__val_every=0)],
               env=ENV, check=True, capture_output=True)
model = root / "run" / "model"
for sig, delay in signals_at(sys.argv[1:], ["SIGINT@1", "SIGTERM@1"]):
    out = root / f"pred_{sig.name}_{delay}"
    proc, stdout, stderr, took = signalled([EXE, "predict", "--model", str(model), str(root / "data" / "imagesTr"),
                                            "--output", str(out)], sig, delay)
    written = len(list(out.glob("*.nii.gz"))) if out.exists() else 0
    said_wrote = sum(": wrote " in line for line in stdout.splitlines())
    hidden = sorted(p.name for p in out.iterdir() if p.name.startswith(".")) if out.exists() else []
    last = stderr.strip().splitlines()[-1][:150] if stderr.strip() else "(nothing)"
    print(f"{sig.name} at {delay} s: status {proc.returncode} after {took:.1f} s; {written} map(s) written "
          f"({said_wrote} said), hidden {hidden[:2]}; stderr's last line: {last}")
