#!/bin/bash
# Training with loader workers (data.num_workers=2: the fork server's workers, which receive the case table pickled)
# on a cache in a folder named in Latin-1 (h126's probe trained with num_workers 0 alone); then 2 launched CPU ranks
# (ACCELERATE_USE_CPU, --multi_gpu --num_processes 2) into an absolute run folder so named, TensorBoard on, and their
# resume. Command:
#   bash benchmarks/results/latin1_paths_review_2026-12-07/workers.sh <package folder> > .../workers.txt 2>&1
P=$1; T=$(mktemp -d); cd $T
PY=/work/main/.venv/bin/python
run() {  # run <label> <command...>
  label=$1; shift
  PYTHONIOENCODING=utf-8:strict OMP_NUM_THREADS=1 PYTHONPATH=$P "$@" > out.txt 2>&1
  echo "[$label] status $?"
  echo "    closing lines: $(tr "\r" "\n" < out.txt | grep -ac "^trained to step")"
  tr '\r' '\n' < out.txt | grep -a -v "it/s\|s/it\|^\s*$" | tail -4 | sed "s|$T|TMP|g; s/^/    /"
}
PYTHONPATH=$P $PY -m accelerated_seg synth data --cases 3 --validation 1 > /dev/null
printf 'data:\n  dataset: %s/data/dataset.json\n  patch_size: [16, 16, 16]\n  num_workers: 2\nmodel:\n  name: unet\n  args: {channels: [4, 8], strides: [2], num_res_units: 0}\noptim: {warmup_steps: 0}\ntrain: {max_steps: 2, val_every: 2, save_every: 1, batch_size: 1, output_dir: run}\n' $T > tiny.yaml
W=$T/$'\xe9tude'; mkdir "$W"; cd "$W"
run "train, 2 loader workers, cache_dir=cache" $PY -m accelerated_seg train --config $T/tiny.yaml --data.cache_dir=cache
ls -b cache/*/*/tables | sed 's/^/    tables: /'
run "2 launched CPU ranks, output_dir=TMP/\\xe9tude/r\\xe9sultats" env ACCELERATE_USE_CPU=true \
  $PY -m accelerate.commands.launch --multi_gpu --num_processes 2 -m accelerated_seg train --config $T/tiny.yaml \
  --data.cache_dir=cache "--train.output_dir=$W/"$'r\xe9sultats'
run "their resume to 3 steps" env ACCELERATE_USE_CPU=true \
  $PY -m accelerate.commands.launch --multi_gpu --num_processes 2 -m accelerated_seg train --config $T/tiny.yaml \
  --data.cache_dir=cache "--train.output_dir=$W/"$'r\xe9sultats' --train.max_steps=3 --resume latest
ls -b "$W/"$'r\xe9sultats'/train | sed 's/^/    train: /'
rm -rf $T
