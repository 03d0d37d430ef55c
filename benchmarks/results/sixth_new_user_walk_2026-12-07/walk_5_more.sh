# bash walk_5_more.sh > walk_5_more.txt 2>&1   (after walk_1_evaluate.sh, in its data/)
# What walk_1 asked otherwise than the page means: a prediction folder whose every file is named otherwise
# (a_0000 against a), a dataset's folder as LABELS (its labelsTr/ named), a reference of 0 and 255 under
# --num-classes 2 (into a new --output), a label of 1000 saved through a uint8 header (the page's 1000.00000119).
source /tmp/wt_h138/benchmarks/results/sixth_new_user_walk_2026-12-07/env.sh
cd data
ev() { echo; echo "\$ accelerated-seg evaluate $*"; accelerated-seg evaluate "$@"; echo "status $?"; }
mkdir -p renamed_all/pred renamed_all/labels
cp missing_renamed/labels/case_a.nii.gz renamed_all/labels/
cp missing_renamed/pred/case_a_0000.nii.gz renamed_all/pred/
ev renamed_all/pred renamed_all/labels
ev eval/predictions nested/dataset
ev masks/pred masks/labels --num-classes 2 --output masks/o2
python - <<'PY'
import nibabel as nib, numpy as np, os
lab = np.zeros((16, 16, 16), np.int32); lab[4:8, 4:8, 4:8] = 1000
img = nib.Nifti1Image(lab, np.eye(4)); img.set_data_dtype(np.uint8)
os.makedirs("scaled1000/labels", exist_ok=True); os.makedirs("scaled1000/pred", exist_ok=True)
nib.save(img, "scaled1000/labels/case_a.nii.gz"); nib.save(nib.Nifti1Image(lab, np.eye(4)), "scaled1000/pred/case_a.nii.gz")
PY
ev scaled1000/pred scaled1000/labels --num-classes 1001
