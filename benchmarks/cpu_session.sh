#!/bin/bash
# The CPU measurements every session commits (issue 6: our loop's overhead ratio and the 2-process
# efficiency), in one command, on a machine nothing else is using:
#
#   1. record_train_cpu.sh, one repeat: ours/plain at unet 64^3, small 32^3 and tiny 16^3 (the fixed
#      cost per step), in 1 and 2 processes, and bf16 at 64^3 where the CPU has bf16 instructions;
#   2. scaling_projection.py on the 64^3 pair: the measured 2-process efficiency, checked against the
#      projection from the measured all-reduce;
#   3. cpu_contention_control.sh, three repeats: DDP against the solo runs around it and against two
#      independent jobs sharing the cores (the 2-process figure of 1. compares runs minutes apart);
#   4. cpu_history.py: the table of every session's figures, this one's last row, to paste over
#      docs/performance_cpu_sessions.md's "Every session at a glance" (tests/test_cpu_history.py holds them equal).
#
#   SESSION=2026-11-24p PYTHON=.venv/bin/python bash benchmarks/cpu_session.sh    # ~21 minutes on 2 cores (12-37)
#
# Writes benchmarks/results/train_2cpu/session_$SESSION/ (with record.log),
# benchmarks/results/ddp_scaling_2cpu_unet64_session_$SESSION.json and
# benchmarks/results/cpu_contention/session_$SESSION/r{1,2,3}/.
set -eo pipefail
cd "$(dirname "$0")/.."
: "${SESSION:?name the results of this session, e.g. SESSION=2026-11-24p (date and a letter)}"
PY=${PYTHON:-python}
RECORD=benchmarks/results/train_2cpu/session_$SESSION
CONTROL=benchmarks/results/cpu_contention/session_$SESSION
SCALING=benchmarks/results/ddp_scaling_2cpu_unet64_session_$SESSION.json
# never mix two sessions' runs in one folder, nor write over another session's efficiency (unchecked, and
# replaced once this session's runs were done, until the ninety-first session)
if [ -e "$RECORD" ] || [ -e "$CONTROL" ] || [ -e "$SCALING" ]; then
  echo "error: $RECORD, $CONTROL or $SCALING exists already; choose another SESSION" >&2
  exit 2
fi
mkdir -p "$RECORD"
OUT=$RECORD REPEATS=1 PYTHON=$PY bash benchmarks/record_train_cpu.sh 2>&1 | tee "$RECORD/record.log"
$PY benchmarks/scaling_projection.py --one "$RECORD/unet64_1proc_r1.json" --measured "$RECORD/unet64_2proc_r1.json" \
    --output "$SCALING"
for r in 1 2 3; do
  mkdir -p "$CONTROL/r$r"
  OUT=$CONTROL/r$r PYTHON=$PY bash benchmarks/cpu_contention_control.sh 2>&1 | tee "$CONTROL/r$r/record.log"
done
$PY benchmarks/cpu_history.py
# where the table goes: a session that pasted it elsewhere (performance.md held it until the
# hundred-and-twenty-first session) leaves the test of the table red
echo "paste the table above over docs/performance_cpu_sessions.md's \"Every session at a glance\"" >&2
