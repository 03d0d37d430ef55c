#!/bin/bash
# The lead's own pair of this session (2026-12-08a, one commit) and the last session's one process against this
# session's two, through this tree's scaling_projection.py (h155): its last line of stdout, all of its stderr (a
# warning or the error) and its exit status. From the worktree's root:
#   bash benchmarks/results/scaling_sessions_2026-12-08/this_session.sh > benchmarks/results/scaling_sessions_2026-12-08/this_session.txt 2>&1
S=/work/main/benchmarks/results/train_2cpu/session_2026-12-08a
H=benchmarks/results/train_2cpu/session_2026-12-07h
PY=${PYTHON:-/work/main/.venv/bin/python}
project() {
  local out err
  out=$(mktemp) err=$(mktemp)
  PYTHONPATH=$PWD $PY benchmarks/scaling_projection.py "$@" > "$out" 2> "$err"
  echo "exit $?"; tail -1 "$out"; cat "$err"; rm -f "$out" "$err"
}
echo "== this session's pair"
project --one $S/unet64_1proc_r1.json --measured $S/unet64_2proc_r1.json
echo "== the session 2026-12-07h's one process against 2026-12-08a's two"
project --one $H/unet64_1proc_r1.json --measured $S/unet64_2proc_r1.json
echo "== the session 2026-12-07h's own pair (its runs at 64d73a92 and 82aaa70d, docs alone between)"
project --one $H/unet64_1proc_r1.json --measured $H/unet64_2proc_r1.json
