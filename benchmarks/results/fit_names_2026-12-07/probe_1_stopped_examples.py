# cd benchmarks/results/fit_names_2026-12-07 && H147_CODE=/tmp/wt_h147 /work/main/.venv/bin/python \
#   probe_1_stopped_examples.py > probe_1_stopped_examples_after.txt 2>&1
#   (H147_CODE=/work/main: main's code and examples, > probe_1_stopped_examples_before.txt)
# examples/estimator.py, fit_your_own.py and kfold_ensemble.py in one process (each writing its phantoms in
# /tmp/h147_probe), stopped by a job's SIGTERM to the group after a step's line: every line said after the stop (the
# bar's left out); then estimator.py and fit_your_own.py resumed with --resume latest and stopped by Ctrl-C after a
# checkpoint (the preemption's). One way on wanted, the script's, and no Python call (resume='latest').
import os
import shutil
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "estimator_stop_walk_2026-12-07"))
import probe_lib  # noqa: E402
from probe_lib import A_STEP, Run  # noqa: E402

CODE = os.environ.get("H147_CODE", "/tmp/wt_h147")
probe_lib.HOME = Path("/tmp/h147_probe") / Path(CODE).name
probe_lib.HOME.mkdir(parents=True, exist_ok=True)
probe_lib.ENV.update(PYTHONPATH=CODE, XDG_CACHE_HOME=str(probe_lib.HOME / "xdg_cache"))
print(f"code: {CODE}")

examples = {"estimator": ["--steps", "12", "--patch", "32"], "fit_your_own": ["--epochs", "4", "--patch", "32"]}
for name, options in examples.items():
    argv = [sys.executable, f"{CODE}/examples/{name}.py", "--out", f"output/{name}", "--overwrite", *options]
    run = Run(argv, f"{name}: SIGTERM after a step")
    run.wait_for(A_STEP, timeout=300)
    run.group(signal.SIGTERM)
    run.finish(tail=3)
    run = Run([*argv, "--resume", "latest"], f"{name}: --resume latest, Ctrl-C after a step")
    run.wait_for(r"resumed from [^\n]*", timeout=300)
    run.wait_for(A_STEP, timeout=300)
    run.group(signal.SIGINT)
    run.finish(tail=3)

shutil.rmtree(probe_lib.HOME / "output" / "kfold", ignore_errors=True)  # a new run each time
(probe_lib.HOME / "kfold_tiny.yaml").write_text("""\
data:
  patch_size: [16, 16, 16]
  spacing: [3.0, 3.0, 3.0]
  samples_per_volume: 2
  num_workers: 1
model:
  name: unet
  args: {channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}
optim:
  warmup_steps: 2
train:
  max_steps: 3000
  batch_size: 2
  val_every: 50
  save_every: 50
  trackers: none
""")
run = Run([sys.executable, f"{CODE}/examples/kfold_ensemble.py", "--config", "kfold_tiny.yaml", "--out",
           "output/kfold", "--folds", "2", "--cases", "4", "--test-cases", "1"], "kfold_ensemble: SIGTERM after a step")
run.wait_for(A_STEP, timeout=300)
run.group(signal.SIGTERM)
run.finish(tail=3)
