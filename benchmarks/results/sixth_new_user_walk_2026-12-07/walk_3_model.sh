# bash walk_3_model.sh > walk_3_model.txt 2>&1
# A prediction from a tiny trained model (the demo config scaled down: 4 steps, 16^3 patches, 6 phantoms) by
# `accelerated-seg predict`, scored with --labels as the page offers it: the model's folder, its config.json, the
# run folder (which holds none: its model/ and best_model/ named), and the phantoms' dataset.json; a label whose
# prediction predict did not write (predict's mark read from the header).
source /tmp/wt_h138/benchmarks/results/sixth_new_user_walk_2026-12-07/env.sh
ev() { echo; echo "\$ accelerated-seg evaluate $*"; accelerated-seg evaluate "$@"; echo "status $?"; }
S="--train.max_steps=4 --train.save_every=2 --train.val_every=2 --optim.warmup_steps=0 --data.patch_size=[16,16,16]"
S="$S --data.synthetic.num_cases=6 --data.synthetic.num_validation=2 --data.num_workers=0"
rm -rf output/demo model_walk
accelerated-seg train --config configs/demo.yaml $S 2>&1 | tail -3; echo "train status ${PIPESTATUS[0]}"
D=output/demo/synthetic_data
mkdir -p model_walk/scans model_walk/labels
for c in case_004 case_005; do cp $D/imagesTr/$c.nii.gz model_walk/scans/; cp $D/labelsTr/$c.nii.gz model_walk/labels/; done
accelerated-seg predict --model output/demo/model model_walk/scans --output model_walk/pred; echo "predict status $?"
ev model_walk/pred model_walk/labels --labels output/demo/model --output model_walk/e1
ev model_walk/pred model_walk/labels --labels output/demo/model/config.json --output model_walk/e2
ev model_walk/pred model_walk/labels --labels $D/dataset.json --output model_walk/e3
ev model_walk/pred model_walk/labels --labels output/demo --output model_walk/e4
# a dataset.json that is a folder beside a readable config.json
mkdir -p model_walk/decl && cp output/demo/model/config.json model_walk/decl/ && mkdir model_walk/decl/dataset.json
ev model_walk/pred model_walk/labels --labels model_walk/decl --output model_walk/e5
# a label whose prediction predict did not write
cp $D/labelsTr/case_003.nii.gz model_walk/labels/
ev model_walk/pred model_walk/labels --labels output/demo/model --output model_walk/e6
