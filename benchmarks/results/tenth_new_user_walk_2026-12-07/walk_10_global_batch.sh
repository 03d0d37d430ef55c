# bash walk_10_global_batch.sh > walk_10_global_batch.txt 2>&1
# The fault walk 8 led to: with --config, --global-batch did not win over the config's train.global_batch_size for
# the table's per-GPU batch ("Options on the command line win over the config"). Run before the fix (the walk's
# clone, at the branch's first commit) and after (this worktree's package by PYTHONPATH).
source /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/env.sh
for where in $WALK/clone /tmp/wt_h150; do
  echo "=== package from $where ($(git -C $where log --oneline -1 | cut -c1-60))"
  export PYTHONPATH=$where
  set -x
  cat $T/mine.yaml $T/both.yaml
  # the config's global batch 16; the run at --global-batch 64 on 8 GPUs trains 8 per GPU
  accelerated-seg plan --config $T/mine.yaml --gpus 8 --global-batch 64 | sed -n '1,4p'; echo "status ${PIPESTATUS[0]}"
  # 16 does not split over 3 GPUs, the 12 given does (4 per GPU)
  accelerated-seg plan --config $T/mine.yaml --gpus 3 --global-batch 12 | sed -n '1p'; echo "status ${PIPESTATUS[0]}"
  # the config's batch_size 2 with --global-batch 24 on 8 GPUs: training refuses 24 = 2 x 8 x 1.5
  accelerated-seg plan --config $T/both.yaml --gpus 8 --global-batch 24 | sed -n '1,2p'; echo "status ${PIPESTATUS[0]}"
  # training's own split of those settings (schedule.resolve_batch, as train calls it; the data is not here)
  python -c "from accelerated_seg.schedule import resolve_batch as r; print(r(None, 64, None, 8, 1e-3, 2, 'none'))"
  python -c "from accelerated_seg.schedule import resolve_batch as r; r(2, 24, None, 8, 1e-3, 2, 'none')" 2>&1 | tail -1
  set +x
done
