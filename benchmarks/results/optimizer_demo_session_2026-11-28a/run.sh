#!/bin/bash
# The demo's phantoms, network and 600 steps, trained with its AdamW + warm-up + cosine and with
# nnU-Net's recipe: SGD, lr 0.01, Nesterov momentum 0.99, weight decay 3e-5, poly decay, no warm-up.
cd /work/main
mkdir -p /tmp/optdemo
common="--train.progress_bar=false --train.trackers=none"
nnunet="--optim.optimizer=sgd --optim.lr=0.01 --optim.momentum=0.99 --optim.nesterov=true --optim.weight_decay=3e-5
        --optim.schedule=poly --optim.poly_exponent=0.9 --optim.warmup_steps=0 --optim.min_lr_ratio=0"
for run in adamw_cosine sgd_poly; do
  start=$SECONDS
  settings=""
  [ "$run" = sgd_poly ] && settings=$nnunet
  .venv/bin/accelerated-seg train --config configs/demo.yaml $settings --train.output_dir=/tmp/optdemo/$run $common \
    > /tmp/optdemo/$run.log 2>&1
  echo "$run rc=$? seconds=$((SECONDS - start))" >> /tmp/optdemo/done.txt
done
