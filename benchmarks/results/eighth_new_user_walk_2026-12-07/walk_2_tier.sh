#!/bin/bash
# Command: cd <worktree> && bash benchmarks/results/eighth_new_user_walk_2026-12-07/walk_2_tier.sh \
#            > benchmarks/results/eighth_new_user_walk_2026-12-07/walk_2_tier.txt 2>&1
# docs/testing.md's first command on the distributed tier's first file (the launches the tests use:
# accelerate launch --multi_gpu --num_processes 2 under ACCELERATE_USE_CPU=true, gloo), as the page writes it but
# for the file; and the files behind design.md's claims of the sampler and validation, in one test process.
set -u
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
uptime
/usr/bin/time -f "%e s wall, %U s user" .venv/bin/python -m pytest -n 2 --dist worksteal tests/test_distributed.py \
  -p no:cacheprovider --durations=8 2>&1 | tail -16
/usr/bin/time -f "%e s wall, %U s user" .venv/bin/python -m pytest tests/test_sampling.py tests/test_validation.py \
  -q -p no:cacheprovider 2>&1 | tail -3
uptime
