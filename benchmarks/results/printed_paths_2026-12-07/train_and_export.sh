#!/bin/bash
# train in a working folder named in Latin-1 (a setting's value is YAML, which takes no such byte), then export its
# checkpoint into a folder named in Latin-1, under a strict terminal (PYTHONIOENCODING=utf-8:strict). Command:
#   bash benchmarks/results/printed_paths_2026-12-07/train_and_export.sh <package folder> > <out>.txt 2>&1
# (train_and_export_before.txt with /tmp/h124_main, main ce2bcde4's accelerated_seg; _after.txt with /tmp/wt_h124)
P=$1; T=$(mktemp -d); cd $T
PYTHONPATH=$P /work/main/.venv/bin/python -m accelerated_seg synth data --cases 3 --validation 1 > /dev/null
printf 'data:\n  dataset: %s/data/dataset.json\n  patch_size: [16, 16, 16]\n  num_workers: 0\nmodel:\n  name: unet\n  args: {channels: [4, 8], strides: [2], num_res_units: 0}\noptim: {warmup_steps: 0}\ntrain: {max_steps: 2, val_every: 2, save_every: 2, batch_size: 1, output_dir: run}\n' $T > tiny.yaml
mkdir $'\xe9tude'; cd $'\xe9tude'
for cache in "$T/cache" cache; do
  PYTHONIOENCODING=utf-8:strict OMP_NUM_THREADS=1 PYTHONPATH=$P /work/main/.venv/bin/python -m accelerated_seg train \
    --config $T/tiny.yaml --data.cache_dir=$cache --train.overwrite=true > out.txt 2>&1
  echo "[train, its run folder in the Latin-1 working folder, data.cache_dir=${cache/$T/TMP}] status $?"
  grep -a -v "it/s" out.txt | tail -2 | sed "s|$T|TMP|g; s/^/    /"
done
PYTHONIOENCODING=utf-8:strict PYTHONPATH=$P /work/main/.venv/bin/python -m accelerated_seg export run/checkpoints/step_2 \
  --output $T/$'mod\xe8le' > out.txt 2>&1
echo "[export <checkpoint> --output <Latin-1 folder>] status $?"
tail -1 out.txt | sed "s|$T|TMP|g; s/^/    /"
rm -rf $T
