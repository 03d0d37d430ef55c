# The walk's environment: a fresh folder standing for a user's clone (configs/ and examples/ copied, the package
# from the worktree by PYTHONPATH), a fresh cache (XDG_CACHE_HOME) so nothing is reused from other sessions.
export WALK=/tmp/walk_h137
export PATH=/work/main/.venv/bin:$PATH PYTHONPATH=/tmp/wt_h137 XDG_CACHE_HOME=$WALK/xdg_cache OMP_NUM_THREADS=1
mkdir -p $WALK/clone && cp -rn /tmp/wt_h137/configs /tmp/wt_h137/examples $WALK/clone/ 2>/dev/null
cd $WALK/clone
