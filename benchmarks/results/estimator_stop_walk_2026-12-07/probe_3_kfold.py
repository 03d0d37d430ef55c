# cd benchmarks/results/estimator_stop_walk_2026-12-07 && H141_CODE=/work/main /work/main/.venv/bin/python \
#   probe_3_kfold.py > probe_3_kfold_before.txt 2>&1
# (H141_CODE=/work/main: main's code and its examples; without it the worktree's, > probe_3_kfold_after.txt)
# examples/kfold_ensemble.py in one process (2 folds of 4 phantoms, a tiny U-Net), its first fold stopped by a job's
# SIGTERM after its third step, then a second SIGTERM 0.1 s after the fold's `preempted:` line: the status (0 wanted).
import sys

from probe_lib import CODE, HOME, preempted_then_signalled_again

(HOME / "kfold_tiny.yaml").write_text("""\
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
print(f"code: {CODE}")
preempted_then_signalled_again(
    lambda attempt: [sys.executable, f"{CODE}/examples/kfold_ensemble.py", "--config", "kfold_tiny.yaml", "--out",
                     f"output/kfold_{'main' if CODE == '/work/main' else 'wt'}_{attempt}", "--folds", "2", "--cases",
                     "4", "--test-cases", "1"],
    "examples/kfold_ensemble.py: fold 0 stopped by SIGTERM after a step, then SIGTERM 0.1 s after its preempted line")
