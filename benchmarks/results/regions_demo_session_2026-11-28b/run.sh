#!/bin/bash
# The demo's phantoms, network and 600 steps (configs/demo.yaml), trained on its exclusive classes
# (ventricles 1, lesion 2; softmax) and on two overlapping regions (every finding = 1 or 2, and the
# lesion = 2; one sigmoid each, data.regions), and on the regions with MONAI's batch Dice (summed over
# the batch before dividing, as nnU-Net's batch_dice: a patch without the lesion no longer scores the
# lesion's Dice alone). The best models then segment the 4 validation phantoms through `predict`, and
# `evaluate` scores the written label maps on the classes and on the regions.
# STEPS=1800 trains the classes and the regions three times as long (the cosine over the whole run).
# Run from the repository root; writes summary[_<STEPS>steps].json and the training logs beside this script.
set -e
HERE=benchmarks/results/regions_demo_session_2026-11-28b
STEPS=${STEPS:-600}
RUNS="classes regions regions_batch_dice"
SUFFIX=""
if [ "$STEPS" != 600 ]; then RUNS="regions classes"; SUFFIX="_${STEPS}steps"; fi
WORK=${WORK:-/tmp/regions_demo$SUFFIX}
mkdir -p "$WORK"
common="--train.progress_bar=false --train.trackers=none"
regions="--data.regions={findings: [1, 2], lesion: [2]}"
for run in $RUNS; do
  [ -d "$WORK/$run/best_model" ] && continue  # trained already (a rerun only scores again)
  settings=()
  [ "$run" = regions ] && settings=("$regions")
  [ "$run" = regions_batch_dice ] && settings=("$regions" "--train.loss_args={batch: true}")
  start=$SECONDS
  .venv/bin/accelerated-seg train --config configs/demo.yaml "${settings[@]}" --train.max_steps=$STEPS \
      --train.output_dir=$WORK/$run $common > $HERE/$run$SUFFIX.log 2>&1
  echo "$run seconds=$((SECONDS - start))" >> $HERE/$run$SUFFIX.log
done
.venv/bin/python - "$WORK" "$HERE" "$SUFFIX" $RUNS <<'PY'
import json, shutil, sys
from pathlib import Path

from accelerated_seg.data.manifest import load_msd
from accelerated_seg.evaluate import evaluate_folders
from accelerated_seg.inference import predict_cases

work, here, suffix, runs = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4:]
cases = load_msd(work / "classes" / "synthetic_data" / "dataset.json").validation
labels = work / "labels"
shutil.rmtree(labels, ignore_errors=True)
labels.mkdir()
for case in cases:
    shutil.copy(case.label, labels / case.label.name)
regions_json = work / "regions" / "best_model" / "config.json"
steps = f"STEPS={suffix[1:].removesuffix('steps')} " if suffix else ""
summary = {"cases": [c.id for c in cases], "command": f"{steps}bash {here}/run.sh"}
for run in runs:
    predictions = work / f"predictions_{run}"
    shutil.rmtree(predictions, ignore_errors=True)
    predict_cases(work / run / "best_model", [str(c.images[0]) for c in cases], predictions)
    history = json.loads((work / run / "metrics.json").read_text())["validation"]
    scored = {}
    for what, kwargs in (("classes", {"num_classes": 3}), ("regions", {"dataset_json": regions_json})):
        result = evaluate_folders(predictions, labels, output_dir=work / f"evaluation_{run}_{what}", **kwargs)
        scored[what] = {v["name"]: round(v["dice"]["mean"], 4) for v in result["per_class"].values()}
        scored[what]["mean"] = round(result["overall"]["dice"]["mean"], 4)
    summary[run] = {"best_step": json.loads((work / run / "summary.json").read_text())["best_step"],
                    "validation_during_training": history, "evaluate_of_predict": scored}
(here / f"summary{suffix}.json").write_text(json.dumps(summary, indent=1) + "\n")
print(json.dumps({run: summary[run]["evaluate_of_predict"] for run in runs}, indent=1))
PY
