#!/bin/bash
# Command: cd /tmp/wt_h142 && benchmarks/results/ci_sigterm_kill_hang_2026-12-07/timing.sh RUNS > .../timing.txt
# (h142, the hundred-and-twenty-sixth session.) The test case's own time (pytest's "call", the data fixture apart)
# before h142's change (main's tests/, unpacked into /tmp/h142_before) and after it (this checkout's), RUNS times each,
# taking turns, the package this checkout's for both; and the "stood.*" files each passing run leaves (none expected).
runs=$1
test="tests/test_inference_distributed.py::test_a_jobs_sigterm_just_before_a_process_is_killed_ends_the_launch_at_once_naming_both[1 after it answered]"
rm -rf /tmp/h142_before && mkdir -p /tmp/h142_before /tmp/h142_timing
git archive main tests pyproject.toml | tar -x -C /tmp/h142_before
echo "# main $(git rev-parse --short main) against $(git rev-parse --short HEAD) (+ what is not committed); $runs run(s) each"
for run in $(seq "$runs"); do
  for which in before after; do
    dir=$PWD
    [ $which = before ] && dir=/tmp/h142_before
    base=/tmp/h142_timing/$which
    line=$(cd "$dir" && PYTHONPATH=/tmp/wt_h142 /work/main/.venv/bin/python -m pytest "$test" -q -p no:cacheprovider \
      --basetemp="$base" --durations=0 --durations-min=0 2>&1 | grep -E " call | passed| failed")
    echo "run $run $which: $(echo "$line" | tr '\n' ' '); load $(cut -d' ' -f1 /proc/loadavg);" \
      "stood files left $(find "$base" -name 'stood.*' | wc -l)"
  done
done
