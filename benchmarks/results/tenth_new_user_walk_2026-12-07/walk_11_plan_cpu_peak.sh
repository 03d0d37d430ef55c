# bash walk_11_plan_cpu_peak.sh > walk_11_plan_cpu_peak.txt 2>&1
# docs/planning.md's `PYTHONPATH=. python benchmarks/plan_cpu_peak.py`, as written, in the walk's clone (it rewrites
# the clone's copy of benchmarks/results/plan_cpu_peak_2cpu.json, not this branch's): timed, its ratios against the
# page's 1.34x, 1.35x, 1.13x. 16 GB of address space per process.
source /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/env.sh
ulimit -v 16000000
set -x
uptime
time PYTHONPATH=. python benchmarks/plan_cpu_peak.py; echo "status $?"
git status --short benchmarks/results/
git diff --stat
