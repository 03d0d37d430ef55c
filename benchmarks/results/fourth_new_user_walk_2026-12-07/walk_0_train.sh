# bash walk_0_train.sh > walk_0_train.txt 2>&1
# The README's demo scaled down as configuration.md allows (6 phantoms, 3 mm, patch 16^3, a small U-Net, 6 steps),
# so that output/demo/best_model and output/demo/synthetic_data/ exist as inference.md's intro expects; then a
# 2-channel model (T1, FLAIR) trained on 16^3 NIfTI volumes written with nibabel (make_data.py), for the channel
# tables.
source /tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07/env.sh
set -x
time accelerated-seg train --config configs/demo.yaml --data.synthetic.num_cases=6 --data.synthetic.num_validation=2 \
    --data.spacing=[3,3,3] --data.patch_size=[16,16,16] --model.args.channels=[8,16,32] --model.args.strides=[2,2] \
    --train.max_steps=6 --train.val_every=3 --train.save_every=3 --optim.warmup_steps=0
echo "[status $?]"
ls output/demo output/demo/synthetic_data output/demo/synthetic_data/imagesTr output/demo/best_model
python $H/make_data.py
time accelerated-seg train --data.dataset=data_walk/Task02_TwoChannel --data.patch_size=[16,16,16] \
    --model.args.channels=[8,16,32] --model.args.strides=[2,2] --train.max_steps=4 --train.val_every=2 \
    --train.save_every=2 --optim.warmup_steps=0 --train.output_dir=runs/brats2
echo "[status $?]"
python -c "import json; c = json.load(open('runs/brats2/best_model/config.json')); print(c['channels'], c['in_channels'], c.get('spacing'), c.get('spacing_unit'), c.get('cases_median_spacing'))"
python -c "import json; c = json.load(open('output/demo/best_model/config.json')); print(c['channels'], c['in_channels'], c.get('spacing'), c.get('spacing_unit'), c.get('spacing_set'), c.get('cases_median_spacing'), sorted(c))"
