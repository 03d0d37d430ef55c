# The walk's environment: a fresh clone of this branch standing for a user's (git clone of /tmp/wt_h152, so
# configs/, benchmarks/ and its committed results are there as a user's clone has them), the package from that clone
# by PYTHONPATH (as `pip install -e .` would give it), the project's venv, a fresh cache (XDG_CACHE_HOME, HF_HOME: no
# accelerate default config, nothing reused from other sessions), one OpenMP thread a process (2 shared cores), and a
# scratch folder $T for what the walk writes. $TINY: the tiny-run overrides (no --config: 16^3 patches, a
# 3-level U-Net, 2 steps), as the tests' tiny_overrides, over a phantom dataset of 40 x 40 x 32 mm at 2 mm
# ($T/data, walk 0).
export WALK=/tmp/walk_h152
export PATH=/work/main/.venv/bin:$PATH PYTHONPATH=$WALK/clone XDG_CACHE_HOME=$WALK/xdg_cache HF_HOME=$WALK/hf_home
export OMP_NUM_THREADS=1
export T=$WALK/scratch
mkdir -p $T
[ -d $WALK/clone ] || git clone -q /tmp/wt_h152 $WALK/clone
cd $WALK/clone
TINY=(--data.dataset=$T/data/dataset.json --data.cache_dir=$T/cache
  "--data.patch_size=[16,16,16]" "--data.spacing=[2.0,2.0,2.0]" --data.samples_per_volume=2 --data.num_workers=0
  "--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}" --optim.warmup_steps=1
  --train.max_steps=2 --train.batch_size=2 --train.val_every=2 --train.save_every=2 --train.log_every=1
  --train.progress_bar=false --train.trackers=none --train.sw_batch_size=2)
HERE=/tmp/wt_h152/benchmarks/results/twelfth_new_user_walk_2026-12-08
