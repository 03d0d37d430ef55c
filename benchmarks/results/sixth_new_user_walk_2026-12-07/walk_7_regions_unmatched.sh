# bash walk_7_regions_unmatched.sh > walk_7_regions_unmatched.txt 2>&1   (after walk_1_evaluate.sh, in its data/)
# The regions' dataset.json given as --labels (summary.json's keys: the page lists no "regions"), and predictions
# without a label: predict's *_probs map (listed in the summary alone) and another file (named in a warning too).
source /tmp/wt_h138/benchmarks/results/sixth_new_user_walk_2026-12-07/env.sh
cd data
ev() { echo; echo "\$ accelerated-seg evaluate $*"; accelerated-seg evaluate "$@"; echo "status $?"; }
ev Dataset042_Tiny/predictions Dataset042_Tiny/labelsTs --labels Dataset042_Tiny/dataset.json --output D42_regions
python -c "import json; s = json.load(open('D42_regions/summary.json')); print(sorted(s)); print(s.get('regions'))"
rm -rf extra && cp -r eval extra && rm -rf extra/predictions/evaluation
cp extra/predictions/case_a.nii.gz extra/predictions/case_a_probs.nii.gz
cp extra/predictions/case_a.nii.gz extra/predictions/case_z.nii.gz
ev extra/predictions extra/labelsTs --labels extra/dataset.json
python -c "import json; print(json.load(open('extra/predictions/evaluation/summary.json'))['predictions_without_label'])"
