#!/bin/bash
# A cache in a folder named in Latin-1 with the temporary folder (TMPDIR) full: a 64 KiB tmpfs holding a 60 KiB file
# (as root: mount -t tmpfs -o size=64k tmpfs <small>; dd if=/dev/zero of=<small>/fill bs=1k count=60). At main
# c59329d6 the case table was generated and saved there and moved into the cache; on branch r110 it is written in
# the cache by its tables folder's /proc/self/fd name. Then what is left in the cache and in TMPDIR. Command:
#   bash benchmarks/results/latin1_paths_review_2026-12-07/table_with_tmpdir_full.sh <package folder> <small> \
#     > .../table_with_tmpdir_full_<main|after>.txt 2>&1
P=$1; SMALL=$2; T=$(mktemp -d); cd $T
PY=/work/main/.venv/bin/python
PYTHONPATH=$P $PY -m accelerated_seg synth data --cases 3 --validation 1 > /dev/null
printf 'data:\n  dataset: %s/data/dataset.json\n  patch_size: [16, 16, 16]\n  num_workers: 0\nmodel:\n  name: unet\n  args: {channels: [4, 8], strides: [2], num_res_units: 0}\noptim: {warmup_steps: 0}\ntrain: {max_steps: 1, val_every: 1, save_every: 1, batch_size: 1, output_dir: run, trackers: none}\n' $T > tiny.yaml
W=$T/$'\xe9tude'; mkdir "$W"; cd "$W"
TMPDIR=$SMALL PYIONENCODING=utf-8:strict PYTHONIOENCODING=utf-8:strict OMP_NUM_THREADS=1 PYTHONPATH=$P \
  $PY -m accelerated_seg train --config $T/tiny.yaml --data.cache_dir=cache > out.txt 2>&1
echo "[train, TMPDIR full] status $?"
tr '\r' '\n' < out.txt | grep -a -v "it/s\|s/it\|^\s*$" | tail -3 | sed "s|$T|TMP|g; s/^/    /"
ls -ab cache/*/*/tables | sed 's/^/    tables: /'
ls -a $SMALL | sed 's/^/    TMPDIR: /'
du -sk cache/*/*/tables | sed "s|^|    |"
rm -rf $T
