# The probes' environment: the package from the worktree under review (r131, main at 5f8b1fa0 before the fixes),
# the project's venv, a fresh cache, one thread a process, a scratch folder $T.
export PATH=/work/main/.venv/bin:$PATH PYTHONPATH=${PKG:-/tmp/wt_r131} XDG_CACHE_HOME=/tmp/r131_probe/xdg HF_HOME=/tmp/r131_probe/hf
export OMP_NUM_THREADS=1 T=/tmp/r131_probe/scratch
mkdir -p $T
