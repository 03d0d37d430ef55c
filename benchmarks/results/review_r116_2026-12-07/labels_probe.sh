#!/bin/bash
# Command: cd <worktree> && bash benchmarks/results/review_r116_2026-12-07/labels_probe.sh > \
#   benchmarks/results/review_r116_2026-12-07/labels_probe_<main|after>.txt 2>&1
# `accelerated-seg evaluate PRED LABELS --labels X` where X's dataset.json is not a file: a folder (given itself, in
# the folder given, a link to a folder), a link to nothing beside a readable config.json, a folder beside one.
# PRED and LABELS hold one tiny case each; status and the last line said.
cd "$(git rev-parse --show-toplevel)"
PY=/work/main/.venv/bin/python
export PYTHONPATH=$PWD
w=$(mktemp -d)
$PY - "$w" <<'PYEOF'
import sys, json, numpy as np, nibabel as nib
from pathlib import Path
w = Path(sys.argv[1])
for name in ("pred", "labels"):
    (w / name).mkdir()
    nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.uint8), np.eye(4)), w / name / "case_0.nii.gz")
config = {"labels": {"background": 0, "tumour": 1}}
PYEOF
labels_json='{"labels": {"background": 0, "tumour": 1}, "channel_names": {"0": "CT"}, "numTraining": 1, '\
'"file_ending": ".nii.gz"}'
run() {  # $1: what; $2: --labels
  out=$(/work/main/.venv/bin/accelerated-seg evaluate $w/pred $w/labels --labels "$2" --output $w/s_$RANDOM.json 2>&1)
  echo "== $1: status $?"; echo "$out" | grep -v '^\s*$' | tail -1 | sed -e "s#$w#W#g" -e "s#s_[0-9]*.json#s.json#"
}
mkdir -p $w/a/dataset.json; run "a dataset.json that is a folder, given itself" $w/a/dataset.json
run "a dataset's folder whose dataset.json is a folder" $w/a
mkdir -p $w/b/real; ln -s real $w/b/dataset.json; run "its dataset.json a link to a folder" $w/b
mkdir -p $w/c; ln -s /mnt/gone/dataset.json $w/c/dataset.json; echo "$labels_json" > $w/c/config.json
run "a dataset.json linking to nothing beside a readable config.json" $w/c
mkdir -p $w/d/dataset.json; echo "$labels_json" > $w/d/config.json
run "a dataset.json that is a folder beside a readable config.json" $w/d
mkdir -p $w/e; echo "$labels_json" > $w/e/dataset.json; echo "$labels_json" > $w/e/config.json
run "both readable (refused as two before)" $w/e
mkdir -p $w/f; echo "$labels_json" > $w/f/dataset.json; run "a right dataset's folder" $w/f
run "a right dataset.json" $w/f/dataset.json
mkdir -p $w/g; echo "$labels_json" > $w/g/config.json; run "a right model's folder" $w/g
rm -rf $w
