# cd benchmarks/results/estimator_stop_walk_2026-12-07 && H141_CODE=/work/main /work/main/.venv/bin/python \
#   probe_1_fit_your_own.py > probe_1_fit_your_own_before.txt 2>&1
# (H141_CODE=/work/main: main's code and its examples; without it the worktree's, > probe_1_fit_your_own_after.txt)
# examples/fit_your_own.py in one process, stopped by a job's SIGTERM after its third step (tqdm's bar), then a second
# SIGTERM 0.1 s after fit's `preempted:` line, in the script's shutdown: the status a requeue reads (0 wanted).
import sys

from probe_lib import CODE, preempted_then_signalled_again

print(f"code: {CODE}")
preempted_then_signalled_again([sys.executable, f"{CODE}/examples/fit_your_own.py", "--out", "output/fit_your_own",
                                "--overwrite", "--epochs", "100", "--patch", "32"],
                               "examples/fit_your_own.py: SIGTERM after a step, then SIGTERM 0.1 s after its "
                               "preempted line")
