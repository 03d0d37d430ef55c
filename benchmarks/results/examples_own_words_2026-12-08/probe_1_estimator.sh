#!/bin/bash
# examples/estimator.py's fit's warnings and refusals of settings it has no flag for, and its rerun over a run that
# ended, under the code of $1 (/work/main: before; the worktree: after). Output: probe_1_estimator_<name>.txt
#   bash probe_1_estimator.sh /work/main before > probe_1_estimator_before.txt 2>&1
#   bash probe_1_estimator.sh /tmp/wt_h154 after > probe_1_estimator_after.txt 2>&1
CODE=$1; OUT=/tmp/h154_probe_estimator_$2; rm -rf $OUT
PY="env PYTHONPATH=$CODE OMP_NUM_THREADS=2 /work/main/.venv/bin/python"
HERE=$(dirname "$0")
echo "== (a) launched in bf16 on a CPU without bf16 instructions, --patch 32 (2 voxels deep), --steps 1"
ACCELERATE_MIXED_PRECISION=bf16 $PY $HERE/without_bf16.py $CODE/examples/estimator.py --out $OUT/a --steps 1 \
  --patch 32 2>&1 | grep -E "warning|error|trained" ; echo "status ${PIPESTATUS[0]}"
echo "== (b) the same command again: the run ended"
$PY $CODE/examples/estimator.py --out $OUT/a --steps 1 --patch 32 2>&1 | tail -2; echo "status ${PIPESTATUS[0]}"
echo "== (c) --patch 512 on the 64x64x48 phantoms: a step beyond host memory"
$PY $CODE/examples/estimator.py --out $OUT/c --steps 1 --patch 512 2>&1 | grep -E "warning|error"; echo "status ${PIPESTATUS[0]}"
echo "== (d) an FSDP profile where there is no GPU (ACCELERATE_USE_FSDP=true): the strategy falls back"
ACCELERATE_USE_FSDP=true $PY $CODE/examples/estimator.py --out $OUT/d --steps 1 --patch 32 2>&1 | grep -E "warning|error"
echo "status ${PIPESTATUS[0]}"
rm -rf $OUT
