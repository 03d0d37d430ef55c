#!/bin/bash
# An ORDINARY cache (ASCII, and a UTF-8 name: d\xc3\xa9j\xc3\xa0) built by main ce2bcde4 (before h126), then trained
# against by main HEAD's code (or the review's): its cases reused and its case table reused, nothing rebuilt; the
# dataset folder's and table's names listed before and after (the same keys). Command:
#   bash benchmarks/results/latin1_paths_review_2026-12-07/cache_reuse.sh <old package folder> <new package folder> \
#     > benchmarks/results/latin1_paths_review_2026-12-07/cache_reuse.txt 2>&1
OLD=$1; NEW=$2; T=$(mktemp -d); cd $T
PY=/work/main/.venv/bin/python
PYTHONPATH=$NEW $PY -m accelerated_seg synth data --cases 3 --validation 1 > /dev/null
printf 'data:\n  dataset: %s/data/dataset.json\n  patch_size: [16, 16, 16]\n  num_workers: 0\nmodel:\n  name: unet\n  args: {channels: [4, 8], strides: [2], num_res_units: 0}\noptim: {warmup_steps: 0}\ntrain: {max_steps: 1, val_every: 1, save_every: 1, batch_size: 1, trackers: none}\n' $T > tiny.yaml
for place in ascii "déjà"; do
  mkdir "$T/$place"; cd "$T/$place"
  for who in OLD NEW; do
    P=${!who}
    OMP_NUM_THREADS=1 PYTHONPATH=$P $PY -m accelerated_seg train --config $T/tiny.yaml --data.cache_dir=cache \
      --train.output_dir=run_$who > out.txt 2>&1
    echo "[$place: train with $who] status $?"
    tr '\r' '\n' < out.txt | grep -a "preprocessed cache\|case table\|trained to\|rror" | sed "s|$T|TMP|g; s/^/    /"
    (cd cache && find . -path '*tables/*' -maxdepth 4 -mindepth 4 -o -name 'source.txt' | sort | sed 's/^/    /')
    (cd cache && find . -name 'source.txt' -exec md5sum {} \; | sed 's/^/    /')
  done
done
rm -rf $T
