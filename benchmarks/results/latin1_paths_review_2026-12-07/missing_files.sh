#!/bin/bash
# What a user sees where a file of a checkpoint is missing or damaged, in a run folder named in ASCII and in one
# named in Latin-1 (read by its /proc/self/fd name, files.by_a_utf8_name): resume with optimizer.bin gone, with
# model.safetensors cut to 100 bytes; export of that checkpoint. Command:
#   bash benchmarks/results/latin1_paths_review_2026-12-07/missing_files.sh <package folder> > .../missing_files.txt 2>&1
P=$1; T=$(mktemp -d); cd $T
PY=/work/main/.venv/bin/python
run() {  # run <label> <args...>
  label=$1; shift
  PYTHONIOENCODING=utf-8:strict OMP_NUM_THREADS=1 PYTHONPATH=$P $PY -m accelerated_seg "$@" > out.txt 2>&1
  echo "[$label] status $?"
  tr '\r' '\n' < out.txt | grep -a -v "it/s\|s/it\|^\s*$" | tail -3 | sed "s|$T|TMP|g; s/^/    /"
}
PYTHONPATH=$P $PY -m accelerated_seg synth data --cases 3 --validation 1 > /dev/null
printf 'data:\n  dataset: %s/data/dataset.json\n  patch_size: [16, 16, 16]\n  num_workers: 0\n  cache_dir: %s/cache\nmodel:\n  name: unet\n  args: {channels: [4, 8], strides: [2], num_res_units: 0}\noptim: {warmup_steps: 0}\ntrain: {max_steps: 1, val_every: 0, save_every: 1, batch_size: 1, trackers: none}\n' $T $T > tiny.yaml
for name in ascii $'r\xe9sultats'; do
  R=$T/$name; shown=${R/$T/TMP}
  run "train into $shown" train --config tiny.yaml "--train.output_dir=$R"
  cp -r "$R/checkpoints/step_1" "$T/keep"
  rm "$R/checkpoints/step_1/optimizer.bin"
  run "resume, optimizer.bin gone" train --config tiny.yaml "--train.output_dir=$R" --train.max_steps=2 --resume latest
  rm -r "$R/checkpoints/step_1"; cp -r "$T/keep" "$R/checkpoints/step_1"; rm -r "$T/keep"
  truncate -s 100 "$R/checkpoints/step_1/model.safetensors"
  run "resume, model.safetensors cut to 100 bytes" train --config tiny.yaml "--train.output_dir=$R" \
    --train.max_steps=2 --resume latest
  run "export of that checkpoint" export "$R/checkpoints/step_1" --output "$R/exported"
done
rm -rf $T
