"""One-process `accelerated-seg predict` signalled in its first seconds (its checks and imports) and later.

docs/stopping.md says a one-process predict's Ctrl-C says `predict interrupted: ...` and SIGTERM `predict stopped by
SIGTERM: ...`. This trains and exports a tiny model, then signals predict at fixed delays and reports the status and
the last line said. Run (SIZE_MM: the phantoms' size, default 40 40 32): cd /tmp/wt_r75 && PYTHONPATH=. /work/main/.venv/bin/python \
    benchmarks/results/review_stopping_doc_2026-12-06/predict_first_seconds.py [SIGINT@1 SIGTERM@3 ...]
"""
import os, signal, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402
from conftest import tiny_overrides  # noqa: E402

root = Path(tempfile.mkdtemp(prefix="r75p_"))
dataset = write_synthetic_dataset(root / "data", num_cases=40, num_validation=3, seed=0, size_mm=tuple(float(x) for x in os.environ.get("SIZE_MM", "40 40 32").split()),
                                  spacing_mm=2.0)
env = {**os.environ, "PYTHONPATH": str(ROOT)}
exe = str(Path(sys.executable).parent / "accelerated-seg")
subprocess.run([exe, "train", *tiny_overrides(dataset, root / "run", train__max_steps=2, train__val_every=0)],
               env=env, check=True, capture_output=True)
model = root / "run" / "model"
for sig, delay in [(getattr(signal, s), float(d)) for s, d in (a.split("@") for a in sys.argv[1:])] or [(signal.SIGINT, 1.0), (signal.SIGTERM, 1.0)]:
    out = root / f"pred_{sig.name}_{delay}"
    start = time.monotonic()
    proc = subprocess.Popen([exe, "predict", "--model", str(model), str(root / "data" / "imagesTr"), "--output",
                             str(out)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=300)
    written = len(list(out.glob("*.nii.gz"))) if out.exists() else 0
    said_wrote = sum(": wrote " in line for line in stdout.splitlines())
    hidden = sorted(p.name for p in out.iterdir() if p.name.startswith(".")) if out.exists() else []
    print(f"{sig.name} at {delay} s: status {proc.returncode} after {time.monotonic() - start:.1f} s; "
          f"{written} map(s) written ({said_wrote} said), hidden {hidden[:2]}; stderr's last line: {stderr.strip().splitlines()[-1][:150] if stderr.strip() else '(nothing)'}")
