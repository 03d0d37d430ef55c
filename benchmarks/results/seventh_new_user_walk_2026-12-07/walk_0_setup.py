# cd /tmp/walk_h139 && PYTHONPATH=/tmp/wt_h139 /work/main/.venv/bin/python \
#   /tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07/walk_0_setup.py > walk_0_setup.txt 2>&1
# The walk's data and model: 24 phantoms by `accelerated-seg synth` (20 training, 4 validation), a tiny config
# (16^3 patches at 3 mm, a 3-level U-Net), and one short whole run whose model/ the predict examples use.
import sys

sys.path.insert(0, "/tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07")
from walk_lib import CLONE, Run, files, setup  # noqa: E402

setup()
(CLONE / "tiny.yaml").write_text("""\
data:
  dataset: data/phantoms/dataset.json
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
  output_dir: output/tiny
  max_steps: 3000
  batch_size: 2
  val_every: 5
  save_every: 5
  trackers: none
""")
Run("accelerated-seg synth data/phantoms", "synth the phantoms").finish()
Run("accelerated-seg train --config tiny.yaml --train.output_dir=output/model_run --train.max_steps=10",
    "a short whole run: its model/ for predict").finish()
files("output/model_run")
