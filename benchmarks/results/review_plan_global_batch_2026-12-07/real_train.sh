#!/bin/bash
# Run: cd /tmp/wt_r129 && bash benchmarks/results/review_plan_global_batch_2026-12-07/real_train.sh > benchmarks/results/review_plan_global_batch_2026-12-07/real_train_<when>.txt 2>&1
# The demo config with train.grad_accum_steps: 2 (a copy in $T): what a real one-process CPU train says of a global
# batch of 6 (2 x 1 x 2 = 4 splits), against plan --config of the same on --gpus 1 --global-batch 6, and of 3.
T=$(mktemp -d)
sed 's/^  batch_size: 2$/  batch_size: 2\n  grad_accum_steps: 2/' configs/demo.yaml > $T/demo_accum.yaml
grep -n "grad_accum_steps" $T/demo_accum.yaml
export OMP_NUM_THREADS=1 PYTHONPATH=.
for G in 6 3; do
  echo "== train --train.global_batch_size=$G (1 process)"
  start=$(date +%s.%N)
  timeout 300 /work/main/.venv/bin/accelerated-seg train --config $T/demo_accum.yaml --train.global_batch_size=$G \
      --train.max_steps=1 --train.output_dir=$T/run$G 2>&1 | grep -v "^\s*$" | tail -3
  echo "status ${PIPESTATUS[0]}, $(echo "$(date +%s.%N) - $start" | bc) s"
  echo "== plan --gpus 1 --global-batch $G"
  start=$(date +%s.%N)
  /work/main/.venv/bin/accelerated-seg plan --config $T/demo_accum.yaml --gpus 1 --global-batch $G 2>&1 | tail -3
  echo "status ${PIPESTATUS[0]}, $(echo "$(date +%s.%N) - $start" | bc) s"
done
rm -rf $T
