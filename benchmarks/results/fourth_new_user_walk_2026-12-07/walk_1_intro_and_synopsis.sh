# bash walk_1_intro_and_synopsis.sh > walk_1_intro_and_synopsis.txt 2>&1
# inference.md lines 1-70: the intro's two commands as written, then the "## Predict" synopsis' bullets: inputs
# among the options, `--`, an option of many values eating an input, a run folder / checkpoints/ as --model, an
# export given among the images, an ensemble's second member without its --model, --model's folder again among the
# images, a quoted path in a suggested command, a folder of an export's two files with a broken config.json, and
# the folders taken as scans (a folder of NIfTI + config.json, a dataset folder, a config.json alone).
source /tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07/env.sh
D=output/demo/synthetic_data
set -x
st accelerated-seg predict --model output/demo/best_model output/demo/synthetic_data/imagesTr --output predictions/
ls predictions/
st accelerated-seg evaluate predictions/ output/demo/synthetic_data/labelsTr --labels output/demo/synthetic_data/dataset.json
# inputs anywhere among the options
mkdir -p scans && cp $D/imagesTr/case_000.nii.gz scans/scan1.nii.gz && cp $D/imagesTr/case_001.nii.gz scans/scan2.nii.gz
st accelerated-seg predict scans/scan1.nii.gz --model output/demo/best_model --output out_any scans/scan2.nii.gz
ls out_any
# a name that starts with a dash, after --
cp scans/scan1.nii.gz ./-dash.nii.gz
st accelerated-seg predict --model output/demo/best_model --output out_dash -- -dash.nii.gz
# an input read as a label, and a mode
st accelerated-seg predict --model output/demo/best_model --output out_kl --keep-largest 1 2 scans/
st accelerated-seg predict --model output/demo/best_model --output out_kl --tta scans/
st accelerated-seg predict --model output/demo/best_model --output out_kl --keep-largest 1 2 -- scans/
ls out_kl
# a run's own folder as --model, its checkpoints/ folder
st accelerated-seg predict --model output/demo scans/ --output out_run
st accelerated-seg predict --model output/demo/checkpoints scans/ --output out_run
python -c "from accelerated_seg.estimator import Segmentation; Segmentation.load('output/demo/checkpoints')" 2>&1 | tail -1
# an export given among the images (the page's own example), an ensemble's second member without its --model
cp -r output/demo/best_model fold0 && cp -r output/demo/model fold1
st accelerated-seg predict output/demo/model scans/ --output out_x
st accelerated-seg predict --model fold0 fold1 scans/ --output out_x
st accelerated-seg predict --model fold0 fold1 scans/ --output out_x --tta --probabilities
# --model's own folder again among the images; the run folder of the --model export; a run folder beside its export
st accelerated-seg predict --model fold0 fold0 scans/ --output out_x
st accelerated-seg predict --model output/demo/best_model output/demo scans/ --output out_x
st accelerated-seg predict --model output/demo output/demo/best_model scans/ --output out_x
# a path a shell would split, quoted in the suggestion
cp -r fold1 'fold 1'
st accelerated-seg predict --model fold0 'fold 1' scans/ --output out_x
# a folder of an export's two files whose config.json is broken (the page's example: b/, a comma left out at line 3)
mkdir -p b && cp fold0/model.safetensors b/ && printf '{\n "a": 1\n    "b": 2\n}\n' > b/config.json
st accelerated-seg predict --model fold0 b --output out_x
st accelerated-seg evaluate b $D/labelsTr
st accelerated-seg export b --output out_export
# ... has no model section (another program's), cannot be read
mkdir -p c && cp fold0/model.safetensors c/ && echo '{"name": "viewer"}' > c/config.json
st accelerated-seg predict --model fold0 c --output out_x
mkdir -p d && cp fold0/model.safetensors fold0/config.json d/ && chmod 000 d/config.json
st accelerated-seg predict --model fold0 d --output out_x
ls -l d/; whoami
# a folder that holds a NIfTI file beside a config.json; a dataset's folder; a folder of subfolders beside a
# config.json; a config.json alone without model.safetensors
mkdir -p e && cp scans/scan1.nii.gz fold0/config.json e/
st accelerated-seg predict --model fold0 e --output out_e
ls out_e
st accelerated-seg predict --model fold0 $D --output out_x
mkdir -p f/case_a f/case_b && cp scans/scan1.nii.gz f/case_a/image.nii.gz && cp scans/scan2.nii.gz f/case_b/image.nii.gz && echo '{"model_type": "bert"}' > f/config.json
st accelerated-seg predict --model fold0 f --output out_x
mkdir -p g && cp fold0/config.json g/
st accelerated-seg predict --model fold0 g --output out_x
# both exports of the run as --model, the run's folder among the images; another program's config.json alone
st accelerated-seg predict --model output/demo/best_model --model output/demo/model output/demo scans/ --output out_x
mkdir -p h && echo '{"model_type": "bert"}' > h/config.json
st accelerated-seg predict --model fold0 h --output out_x
