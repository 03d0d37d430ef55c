# The walk's environment: a fresh folder standing for a user's clone (configs/ copied, the package from the worktree
# by PYTHONPATH), a fresh cache (XDG_CACHE_HOME) so nothing is reused from other sessions.
export WALK=/tmp/walk_h138
export PATH=/work/main/.venv/bin:$PATH PYTHONPATH=/tmp/wt_h138 XDG_CACHE_HOME=$WALK/xdg_cache OMP_NUM_THREADS=1
export HERE=/tmp/wt_h138/benchmarks/results/sixth_new_user_walk_2026-12-07
mkdir -p $WALK/clone && cp -rn /tmp/wt_h138/configs $WALK/clone/ 2>/dev/null
cd $WALK/clone
