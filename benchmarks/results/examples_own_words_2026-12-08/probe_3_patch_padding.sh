#!/bin/bash
# Whether examples/estimator.py's fit warns of a patch longer than its phantoms (data/patch_fit.py, whose suggestion
# is a block_shape of three sizes, which --patch cannot give), at the default --patch 64 and at --patch 96, under the
# code of $1 (/work/main: before; the worktree: after). Output: probe_3_patch_padding_<name>.txt
#   bash probe_3_patch_padding.sh /work/main before > probe_3_patch_padding_before.txt 2>&1
#   bash probe_3_patch_padding.sh /tmp/wt_h154 after > probe_3_patch_padding_after.txt 2>&1
CODE=$1; OUT=/tmp/h154_probe_padding_$2; rm -rf $OUT
PY="env PYTHONPATH=$CODE OMP_NUM_THREADS=2 /work/main/.venv/bin/python"
for patch in 64 96; do
  echo "== --patch $patch --steps 1"
  $PY $CODE/examples/estimator.py --out $OUT/$patch --steps 1 --patch $patch 2>&1 | grep -E "warning|error" \
    | grep -v warmup_steps; echo "status ${PIPESTATUS[0]}"
done
rm -rf $OUT
