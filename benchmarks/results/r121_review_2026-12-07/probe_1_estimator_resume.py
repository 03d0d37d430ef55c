# cd benchmarks/results/r121_review_2026-12-07 && H141_CODE=/tmp/wt_r121 /work/main/.venv/bin/python \
#   probe_1_estimator_resume.py > probe_1_estimator_resume_after.txt 2>&1   (H141_CODE=/work/main: main's, _before.txt)
# examples/estimator.py in one process stopped by a job's SIGTERM after its third step: what it says; the same command
# again (refused: which ways on?); the same command with --resume latest (r121's flag; main has none).
import signal
import sys

sys.path.insert(0, "../estimator_stop_walk_2026-12-07")
from probe_lib import CODE, Run  # noqa: E402

print(f"code: {CODE}")
argv = [sys.executable, f"{CODE}/examples/estimator.py", "--out", "output/estimator_r121", "--overwrite",
        "--steps", "12", "--patch", "32"]
run = Run(argv, "A: SIGTERM after step 3")
run.wait_for(r"\b([3-9]|1\d)/12 \[", timeout=300)
run.group(signal.SIGTERM)
run.finish(tail=4)
again = [a for a in argv if a != "--overwrite"]
Run(again, "B: the same command again, without --overwrite").finish(tail=2)
Run([*argv, "--resume", "latest"], "C: the same command with --resume latest").finish(timeout=400, tail=8)
