# bash walk_3_config.sh > walk_3_config.txt 2>&1
# docs/planning.md, "With --config": a researcher's own experiment YAML on their own data (a tiny dataset.json and a
# CSV in a scratch folder, only the descriptions: "the images need not be on the planning machine"), the demo config
# ("the demo dataset is not written"), a region run, a global batch that cannot split, activation checkpointing,
# options that win over the config, and the refusal of an accelerate config given as --config.
source /tmp/wt_h150/benchmarks/results/tenth_new_user_walk_2026-12-07/env.sh
D=$T/mydata
mkdir -p $D
# a Decathlon-style dataset.json of two modalities and three labels; no image on this machine
cat > $D/dataset.json <<'JSON'
{"name": "mine", "modality": {"0": "T1", "1": "T2"}, "labels": {"0": "background", "1": "edema", "2": "tumour"},
 "training": [{"image": "./imagesTr/a.nii.gz", "label": "./labelsTr/a.nii.gz"},
              {"image": "./imagesTr/b.nii.gz", "label": "./labelsTr/b.nii.gz"}]}
JSON
cat > $T/mine.yaml <<YAML
data: {dataset: $D, patch_size: [96, 96, 96]}
model: {name: unet3d_mlperf}
train: {output_dir: $T/runs/mine, global_batch_size: 16}
YAML
set -x
cat $T/mine.yaml
# the run the config describes on 8 GPUs: global batch 16 over 8 = 2 per GPU
time accelerated-seg plan --config $T/mine.yaml --gpus 8; echo "status $?"
ls $T/runs 2>&1
# the same on 3 GPUs: 16 does not split ("an error naming both"), and with --batch / --global-batch
accelerated-seg plan --config $T/mine.yaml --gpus 3; echo "status $?"
accelerated-seg plan --config $T/mine.yaml --gpus 3 --batch 2; echo "status $?"
accelerated-seg plan --config $T/mine.yaml --gpus 3 --batch 2 --global-batch 12 | head -2; echo "status ${PIPESTATUS[0]}"
# options win; --model-args replaces model.args; another --model drops them
accelerated-seg plan --config $T/mine.yaml --patch 64 64 64 --batch 4 --model-args '{"filters": [16, 32, 64, 128, 256, 256]}' \
    | head -2; echo "status ${PIPESTATUS[0]}"
accelerated-seg plan --config $T/mine.yaml --model segresnet | head -2; echo "status ${PIPESTATUS[0]}"
# a region-based run: "the table's first line says 3 regions"
cat > $T/regions.yaml <<YAML
data: {dataset: $D, patch_size: [96, 96, 96], regions: {whole: [1, 2], core: [2], edema: [1]}}
model: {name: unet3d_mlperf}
YAML
accelerated-seg plan --config $T/regions.yaml | head -3; echo "status ${PIPESTATUS[0]}"
# activation checkpointing: the note beside the table, and the JSON's key
cat > $T/ckpt.yaml <<YAML
data: {dataset: $D, patch_size: [96, 96, 96]}
model: {name: unet3d_mlperf}
train: {activation_checkpointing: true}
YAML
accelerated-seg plan --config $T/ckpt.yaml --json $T/ckpt.json | head -3; echo "status ${PIPESTATUS[0]}"
python -c "import json,sys; print(json.load(open(sys.argv[1]))['activation_checkpointing'])" $T/ckpt.json
# a CSV dataset whose CSV is missing (KiTS19's cases.csv before the download)
cat > $T/csv.yaml <<YAML
data: {dataset: $T/nowhere/cases.csv, patch_size: [128, 128, 128]}
model: {name: unet3d_mlperf}
YAML
accelerated-seg plan --config $T/csv.yaml; echo "status $?"
# the demo config, from an empty folder: nothing written
mkdir -p $T/empty && (cd $T/empty && time accelerated-seg plan --config $WALK/clone/configs/demo.yaml | head -3; ls -A)
# an accelerate config given as --config, here and to train
accelerated-seg plan --config configs/accelerate/fsdp.yaml; echo "status $?"
accelerated-seg train --config configs/accelerate/fsdp.yaml; echo "status $?"
