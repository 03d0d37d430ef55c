# The walk's environment: a fresh clone of this branch standing for a user's (git clone of /tmp/wt_h151, so configs/,
# benchmarks/ and its committed results are there as a user's clone has them), the package from that clone by
# PYTHONPATH (as `pip install -e .` would give it), the project's venv, a fresh cache (XDG_CACHE_HOME, HF_HOME: no
# accelerate default config, nothing reused from other sessions), one thread a process, and a scratch folder $T for
# the user's own data, experiment files and runs.
export WALK=/tmp/walk_h151
export PATH=/work/main/.venv/bin:$PATH PYTHONPATH=$WALK/clone XDG_CACHE_HOME=$WALK/xdg_cache HF_HOME=$WALK/hf_home
export OMP_NUM_THREADS=1
export T=$WALK/scratch
mkdir -p $T
[ -d $WALK/clone ] || git clone -q /tmp/wt_h151 $WALK/clone
cd $WALK/clone
