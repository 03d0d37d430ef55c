#!/bin/bash
# Sparse annotation on the demo: its phantoms, network and 600 steps (configs/demo.yaml), trained on the
# dense labels and on labels annotated on every 3rd and every 10th slice of the last voxel axis (the
# rest marked 3, declared "ignore": nnU-Net's ignore label), validated during training on the 4 dense
# validation phantoms. The best models then segment those phantoms through `predict`, and `evaluate`
# scores the written label maps against the dense labels. The control, every_10_as_background, is what
# training without an ignore label would do with the same annotation: the unannotated voxels as background.
# Run from the repository root; writes summary.json and the training logs beside this script.
set -e
HERE=benchmarks/results/sparse_demo_session_2026-11-28c
WORK=${WORK:-/tmp/sparse_demo}
STEPS=${STEPS:-600}
RUNS=${RUNS:-"dense every_3 every_10 every_10_as_background"}
mkdir -p "$WORK"
[ -f "$WORK/dense/dataset.json" ] || .venv/bin/accelerated-seg synth "$WORK/dense" --cases 24 --validation 4 --seed 0
.venv/bin/python - "$WORK" <<'PY'
import json, shutil, sys
from pathlib import Path

import nibabel as nib
import numpy as np

work = Path(sys.argv[1])
for every in (3, 10):
    folder = work / f"every_{every}"
    if (folder / "dataset.json").is_file():
        continue
    shutil.copytree(work / "dense", folder)
    content = json.loads((folder / "dataset.json").read_text())
    annotated = total = 0
    for case in content["training"]:
        path = folder / case["label"]
        image = nib.load(path)
        label = np.asanyarray(image.dataobj).copy()
        unannotated = [z for z in range(label.shape[-1]) if z % every != every // 2]
        label[..., unannotated] = 3
        annotated, total = annotated + int((label != 3).sum()), total + label.size
        nib.save(nib.Nifti1Image(label, image.affine, image.header), path)
    content["labels"]["3"] = "ignore"
    content["annotated_fraction"] = round(annotated / total, 4)
    (folder / "dataset.json").write_text(json.dumps(content, indent=1))
control = work / "every_10_as_background"
if not (control / "dataset.json").is_file():
    shutil.copytree(work / "every_10", control)
    content = json.loads((control / "dataset.json").read_text())
    for case in content["training"]:
        image = nib.load(control / case["label"])
        label = np.asanyarray(image.dataobj).copy()
        label[label == 3] = 0
        nib.save(nib.Nifti1Image(label, image.affine, image.header), control / case["label"])
    del content["labels"]["3"]
    (control / "dataset.json").write_text(json.dumps(content, indent=1))
PY
for run in $RUNS; do
  [ -d "$WORK/run_$run/best_model" ] && continue  # trained already (a rerun only scores again)
  start=$SECONDS
  .venv/bin/accelerated-seg train --config configs/demo.yaml --data.dataset=$WORK/$run/dataset.json \
      --data.cache_dir=$WORK/cache --train.max_steps=$STEPS --train.output_dir=$WORK/run_$run \
      --train.progress_bar=false --train.trackers=none > $HERE/$run.log 2>&1
  echo "$run seconds=$((SECONDS - start))" >> $HERE/$run.log
done
.venv/bin/python - "$WORK" "$HERE" $RUNS <<'PY'
import json, shutil, sys
from pathlib import Path

from accelerated_seg.data.manifest import load_msd
from accelerated_seg.evaluate import evaluate_folders
from accelerated_seg.inference import predict_cases

work, here, runs = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
cases = load_msd(work / "dense" / "dataset.json").validation
labels = work / "labels"
shutil.rmtree(labels, ignore_errors=True)
labels.mkdir()
for case in cases:
    shutil.copy(case.label, labels / case.label.name)
summary = {"cases": [c.id for c in cases], "command": f"bash {here}/run.sh"}
for run in runs:
    predictions = work / f"predictions_{run}"
    shutil.rmtree(predictions, ignore_errors=True)
    predict_cases(work / f"run_{run}" / "best_model", [str(c.images[0]) for c in cases], predictions)
    result = evaluate_folders(predictions, labels, num_classes=3, output_dir=work / f"evaluation_{run}")
    scored = {v["name"]: round(v["dice"]["mean"], 4) for v in result["per_class"].values()}
    scored["mean"] = round(result["overall"]["dice"]["mean"], 4)
    dataset = json.loads((work / run / "dataset.json").read_text())
    summary[run] = {"annotated_fraction_of_training_voxels": dataset.get("annotated_fraction", 1.0),
                    "best_step": json.loads((work / f"run_{run}" / "summary.json").read_text())["best_step"],
                    "validation_during_training": json.loads((work / f"run_{run}" / "metrics.json").read_text())[
                        "validation"],
                    "evaluate_of_predict_dense_labels": scored}
(here / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
print(json.dumps({run: [summary[run]["annotated_fraction_of_training_voxels"],
                        summary[run]["evaluate_of_predict_dense_labels"]] for run in runs}, indent=1))
PY
