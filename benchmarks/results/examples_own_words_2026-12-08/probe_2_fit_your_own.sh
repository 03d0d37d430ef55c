#!/bin/bash
# examples/fit_your_own.py run to its end on tiny data, run again (the refusal of a rerun), resumed with the same
# --epochs (what --resume latest does to a run that ended) and with more, and launched with an FSDP profile where there
# is no GPU, under the code of $1 (/work/main: before; the worktree: after). Output: probe_2_fit_your_own_<name>.txt
#   bash probe_2_fit_your_own.sh /work/main before > probe_2_fit_your_own_before.txt 2>&1
#   bash probe_2_fit_your_own.sh /tmp/wt_h154 after > probe_2_fit_your_own_after.txt 2>&1
CODE=$1; OUT=/tmp/h154_probe_fit_your_own_$2; rm -rf $OUT
PY="env PYTHONPATH=$CODE OMP_NUM_THREADS=2 /work/main/.venv/bin/python"
echo "== (a) run to its end: --epochs 1 --patch 32"
$PY $CODE/examples/fit_your_own.py --out $OUT --epochs 1 --patch 32 2>&1 | tail -1; echo "status ${PIPESTATUS[0]}"
echo "== (b) the same command again"
$PY $CODE/examples/fit_your_own.py --out $OUT --epochs 1 --patch 32 2>&1 | tail -1; echo "status ${PIPESTATUS[0]}"
echo "== (c) with --resume latest, as the refusal offered"
$PY $CODE/examples/fit_your_own.py --out $OUT --epochs 1 --patch 32 --resume latest 2>&1 | grep -E "resum|weights"
echo "status ${PIPESTATUS[0]}"
echo "== (d) with --resume latest and --epochs 2"
$PY $CODE/examples/fit_your_own.py --out $OUT --epochs 2 --patch 32 --resume latest 2>&1 | grep -E "resum|weights"
echo "status ${PIPESTATUS[0]}"
echo "== (e) an FSDP profile where there is no GPU (ACCELERATE_USE_FSDP=true): the strategy falls back"
ACCELERATE_USE_FSDP=true $PY $CODE/examples/fit_your_own.py --out $OUT --epochs 3 --patch 32 --resume latest 2>&1 \
  | grep -E "warning|error"; echo "status ${PIPESTATUS[0]}"
rm -rf $OUT
