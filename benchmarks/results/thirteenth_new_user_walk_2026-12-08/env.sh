# The walk's environment: the package from the worktree by PYTHONPATH (as `pip install -e .` gives it), the project's
# venv, a fresh cache (XDG_CACHE_HOME, HF_HOME: no accelerate default config, nothing reused), one thread for torch,
# and a scratch folder $T, empty at the start, standing for the researcher's notebook folder.
export WALK=/tmp/walk_h153
export PATH=/work/main/.venv/bin:$PATH PYTHONPATH=/tmp/wt_h153 XDG_CACHE_HOME=$WALK/xdg_cache HF_HOME=$WALK/hf_home
export OMP_NUM_THREADS=1
export T=$WALK/scratch
export HERE=/tmp/wt_h153/benchmarks/results/thirteenth_new_user_walk_2026-12-08
mkdir -p $T
