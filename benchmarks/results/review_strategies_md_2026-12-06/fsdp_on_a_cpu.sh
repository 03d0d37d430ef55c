#!/bin/bash
# Probe: what the FSDP profiles say on a machine without GPUs (docs/strategies.md's "What is refused" rows 1-2).
# Run from the repository root: bash benchmarks/results/review_strategies_md_2026-12-06/fsdp_on_a_cpu.sh
# Output: fsdp_on_a_cpu.txt beside this file.
set -u
PY=${PY:-/work/main/.venv/bin/python}
OUT=benchmarks/results/review_strategies_md_2026-12-06/fsdp_on_a_cpu.txt
WORK=$(mktemp -d)
PYTHONPATH=$PWD:$PWD/tests $PY -c "
from conftest import write_synthetic_dataset; from pathlib import Path
print(write_synthetic_dataset(Path('$WORK'), num_cases=4, num_validation=1, seed=0, size_mm=(40.0, 40.0, 32.0),
                              spacing_mm=2.0))" > $WORK/dataset_path
DATA=$(cat $WORK/dataset_path)
ARGS=(--data.dataset=$DATA --data.cache_dir=$WORK/cache --data.patch_size=[16,16,16] --data.spacing=[2.0,2.0,2.0]
      --data.num_workers=0 "--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}"
      --train.max_steps=1 --train.batch_size=1 --train.val_every=0 --train.trackers=none --train.progress_bar=false)
: > $OUT
run() {  # label, env, profile, extra launch args, extra train args
  echo "### $1" >> $OUT
  echo "\$ $2 accelerate launch --config_file $3 $4 examples/train.py ... $5" >> $OUT
  env $2 PYTHONPATH=$PWD timeout 300 $PY -m accelerate.commands.launch --config_file $3 $4 examples/train.py \
      "${ARGS[@]}" --train.output_dir=$WORK/run_$RANDOM $5 2>&1 | grep -v "^\s*$" | grep -iE "error|warning|strategy:|refus|exit" \
      | cut -c1-700 >> $OUT
  echo "exit: ${PIPESTATUS[0]}" >> $OUT
}
run "FSDP1 profile, fallback allowed" "" configs/accelerate/fsdp_shard_grad_op.yaml "--num_processes 1" \
    "--train.allow_strategy_fallback=true"
run "fsdp2.yaml on the CPU (the page's 'what to do' for the FSDP1 row)" "" configs/accelerate/fsdp2.yaml \
    "--num_processes 1" ""
run "fsdp2.yaml on the CPU, fallback allowed" "" configs/accelerate/fsdp2.yaml "--num_processes 1" \
    "--train.allow_strategy_fallback=true"
rm -rf $WORK
