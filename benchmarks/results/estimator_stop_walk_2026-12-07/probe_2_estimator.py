# cd benchmarks/results/estimator_stop_walk_2026-12-07 && H141_CODE=/work/main /work/main/.venv/bin/python \
#   probe_2_estimator.py > probe_2_estimator_before.txt 2>&1
# (H141_CODE=/work/main: main's code and its examples; without it the worktree's, > probe_2_estimator_after.txt)
# examples/estimator.py in one process, stopped by a job's SIGTERM after its third step (tqdm's bar), then a second
# SIGTERM 0.1 s after fit's `preempted:` line: the status a requeue reads (0 wanted), and what the script says after.
import sys

from probe_lib import CODE, preempted_then_signalled_again

print(f"code: {CODE}")
preempted_then_signalled_again([sys.executable, f"{CODE}/examples/estimator.py", "--out", "output/estimator",
                                "--overwrite", "--steps", "400", "--patch", "32"],
                               "examples/estimator.py: SIGTERM after a step, then SIGTERM 0.1 s after its "
                               "preempted line")
