# bash walk_11_predict_options.sh > walk_11_predict_options.txt 2>&1   (after walk_2_export_predict.sh)
# README "Predict and evaluate": the options its prose names (--tta, --probabilities, --keep-largest, --continue,
# --overlap 0.25, evaluate --labels of a model's folder), on the demo's model and its 4 held-out phantoms.
source "$(dirname "$0")/env.sh"
set -x
accelerated-seg predict --model output/demo/best_model scans/ --output opts/ --tta --probabilities --keep-largest 1; echo "status $?"
ls opts
python -c "import nibabel as nib; i = nib.load('opts/case_020_probs.nii.gz'); print('probs', i.shape, i.get_data_dtype())"
accelerated-seg predict --model output/demo/best_model scans/ --output opts/ --tta --probabilities --keep-largest 1 --continue; echo "status $?"
accelerated-seg predict --model output/demo/best_model scans/ --output p025/ --overlap 0.25; echo "status $?"
accelerated-seg evaluate p025/ labelsTs/ --labels output/demo/best_model; echo "status $?"
