#!/bin/bash
# The closing line (`trained to step N: the model is in ...`) of a run stopped by SIGTERM (a scheduler's notice:
# saved, no export) and by SIGINT (Ctrl-C) while it trains, each sent once the first step's line is out; and of a
# finished one: how many times each says it. Command:
#   bash benchmarks/results/latin1_paths_review_2026-12-07/closing_line.sh <package folder> > .../closing_line.txt 2>&1
set -m  # job control: a background job keeps SIGINT (a non-interactive shell has it ignored)
P=$1; T=$(mktemp -d); cd $T
PY=/work/main/.venv/bin/python
PYTHONPATH=$P $PY -m accelerated_seg synth data --cases 3 --validation 1 > /dev/null
printf 'data:\n  dataset: %s/data/dataset.json\n  patch_size: [16, 16, 16]\n  num_workers: 0\n  cache_dir: %s/cache\nmodel:\n  name: unet\n  args: {channels: [4, 8], strides: [2], num_res_units: 0}\noptim: {warmup_steps: 0}\ntrain: {val_every: 0, save_every: 1, batch_size: 1, trackers: none, log_every: 1, progress_bar: false}\n' $T $T > tiny.yaml
for signal in TERM INT none; do
  steps=$([ $signal = none ] && echo 2 || echo 100000)
  PYTHONIOENCODING=utf-8:strict OMP_NUM_THREADS=1 PYTHONPATH=$P $PY -m accelerated_seg train --config tiny.yaml \
    --train.output_dir=run_$signal --train.max_steps=$steps > out.txt 2>&1 &
  pid=$!
  if [ $signal != none ]; then
    for i in $(seq 120); do [ -d run_$signal/checkpoints ] && break; sleep 1; done
    kill -$signal $pid
  fi
  wait $pid
  echo "[$signal] status $?, closing lines: $(tr '\r' '\n' < out.txt | grep -ac '^trained to step')"
  tr '\r' '\n' < out.txt | grep -a -v "^\s*$" | tail -2 | sed "s|$T|TMP|g; s/^/    /"
done
rm -rf $T
