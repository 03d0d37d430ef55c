# bash walk_3_checkpoints.sh > walk_3_checkpoints.txt 2>&1
# docs/checkpoints.md: a demo run scaled down (train.max_steps=4, save_every=2, val_every=2, patch 16^3: the
# page's step_400 is this run's step_2), its folder against the page's tables, export's commands, predict of the
# export, resume with a longer max_steps, the used folder's refusal, init_from, export's refusals.
source /tmp/wt_h133/benchmarks/results/second_new_user_walk_2026-12-07/env.sh
set -x
S="--train.max_steps=4 --train.save_every=2 --train.val_every=2 --optim.warmup_steps=0 --data.patch_size=[16,16,16]"
S="$S --data.synthetic.num_cases=6 --data.synthetic.num_validation=2 --data.num_workers=0"
accelerated-seg train --config configs/demo.yaml $S; echo "status $?"
find output/demo -maxdepth 3 -not -path '*/synthetic_data/*' | sort
ls -a output/demo/checkpoints/step_2
accelerated-seg export output/demo/checkpoints/step_2 --output demo_step_400; echo "status $?"
accelerated-seg export output/demo --output demo_latest; echo "status $?"
ls demo_step_400 demo_latest
python -c "import json; print(*(json.load(open(m + '/config.json'))['step'] for m in ('demo_step_400', 'demo_latest')))"
mkdir -p scans && cp output/demo/synthetic_data/imagesTr/case_004.nii.gz scans/
accelerated-seg predict --model demo_step_400 scans/ --output predictions/; echo "status $?"
ls predictions
python -c "
from accelerated_seg.checkpoint_export import export_checkpoint
from accelerated_seg.estimator import Segmentation
export_checkpoint('output/demo/checkpoints/step_2', 'demo_step_400_py')
print(Segmentation.load('demo_step_400_py'))"; echo "status $?"
# export's refusals: --output not new; inside checkpoints/; a checkpoint given to predict
accelerated-seg export output/demo/checkpoints/step_2 --output demo_step_400; echo "status $?"
accelerated-seg export output/demo/checkpoints/step_2 --output output/demo/checkpoints/x; echo "status $?"
accelerated-seg predict --model output/demo/checkpoints/step_2 scans/ --output p2/; echo "status $?"
# a new run in the used folder; resume with a longer max_steps
accelerated-seg train --config configs/demo.yaml $S; echo "status $?"
accelerated-seg train --config configs/demo.yaml $S --train.resume=latest --train.max_steps=6; echo "status $?"
ls output/demo/checkpoints
python -c "import json; s = json.load(open('output/demo/summary.json')); print({k: s[k] for k in list(s)[:8]})"
# fine-tuning from the export
accelerated-seg train --config configs/demo.yaml $S --train.init_from=demo_latest --train.output_dir=output/ft
echo "status $?"
