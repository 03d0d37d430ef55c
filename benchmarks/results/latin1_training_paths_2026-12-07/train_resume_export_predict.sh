#!/bin/bash
# Train in a working folder named in Latin-1 (\xe9tude), data.cache_dir and train.output_dir inside it, then resume,
# export (into a folder named in Latin-1) and predict, each under a strict terminal (PYTHONIOENCODING=utf-8:strict).
# The run folder is given twice: relative, from the config file (run), and on the command line by its absolute path
# (--train.output_dir=<TMP>/\xe9tude/r\xe9sultats), the latter once more with --train.trackers=none (TensorBoard takes
# no such path). Command:
#   bash benchmarks/results/latin1_training_paths_2026-12-07/train_resume_export_predict.sh <package folder> > <out>.txt 2>&1
# (before.txt with /tmp/h126_main, main cb41d6be's accelerated_seg; after.txt with /tmp/wt_h126)
P=$1; T=$(mktemp -d); cd $T
run() {  # run <label> <args...>: status and the last lines that are not a progress bar, TMP for the folder
  label=$1; shift
  PYTHONIOENCODING=utf-8:strict OMP_NUM_THREADS=1 PYTHONPATH=$P /work/main/.venv/bin/python -m accelerated_seg "$@" \
    > out.txt 2>&1
  echo "[$label] status $?"
  tr '\r' '\n' < out.txt | grep -a -v "it/s\|^\s*$" | tail -4 | sed "s|$T|TMP|g; s/^/    /"
}
PYTHONPATH=$P /work/main/.venv/bin/python -m accelerated_seg synth data --cases 3 --validation 1 > /dev/null
printf 'data:\n  dataset: %s/data/dataset.json\n  patch_size: [16, 16, 16]\n  num_workers: 0\nmodel:\n  name: unet\n  args: {channels: [4, 8], strides: [2], num_res_units: 0}\noptim: {warmup_steps: 0}\ntrain: {max_steps: 1, val_every: 1, save_every: 1, batch_size: 1, output_dir: run}\n' $T > tiny.yaml
W=$T/$'\xe9tude'; mkdir "$W"; cd "$W"
i=0
for out in run "$W/"$'r\xe9sultats' "$W/"$'r\xe9sultats2'; do
  [ $i = 2 ] && trackers=--train.trackers=none
  shown=${out/$T/TMP}; i=$((i+1))
  run "train, cache_dir=cache, output_dir=$shown $trackers" train --config $T/tiny.yaml --data.cache_dir=cache \
    "--train.output_dir=$out" $trackers
  run "resume the same to 2 steps" train --config $T/tiny.yaml --data.cache_dir=cache "--train.output_dir=$out" \
    --train.max_steps=2 --resume latest $trackers
  ls -b "$out/checkpoints" 2>&1 | sed 's/^/    checkpoints: /'
  run "export its step_2 into mod\\xe8le" export "$out/checkpoints/step_2" --output "$W/"$'mod\xe8le'$i
  run "predict a case into pr\\xe9dictions" predict --model "$W/"$'mod\xe8le'$i \
    --input $T/data/imagesTr/case_000.nii.gz --output "$W/"$'pr\xe9diction'$i.nii.gz
done
ls -b "$W" "$W/cache" | sed "s|$T|TMP|g; s/^/    /"
rm -rf $T
