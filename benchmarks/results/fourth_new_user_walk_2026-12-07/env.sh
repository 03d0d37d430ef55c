# The walk's environment: a fresh folder standing for a user's clone (configs/ and examples/ copied, the package
# from the worktree by PYTHONPATH), a fresh cache (XDG_CACHE_HOME) so nothing is reused from other sessions.
export WALK=/tmp/walk_h136
export H=/tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07
export PATH=/work/main/.venv/bin:$PATH PYTHONPATH=/tmp/wt_h136 XDG_CACHE_HOME=$WALK/xdg_cache OMP_NUM_THREADS=1
mkdir -p $WALK/clone && cp -rn /tmp/wt_h136/configs /tmp/wt_h136/examples $WALK/clone/ 2>/dev/null
cd $WALK/clone
# status: run a command as the page writes it, then say its exit status (the walk's notes read both)
st() { "$@"; echo "[status $?]"; }
