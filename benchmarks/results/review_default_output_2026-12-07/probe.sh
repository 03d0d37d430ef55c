#!/bin/bash
# evaluate PRED LABELS with no --output, PRED/evaluation refused in each way: what the line calls the folder.
# Command: cd /tmp/wt_r104 && bash benchmarks/results/review_default_output_2026-12-07/probe.sh > benchmarks/results/review_default_output_2026-12-07/out.txt 2>&1
PY="env PYTHONPATH=/tmp/wt_r104 /work/main/.venv/bin/python"
T=$(mktemp -d); cd "$T"; mkdir pred labels
$PY -c "
import nibabel as nib, numpy as np
for f in ('pred', 'labels'): nib.save(nib.Nifti1Image(np.zeros((8, 8, 8), np.uint8), np.eye(4)), f + '/case.nii.gz')"
run() { echo "[$1]"; $PY -m accelerated_seg.cli evaluate pred labels --num-classes 2 2>&1 | sed "s#$T#T#g" | sed 's/^/    /'; }
touch pred/evaluation; run "PRED/evaluation is a file"; rm pred/evaluation
ln -s /nonexistent/place pred/evaluation; run "PRED/evaluation a dangling link"; rm pred/evaluation
mkdir pred/evaluation; echo '{"step": 3}' > pred/evaluation/summary.json; run "PRED/evaluation holds a run's summary.json"
rm pred/evaluation/summary.json; run "first evaluation"; $PY -c "
import json; p='pred/evaluation/summary.json'; d=json.load(open(p)); d['settings']['tolerance_mm']=9.0; json.dump(d, open(p,'w'))"
run "PRED/evaluation holds an earlier evaluation of other settings"
rm -rf "$T"
