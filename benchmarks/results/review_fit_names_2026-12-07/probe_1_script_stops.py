# cd benchmarks/results/review_fit_names_2026-12-07 && R128_CODE=/tmp/wt_r128 /work/main/.venv/bin/python \
#   probe_1_script_stops.py > probe_1_script_stops_<main|fixed>.txt 2>&1
# examples/estimator.py and fit_your_own.py driven as a user would (tiny sizes, phantoms under /tmp/r128_probe):
# Ctrl-C after a step before any checkpoint, then the same command again; SIGTERM after a step (a checkpoint), then
# --resume latest asking for fewer steps than it holds (the refusal's way to a new run from its weights). Every line
# said after each, and its status. Wanted: the script's flags alone (no save_every, init_from, max_steps=,
# checkpoint_dir, output_dir=).
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "estimator_stop_walk_2026-12-07"))
import probe_lib  # noqa: E402
from probe_lib import A_STEP, Run  # noqa: E402

CODE = os.environ.get("R128_CODE", "/tmp/wt_r128")
probe_lib.HOME = Path("/tmp/r128_probe") / Path(CODE).name
probe_lib.HOME.mkdir(parents=True, exist_ok=True)
probe_lib.ENV.update(PYTHONPATH=CODE, XDG_CACHE_HOME=str(probe_lib.HOME / "xdg_cache"))
print(f"code: {CODE}")
only = sys.argv[1:] or ["estimator", "fit_your_own"]

examples = {"estimator": (["--steps", "12", "--patch", "32"], ["--steps", "2"]),
            "fit_your_own": (["--epochs", "4", "--patch", "32"], ["--epochs", "1"])}
for name in only:
    options, fewer = examples[name]
    argv = [sys.executable, f"{CODE}/examples/{name}.py", "--out", f"output/{name}", "--overwrite", *options]
    run = Run(argv, f"{name}: Ctrl-C after a step, before a checkpoint")
    run.wait_for(A_STEP, timeout=300)
    run.group(signal.SIGINT)
    run.finish(tail=2)
    again = [a for a in argv if a != "--overwrite"]
    Run(again, f"{name}: the same command again, without --overwrite").finish(tail=2)
    run = Run(argv, f"{name}: SIGTERM after a step (fit_your_own: its 7th, beyond one epoch's 4)")
    run.wait_for(A_STEP if name == "estimator" else r"\b([7-9]|1\d)/16 \[", timeout=300)
    run.group(signal.SIGTERM)
    run.finish(tail=1)
    argv = [sys.executable, f"{CODE}/examples/{name}.py", "--out", f"output/{name}", *options, *fewer,
            "--resume", "latest"]
    Run(argv, f"{name}: --resume latest asking for fewer steps than the checkpoint's").finish(tail=2)
