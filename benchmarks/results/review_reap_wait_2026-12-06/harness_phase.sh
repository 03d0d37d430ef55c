#!/bin/bash
# Command: cd /tmp/wt_r78 && benchmarks/results/review_reap_wait_2026-12-06/harness_phase.sh RUNS
# Review of h87 (r78): with peer_death's wait for the reap turned OFF (its call removed, the file put back after), how
# often does the agent's first look still find the killed process alone (the table RIGHT, so the launched test passes
# without the fix)? h87's probe killed_in_predict.py (2 processes, process 1 killed as it comes to the last wait), the
# agent's looks each held 1 s late (AGENT_LATE_S=1, h87's test) against its first look after the kill held until
# 1.5 s after it (AGENT_AFTER_THE_KILL_S=1.5, r78's test).
cd /tmp/wt_r78
H=benchmarks/results/predict_killed_first_failure_2026-12-06
cp accelerated_seg/peer_death.py /tmp/r78_pd.keep2
python3 -c "
p='accelerated_seg/peer_death.py'; s=open(p).read()
open(p,'w').write(s.replace('    _reaped_by_the_agent(beside)\n    end_at_once()','    end_at_once()'))"
git diff --stat accelerated_seg
AGENT_LATE_S=1 PYTHONPATH=/tmp/wt_r78 timeout 900 /work/main/.venv/bin/python $H/killed_in_predict.py $1 last_wait 1 \
  | grep -E "^#|^run" | sed -E 's/; said .*//'
echo "# AGENT_AFTER_THE_KILL_S=1.5 (r78's harness)"
AGENT_AFTER_THE_KILL_S=1.5 PYTHONPATH=/tmp/wt_r78 timeout 900 /work/main/.venv/bin/python $H/killed_in_predict.py $1 \
  last_wait 1 | grep -E "^#|^run" | sed -E 's/; said .*//'
cp /tmp/r78_pd.keep2 accelerated_seg/peer_death.py
git diff --stat accelerated_seg
