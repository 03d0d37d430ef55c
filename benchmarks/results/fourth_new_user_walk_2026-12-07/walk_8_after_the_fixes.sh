# bash walk_8_after_the_fixes.sh > walk_8_after_the_fixes.txt 2>&1
# walk_3's 4D channel files (fourd: case_0000 of (20, 20, 8, 2) beside case_0001; fourd3: p09_T1 beside p09_FLAIR;
# both: the 4D file beside a channel on another grid; lone4d: one q_0000 alone) and walk_7's edited monai_class, with
# this branch's fixes, and walk_6's two channels declaring mm at 0.02 mm (run after walks 3, 6 and 7: their files).
source /tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07/env.sh
set -x
for f in fourd fourd3 both; do st accelerated-seg predict --model brats_model $f --output out_after_$f; done
mkdir -p lone4d && cp t1_4d.nii.gz lone4d/q_0000.nii.gz
st accelerated-seg predict --model brats_model lone4d --output out_after_lone4d
st accelerated-seg predict --model damaged/unknown_class scans/scan1.nii.gz --output out_after_class.nii.gz
python -c "from accelerated_seg.estimator import Segmentation; Segmentation.load('damaged/unknown_class')" 2>&1 | tail -1
st accelerated-seg predict --model runs/brats2/best_model --input units2/fine_0000.nii.gz units2/fine_0001.nii.gz --output fine_seg.nii.gz
