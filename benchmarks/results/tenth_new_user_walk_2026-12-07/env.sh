# The walk's environment: a fresh clone of this branch standing for a user's (git clone of /tmp/wt_h150, so
# configs/, benchmarks/ and its committed results are there as a user's clone has them), the package from that clone
# by PYTHONPATH (as `pip install -e .` would give it), the project's venv, a fresh cache (XDG_CACHE_HOME, HF_HOME: no
# accelerate default config, nothing reused from other sessions), and a scratch folder $T for what the walk writes.
export WALK=/tmp/walk_h150
export PATH=/work/main/.venv/bin:$PATH PYTHONPATH=$WALK/clone XDG_CACHE_HOME=$WALK/xdg_cache HF_HOME=$WALK/hf_home
export T=$WALK/scratch
mkdir -p $T
[ -d $WALK/clone ] || git clone -q /tmp/wt_h150 $WALK/clone
cd $WALK/clone
