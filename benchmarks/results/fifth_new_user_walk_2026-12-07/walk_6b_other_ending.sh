# bash walk_6b_other_ending.sh > walk_6b_other_ending.txt 2>&1   (after walk_6: "one made otherwise is predicted again
# and replaced" of a label map under the other NIfTI ending. walk_6 found another program's case_001.nii refused,
# naming it; here a .nii that predict wrote with other options (decompressed since) is predicted again and replaced)
source "$(dirname "$0")/env.sh"
C="accelerated-seg predict --model runs/unet/best_model scans/ --output predictions_c/"
rm -f predictions_c/case_001.nii
$C --tta axes | grep -v "^\["; gunzip predictions_c/case_002.nii.gz; ls predictions_c
$C --continue 2>&1 | grep -v "^\["; echo "status ${PIPESTATUS[0]}"; ls predictions_c
