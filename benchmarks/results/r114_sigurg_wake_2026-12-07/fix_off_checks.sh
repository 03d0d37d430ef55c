#!/bin/bash
# Run: bash fix_off_checks.sh > fix_off_checks.txt 2>&1   (WT = the worktree)
# Each test of h129's said to fail with its fix off, run on a copy of the worktree with that fix turned off.
WT=${WT:-/tmp/wt_r114}; PY=/work/main/.venv/bin/python; C=/tmp/r114/fix_off
run() {  # $1: file, $2: the line to change, $3: its replacement, $4: pytest's -k
  rm -rf $C && mkdir -p $C && cp -r $WT/accelerated_seg $WT/tests $C/ && cp $WT/pyproject.toml $C/
  $PY - "$C/$1" "$2" "$3" <<'PYEOF'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
assert text.count(old) == 1, old
open(path, "w").write(text.replace(old, new))
PYEOF
  echo "## $1: '$2' -> '$3'"
  (cd $C && PYTHONPATH=$C timeout 600 $PY -m pytest -q -p no:cacheprovider \
    tests/${5:-test_launched_sigterm.py} -k "$4" 2>&1 \
    | grep -E "^E  |^(FAILED|PASSED|ERROR)|passed|failed" | cut -c1-300 | tail -8)
}
# the wake never installed (as where SIGURG has a handler of the caller's)
run accelerated_seg/launched_sigterm.py "    if (WAKE is None or threading" \
  "    if (True or WAKE is None or threading" sigint
# the watcher gives up at a refusal only after GIVE_UP_AFTER_S, as at a network down
run accelerated_seg/ranks_stop_together.py "if reconnected is False or (reconnected is None" \
  "if reconnected is False and time.monotonic() - failing_since > GIVE_UP_AFTER_S or (reconnected is None" \
  gives_up_at_once_where_the_stores_host test_ranks_stop_together.py
# r114's tests: the held SIGINT's (fails with the wake off) and the caller's SIGURG handler's (a guard: passes)
run accelerated_seg/launched_sigterm.py "    if (WAKE is None or threading" \
  "    if (True or WAKE is None or threading" \
  "held_sigint or callers_on_the_wake"
# r114's fix: the wake's byte not passed on to the earlier wakeup fd (turned off: passed on, as at main)
run accelerated_seg/launched_sigterm.py "if number not in not_passed_on))" "if number != 0))" not_the_wakes
