#!/bin/bash
# $1: out dir; rest: extra args
OUT=$1; shift
OMP_NUM_THREADS=1 exec /work/main/.venv/bin/python /work/main/examples/kfold_ensemble.py --folds 3 --cases 9 --test-cases 3 --out $OUT --data.spacing=[3,3,3] --data.patch_size=[16,16,16] --train.max_steps=600 --optim.warmup_steps=5 --train.val_every=100 --train.save_every=100 --train.log_every=50 --data.cache_dir=/tmp/probe_kfold/cache --model.args='{channels: [8,16,32], strides: [2,2], num_res_units: 1}' --data.num_workers=0 "$@"
