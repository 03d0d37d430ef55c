#!/bin/sh
# The test of a main process killed on another node, with the surviving process's _end made to wait
# PROBE_END_DELAY_S before it reads the launch's store (widen/sitecustomize.py), as a loaded host can make it wait.
# Command (from the repository root): sh benchmarks/results/flaky_lost_at_once_2026-12-07/probe.sh > .../probe_<tree>.txt
HERE=$(cd "$(dirname "$0")" && pwd)
for delay in 0 3; do
  echo "== PROBE_END_DELAY_S=$delay"
  rm -f /tmp/probe_mark
  PROBE_MARK=/tmp/probe_mark PROBE_END_DELAY_S=$delay PYTHONPATH=$HERE/widen timeout 600 .venv/bin/python -m pytest -q -x -p no:cacheprovider \
    "tests/test_inference_distributed.py::test_a_process_killed_on_another_node_is_named_lost_at_once[0]" 2>&1 \
    | grep -E "^E +(AssertionError|assert|Right contains)|passed|failed" | cut -c1-300
  echo "_end reached on the surviving process: $(cat /tmp/probe_mark 2>/dev/null || echo no)"
done
