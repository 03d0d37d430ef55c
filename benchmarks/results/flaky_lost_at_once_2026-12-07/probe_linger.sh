#!/bin/sh
# The test of a main process killed on another node, with node 0's agent (which keeps the launch's store) made to
# hold PROBE_AGENT_LINGER_S after its worker's failure before it ends (so the surviving process's publish lands while
# the store lives and its watcher reaches _end), and the surviving process's _end made to wait PROBE_END_DELAY_S
# before it reads the store (so the store ends in between, as a loaded host can make it): widen/sitecustomize.py.
# Command (from the repository root):
#   PYTHON=/work/main/.venv/bin/python RUNS=3 sh benchmarks/results/flaky_lost_at_once_2026-12-07/probe_linger.sh \
#     > benchmarks/results/flaky_lost_at_once_2026-12-07/probe_linger_<tree>.txt
HERE=$(cd "$(dirname "$0")" && pwd)
for widening in "0 0" "0 3" "3 0" "3 5"; do
  set -- $widening
  echo "== PROBE_AGENT_LINGER_S=$1 PROBE_END_DELAY_S=$2"
  for run in $(seq "${RUNS:-3}"); do
    rm -f /tmp/probe_mark
    PROBE_MARK=/tmp/probe_mark PROBE_AGENT_LINGER_S=$1 PROBE_END_DELAY_S=$2 PYTHONPATH=$HERE/widen timeout 600 \
      "${PYTHON:-.venv/bin/python}" -m pytest -q -x -p no:cacheprovider -p probe_plugin \
      "tests/test_inference_distributed.py::test_a_process_killed_on_another_node_is_named_lost_at_once[0]" 2>&1 \
      | grep -E "^E +(AssertionError|assert|Right contains|  exitcode|  error_file)|passed|failed" | cut -c1-200
    echo "marks: $(tr '\n' ';' < /tmp/probe_mark 2>/dev/null || echo none)"
  done
done
