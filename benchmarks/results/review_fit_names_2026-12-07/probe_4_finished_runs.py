# cd benchmarks/results/review_fit_names_2026-12-07 && R128_CODE=/tmp/wt_r128 /work/main/.venv/bin/python \
#   probe_4_finished_runs.py > probe_4_finished_runs.txt 2>&1
# examples/estimator.py and fit_your_own.py run to their end (tiny), then the same command again (the script's refusal),
# then with --resume latest (the fit resumed at its last step): the last lines each says and its status.
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "estimator_stop_walk_2026-12-07"))
import probe_lib  # noqa: E402
from probe_lib import Run  # noqa: E402

CODE = os.environ.get("R128_CODE", "/tmp/wt_r128")
probe_lib.HOME = Path("/tmp/r128_probe_finished") / Path(CODE).name
probe_lib.HOME.mkdir(parents=True, exist_ok=True)
probe_lib.ENV.update(PYTHONPATH=CODE, XDG_CACHE_HOME=str(probe_lib.HOME / "xdg_cache"))
for name, options in {"estimator": ["--steps", "2", "--patch", "32"],
                      "fit_your_own": ["--epochs", "1", "--patch", "32"]}.items():
    argv = [sys.executable, f"{CODE}/examples/{name}.py", "--out", f"output/{name}", *options]
    Run([*argv, "--overwrite"], f"{name}: to its end").finish(tail=2)
    Run(argv, f"{name}: the same command again").finish(tail=1)
    Run([*argv, "--resume", "latest"], f"{name}: --resume latest of the finished run").finish(tail=4)
