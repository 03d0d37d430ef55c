#!/bin/bash
# Command: cd <worktree> && bash benchmarks/results/eighth_new_user_walk_2026-12-07/walk_4_scripts.sh \
#            > benchmarks/results/eighth_new_user_walk_2026-12-07/walk_4_scripts.txt 2>&1
# docs/testing.md: the benchmark scripts' --help in one fresh process (tests/scripts_help.py; "30 scripts now, every
# benchmarks/*.py but fsdp_on_cpu.py"), and harness_checks.py / inside_blocks.py refusing an unknown check "in 0.1 s"
# (the command of benchmarks/results/benchmark_scripts_usage_refusal_2cpu.json). .venv links the project's venv.
set -u
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD:$PWD/tests/startup ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS=1
scripts=$(ls benchmarks/*.py | grep -v fsdp_on_cpu.py)
echo "benchmarks/*.py: $(ls benchmarks/*.py | wc -l); but fsdp_on_cpu.py: $(echo $scripts | wc -w)"
/usr/bin/time -f "scripts_help.py over them: %e s wall %U s user" .venv/bin/python tests/scripts_help.py $scripts \
  > /tmp/h144_help.json
.venv/bin/python -c "
import json; d = json.load(open('/tmp/h144_help.json'))
ok = [s for s, a in d.items() if a['exit'] == 0 and 'usage:' in a['stdout']]
print(len(d), 'answered;', len(ok), 'with exit 0 and a usage:', sorted(set(d) - set(ok)) or 'none otherwise')"
for s in harness_checks inside_blocks; do
  /usr/bin/time -f "$s.py bogus benchmark train: exit %x, %e s wall" .venv/bin/python benchmarks/$s.py bogus benchmark train \
    2>&1 | tail -3
done
