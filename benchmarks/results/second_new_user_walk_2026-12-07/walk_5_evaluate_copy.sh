# bash walk_5_evaluate_copy.sh > walk_5_evaluate_copy.txt 2>&1
# The second fault: evaluate again with another --labels file of the same bytes (a copy; the first never moved),
# the earlier results in PRED/evaluation replaced. First with main's package (/work/main: "moved since"), then
# this branch's. Needs walk_3's predictions/ (case_004 of the demo phantoms) and the phantoms' dataset.json.
source /tmp/wt_h133/benchmarks/results/second_new_user_walk_2026-12-07/env.sh
set -x
mkdir -p eval_walk/labels && cp output/demo/synthetic_data/labelsTr/case_004.nii.gz eval_walk/labels/
cp output/demo/synthetic_data/dataset.json eval_walk/dataset.json
mkdir -p eval_walk/copy && cp eval_walk/dataset.json eval_walk/copy/dataset.json
for package in /work/main /tmp/wt_h133; do
  rm -rf predictions/evaluation
  PYTHONPATH=$package accelerated-seg evaluate predictions eval_walk/labels --labels eval_walk/dataset.json | tail -1
  PYTHONPATH=$package accelerated-seg evaluate predictions eval_walk/labels --labels eval_walk/copy/dataset.json \
    | tail -1
  ls eval_walk/dataset.json eval_walk/copy/dataset.json
done
