# bash walk_8_after.sh > walk_8_after.txt 2>&1   (after walk_1_evaluate.sh, in its data/; walk_1 ran before the fix)
# The prediction holding the ignore label 3 again, with main's package (before) and this branch's (after), and one
# holding 0 and 3 alone (offered --merge-foreground before).
source /tmp/wt_h138/benchmarks/results/sixth_new_user_walk_2026-12-07/env.sh
cd data
python -c "
import nibabel as nib, numpy as np, os
lab = np.asarray(nib.load('ignore_pred/labels/case_a.nii.gz').dataobj)
os.makedirs('ignore_only/pred', exist_ok=True)
nib.save(nib.Nifti1Image(np.where(lab > 0, 3, 0).astype(np.uint8), np.eye(4)), 'ignore_only/pred/case_a.nii.gz')"
for package in /work/main /tmp/wt_h138; do
  for pred in ignore_pred/pred ignore_only/pred; do
    echo "\$ PYTHONPATH=$package accelerated-seg evaluate $pred ignore_pred/labels --labels eval/dataset_ignore.json"
    PYTHONPATH=$package accelerated-seg evaluate $pred ignore_pred/labels --labels eval/dataset_ignore.json
    echo "status $?"
  done
done
