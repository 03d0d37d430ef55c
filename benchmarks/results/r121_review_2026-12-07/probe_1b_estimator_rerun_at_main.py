# cd benchmarks/results/r121_review_2026-12-07 && H141_CODE=/work/main /work/main/.venv/bin/python \
#   probe_1b_estimator_rerun_at_main.py > probe_1_estimator_resume_before.txt 2>&1
# main's examples/estimator.py (at 64239fb5) over probe_1's --out (its run, stopped then resumed to its end, holds
# checkpoints): the same command again, and with --resume latest. The stop's lines at main are h141's
# probe_2_estimator_after.txt (fit's line alone).
import sys

sys.path.insert(0, "../estimator_stop_walk_2026-12-07")
from probe_lib import CODE, Run  # noqa: E402

print(f"code: {CODE}")
argv = [sys.executable, f"{CODE}/examples/estimator.py", "--out", "output/estimator_r121", "--steps", "12",
        "--patch", "32"]
Run(argv, "B: the same command again, without --overwrite").finish(tail=2)
Run([*argv, "--resume", "latest"], "C: the same command with --resume latest").finish(tail=2)
