#!/bin/bash
# two busy loops beside the tests, then each test file twice
cd /tmp/wt_r77_main
OUT=/tmp/wt_r77/benchmarks/results/review_stop_bounds_2026-12-06/flaky_under_two_busy_loops.txt
echo '$ (2x python -c "while 1: pass" &) ; for i in 1 2: pytest -q tests/test_ranks_stop_together.py; pytest -q tests/test_inference_distributed.py -k "sigterm or stop or untold"  # main d42468c8 in /tmp/wt_r77_main, 2 shared cores' > $OUT
/work/main/.venv/bin/python -c "while 1: pass" & B1=$!
/work/main/.venv/bin/python -c "while 1: pass" & B2=$!
for i in 1 2; do
  echo "== run $i test_ranks_stop_together.py" >> $OUT
  PYTHONPATH=/tmp/wt_r77_main timeout 900 /work/main/.venv/bin/python -m pytest -q tests/test_ranks_stop_together.py 2>&1 | tail -5 >> $OUT
  echo "== run $i test_inference_distributed.py -k 'sigterm or stop or untold'" >> $OUT
  PYTHONPATH=/tmp/wt_r77_main timeout 900 /work/main/.venv/bin/python -m pytest -q tests/test_inference_distributed.py -k "sigterm or stop or untold" 2>&1 | tail -5 >> $OUT
done
kill $B1 $B2
echo done >> $OUT
