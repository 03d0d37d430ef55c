#!/bin/bash
# Command: cd /tmp/wt_h142 && benchmarks/results/ci_sigterm_kill_hang_2026-12-07/repeat_loop.sh BUSY LANES UNTIL OUT
# (h142, the hundred-and-twenty-sixth session.) pytest_loop.sh's runs of the test case, each lane one pytest process
# running it again and again (repeat_plugin.py: its data fixture made once) until UNTIL (HH:MM UTC), LANES lanes at
# once, beside BUSY busy loops (python3 -c "while True: pass" h142-busy-loop; ended by their ids as the script ends).
# One line a run in OUT (repeat_plugin.py); each lane's whole pytest output, its failure messages holding where each
# process stood 12 s after the stop began (tests/where_it_stood.py), kept beside this script where a run failed
# (failed_<time>_lane<N>.txt).
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
echo "# $busy busy loop(s) ${loops[*]}, $lanes lane(s) of repeat_plugin.py, until $until UTC; at" \
  "$(git rev-parse --short HEAD)" >> "$out"
mkdir -p /tmp/h142_loop
lanes_running=()
for n in $(seq "$lanes"); do
  (
    log=/tmp/h142_loop/repeat_lane$n.log
    LANE="lane $n" OUT="$out" UNTIL="$until" REPEAT=1000 PYTHONPATH="$here:$PWD" /work/main/.venv/bin/python -m pytest \
      -p repeat_plugin "$test" -q -p no:cacheprovider --basetemp="/tmp/h142_loop/repeat_lane$n" > "$log" 2>&1 \
      || cp "$log" "$here/failed_$(date -u +%H%M%S)_lane$n.txt"
  ) &
  lanes_running+=($!)
done
wait "${lanes_running[@]}"
