# bash walk_2_data.sh > walk_2_data.txt 2>&1
# docs/data.md: its check commands on the page's own examples (make_data.py writes them at 16^3), refusals it quotes.
source /tmp/wt_h133/benchmarks/results/second_new_user_walk_2026-12-07/env.sh
H=/tmp/wt_h133/benchmarks/results/second_new_user_walk_2026-12-07
mkdir -p data_walk && cd data_walk && python $H/make_data.py
set -x
accelerated-seg check Task01_Tiny/dataset.json; echo "status $?"
accelerated-seg check Task01_Tiny; echo "status $?"
accelerated-seg check Dataset001_Tiny; echo "status $?"
accelerated-seg check study/cases.csv; echo "status $?"
accelerated-seg check study/cases.csv --labels '{0: background, 1: liver}'; echo "status $?"
accelerated-seg check study/cases.csv --labels '{0:background}'; echo "status $?"
(cd .. && accelerated-seg check --config configs/demo.yaml); echo "status $?"
# a missing channel file, as the nnU-Net table quotes it
mv Dataset001_Tiny/imagesTr/case_a_0001.nii.gz /tmp/walk_h133_moved.nii.gz
accelerated-seg check Dataset001_Tiny; echo "status $?"
mv /tmp/walk_h133_moved.nii.gz Dataset001_Tiny/imagesTr/case_a_0001.nii.gz
# a folder nothing describes
accelerated-seg check Task01_Tiny/imagesTr; echo "status $?"
# the regions YAML, the dataset path made this folder's
printf 'data:\n  dataset: Task01_BrainTumour/dataset.json   # 1 edema, 2 non-enhancing, 3 enhancing tumour\n%s\n' \
    '  regions: {whole_tumor: [1, 2, 3], tumor_core: [2, 3], enhancing_tumor: [3]}' > regions.yaml
accelerated-seg check --config regions.yaml; echo "status $?"
accelerated-seg plan --config regions.yaml --model unet --patch 16 16 16 | head -2; echo "status $?"
# the pairs block, root the user's folder
python - <<'PY'
from accelerated_seg.data.manifest import from_pairs

manifest = from_pairs(
    [(["a_t1.nii.gz", "a_t2.nii.gz"], "a_seg.nii.gz"), (["b_t1.nii.gz", "b_t2.nii.gz"], "b_seg.nii.gz")],
    labels=["background", "tumour"],
    # optional: the split (with "fold" keys: below)  [the page's comment, moved above for the line's length]
    validation_pairs=[(["c_t1.nii.gz", "c_t2.nii.gz"], "c_seg.nii.gz")],
    root="data_study",  # relative paths resolve here (default: the working directory)
)
print(manifest.source_format, manifest.source_file, len(manifest.training), len(manifest.validation), manifest.labels,
      manifest.training[0].images)
from accelerated_seg.data.manifest import load_cases
m = load_cases("Task01_Tiny/dataset.json", num_folds=5, fold=0)
PY
echo "status $?"
