#!/bin/bash
# Command: cd <worktree> && bash benchmarks/results/eighth_new_user_walk_2026-12-07/walk_5_accumulation_parity.sh \
#            > benchmarks/results/eighth_new_user_walk_2026-12-07/walk_5_accumulation_parity.txt 2>&1
# docs/design.md: "2 processes x batch 1 equal 1 process x batch 1 with grad_accum_steps 2 bit for bit (a
# reproducibility probe, seventy-seventh session)". The tier's launch as docs/testing.md names it
# (ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2, gloo) of examples/train.py, against one
# process accumulating 2 micro-batches of 1; the tests' tiny settings (tests/conftest.py tiny_overrides), 9 phantoms
# at 16^3 patches, 4 steps, the U-Net without biases; each export's tensors compared.
set -u
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD OMP_NUM_THREADS=1
W=/tmp/h144_walk5; rm -rf $W; mkdir -p $W
PY=.venv/bin/python
$PY -c "from accelerated_seg.data.synthetic import write_synthetic_dataset as w; print(w('$W/data', num_cases=9, num_validation=2, size_mm=(48.0, 48.0, 40.0), spacing_mm=2.0))"
common=(--config configs/demo.yaml --no-report --data.dataset=$W/data/dataset.json --data.cache_dir=$W/cache
  "--data.patch_size=[16,16,16]" "--data.spacing=[2.0,2.0,2.0]" --data.samples_per_volume=2 --data.num_workers=0
  "--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1, bias: false}" --optim.warmup_steps=2
  --train.max_steps=4 --train.batch_size=1 --train.val_every=0 --train.save_every=0 --train.log_every=1
  --train.progress_bar=false --train.trackers=none)
ACCELERATE_USE_CPU=true /usr/bin/time -f "two processes: %e s wall" .venv/bin/accelerate launch --multi_gpu \
  --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no examples/train.py "${common[@]}" \
  --train.output_dir=$W/two 2>&1 | grep -E "strategy|step [0-9]+:|wall|error" | head -12
/usr/bin/time -f "one process accumulating 2: %e s wall" $PY examples/train.py "${common[@]}" --train.grad_accum_steps=2 \
  --train.output_dir=$W/one 2>&1 | grep -E "strategy|step [0-9]+:|wall|error" | head -12
$PY - <<PYEOF
from safetensors.torch import load_file
import torch
a, b = load_file("$W/two/model/model.safetensors"), load_file("$W/one/model/model.safetensors")
assert a.keys() == b.keys()
differ = {k: float((a[k] - b[k]).abs().max()) for k in a if not torch.equal(a[k], b[k])}
print(f"{len(a)} tensors; bit-identical: {len(a) - len(differ)}; largest difference: {max(differ.values(), default=0.0)}")
PYEOF
