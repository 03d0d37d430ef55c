#!/bin/bash
# Command: cd /tmp/wt_h142 && benchmarks/results/ci_sigterm_kill_hang_2026-12-07/pytest_loop.sh BUSY LANES UNTIL OUT
# (h142, the hundred-and-twenty-sixth session.) The test case itself, as CI runs it (a pytest process each run, its
# data fixture made again), in a loop until UNTIL (date's HH:MM, UTC: no run begins after it), LANES loops at once
# (as pytest -n 2 runs two tests at once), beside BUSY busy loops (python3 -c "while True: pass" h142-busy-loop, so
# that `pgrep -f h142-busy` finds them; ended by their own ids as the script ends), on top of what the machine's other
# sessions run. Each run's outcome, its time, the load and the "stood.*" files left in its folder (a passing run
# leaves none: tests/where_it_stood.py) go to OUT, one line a run; a failing run's whole output, its failure message
# holding where each process stood 12 s after the stop began, to failed_<time>_lane<N>.txt beside this script.
busy=$1
lanes=$2
until=$3
out=$4
here="$(cd "$(dirname "$0")" && pwd)"
test="tests/test_inference_distributed.py::test_a_jobs_sigterm_just_before_a_process_is_killed_ends_the_launch_at_once_naming_both[1 after it answered]"
loops=()
for _ in $(seq "$busy"); do
  python3 -c "while True: pass" h142-busy-loop &
  loops+=($!)
done
trap '[ ${#loops[@]} -gt 0 ] && kill "${loops[@]}"' EXIT
echo "# $busy busy loop(s) ${loops[*]}, $lanes lane(s), until $until UTC; at $(git rev-parse --short HEAD)" >> "$out"

lane() {
  local n=$1 run=0 base="/tmp/h142_loop/lane$1"
  while [[ "$(date -u +%H:%M)" < "$until" ]]; do
    run=$((run + 1))
    local start=$SECONDS log="/tmp/h142_loop/lane$n.log"
    mkdir -p "$base"
    PYTHONPATH=$PWD /work/main/.venv/bin/python -m pytest "$test" -q -p no:cacheprovider --basetemp="$base" \
      > "$log" 2>&1
    local rc=$? took=$((SECONDS - start)) left
    left=$(find "$base" -name 'stood.*' | wc -l)
    echo "lane $n run $run: $([ $rc -eq 0 ] && echo passed || echo "FAILED rc=$rc") in ${took} s; load" \
      "$(cut -d' ' -f1-3 /proc/loadavg); stood files left $left; ended $(date -u +%H:%M:%S)" >> "$out"
    if [ $rc -ne 0 ]; then
      cp "$log" "$here/failed_$(date -u +%H%M%S)_lane$n.txt"
    fi
  done
}

lanes_running=()
for n in $(seq "$lanes"); do
  lane "$n" &
  lanes_running+=($!)
done
wait "${lanes_running[@]}"
