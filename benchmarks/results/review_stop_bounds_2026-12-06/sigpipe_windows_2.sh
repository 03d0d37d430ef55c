#!/bin/bash
D=/tmp/wt_r77/benchmarks/results/review_stop_bounds_2026-12-06
/work/main/.venv/bin/python -c "while 1: pass" & B1=$!
/work/main/.venv/bin/python -c "while 1: pass" & B2=$!
for i in 1 2 3; do
  for T in /tmp/wt_r77 /tmp/wt_r77_main; do
    echo "== run $i $T" >> $D/sigpipe_windows_2.txt
    (cd $T && PYTHONPATH=$T timeout 600 /work/main/.venv/bin/python -m pytest -q -p no:cacheprovider tests/test_inference_distributed.py -k "reader_goes_away and windows-2" > /tmp/r77_sigpipe_${i}_$(basename $T).log 2>&1)
    grep -E "passed|failed" /tmp/r77_sigpipe_${i}_$(basename $T).log | tail -1 >> $D/sigpipe_windows_2.txt
  done
done
kill $B1 $B2
echo done >> $D/sigpipe_windows_2.txt
