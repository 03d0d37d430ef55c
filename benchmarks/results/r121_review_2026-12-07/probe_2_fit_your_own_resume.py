# cd benchmarks/results/r121_review_2026-12-07 && H141_CODE=/tmp/wt_r121 /work/main/.venv/bin/python \
#   probe_2_fit_your_own_resume.py > probe_2_fit_your_own_resume_after.txt 2>&1  (H141_CODE=/work/main: _before.txt)
# examples/fit_your_own.py in one process: stopped by a job's SIGTERM after its third step, then by Ctrl-C after a
# checkpoint (save_every=10: step 12 of 3 epochs' 12); the way on it says; the same command with --resume latest to its
# end; and once more on the finished run (a resume that trains nothing: its weights line).
import signal
import sys

sys.path.insert(0, "../estimator_stop_walk_2026-12-07")
from probe_lib import CODE, Run  # noqa: E402

print(f"code: {CODE}")
argv = [sys.executable, f"{CODE}/examples/fit_your_own.py", "--out", "output/fit_your_own_r121", "--overwrite",
        "--epochs", "4", "--patch", "32"]
run = Run(argv, "A: SIGTERM after step 3")
run.wait_for(r"\b([3-9]|1\d)/\d+ \[", timeout=300)
run.group(signal.SIGTERM)
run.finish(tail=3)
run = Run([*argv, "--resume", "latest"], "B: --resume latest, Ctrl-C after step 11 (checkpoint step_10)")
run.wait_for(r"\b1[1-5]/16 \[", timeout=300)
run.group(signal.SIGINT)
run.finish(tail=3)
Run([*argv, "--resume", "latest"], "C: --resume latest to the end").finish(timeout=400, tail=3)
Run([*argv, "--resume", "latest"], "D: --resume latest of the finished run").finish(timeout=400, tail=3)
