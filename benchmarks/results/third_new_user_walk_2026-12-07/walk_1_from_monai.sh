# bash walk_1_from_monai.sh > walk_1_from_monai.txt 2>&1   (from_monai.md's table as a config, trained; then its block)
source "$(dirname "$0")/env.sh"
H=/tmp/wt_h134/benchmarks/results/third_new_user_walk_2026-12-07
python $H/make_data.py
cp $H/spleen_tutorial.yaml .
accelerated-seg check --config spleen_tutorial.yaml
accelerated-seg train --config spleen_tutorial.yaml; echo "status $?"
ls output/spleen output/spleen/best_model
python -c "import json; c=json.load(open('output/spleen/best_model/config.json')); print(c['preprocessing'])"
