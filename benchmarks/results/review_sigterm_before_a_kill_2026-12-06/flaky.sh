#!/bin/bash
# Command: cd /tmp/wt_r84 && benchmarks/results/review_sigterm_before_a_kill_2026-12-06/flaky.sh > .../flaky.txt
# The launched test of a job's SIGTERM just before a kill (its 4 cases: either process killed, before or after it
# answered the stop), 5 times beside a busy loop (the first run's output kept its summary alone; the second's keeps
# each failure's assertion too) (one core of 2 taken), on top of what the machine's others run.
cd /tmp/wt_r84
python3 -c "while True: pass" &
BUSY=$!
echo "busy loop pid $BUSY; $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg); at $(git rev-parse --short HEAD)"
for i in 1 2 3 4 5; do
  PYTHONPATH=/tmp/wt_r84 timeout 900 /work/main/.venv/bin/python -m pytest -q -p no:randomly -rA \
    "tests/test_inference_distributed.py" -k jobs_sigterm_just_before > /tmp/r84/flaky_run_$i.log 2>&1
  grep -E "^(PASSED|FAILED)|passed|failed|^E   +(AssertionError|assert)|^E +At index|^E +- |^E +\+ " /tmp/r84/flaky_run_$i.log \
    | cut -c1-400
  echo "run $i done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
done
kill $BUSY
