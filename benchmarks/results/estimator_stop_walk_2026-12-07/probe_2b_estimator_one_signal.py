# cd benchmarks/results/estimator_stop_walk_2026-12-07 && H141_CODE=/work/main /work/main/.venv/bin/python \
#   probe_2b_estimator_one_signal.py > probe_2b_estimator_one_signal_before.txt 2>&1   (worktree's: > ..._after.txt)
# examples/estimator.py in one process stopped by ONE SIGTERM after its third step: what it says after fit's
# `preempted:` line, and its status (0 wanted, which a requeue reads).
import signal
import sys

from probe_lib import A_STEP, CODE, Run

print(f"code: {CODE}")
for attempt in range(2):
    run = Run([sys.executable, f"{CODE}/examples/estimator.py", "--out", "output/estimator", "--overwrite", "--steps",
               "400", "--patch", "32"], f"examples/estimator.py: one SIGTERM after a step ({attempt + 1})")
    run.wait_for(A_STEP, timeout=300)
    run.group(signal.SIGTERM)
    run.finish(tail=4)
