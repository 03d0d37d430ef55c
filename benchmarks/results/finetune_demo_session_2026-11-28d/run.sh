#!/bin/bash
# Fine-tuning on another label set (train.init_from with another number of classes) against training
# from scratch, on the demo's phantoms, network and settings (configs/demo.yaml), 2 CPU cores.
# Pretrained: the demo itself, 600 steps on 20 phantoms of seed 0, three classes (background,
# ventricles, lesion). Target task: the lesion alone (two classes; the ventricles are background), on
# phantoms of another seed (1): 4 to train on and 4 to validate on. Each arm trains the same steps with
# the same settings and seed; only the starting weights differ: the pretrained export (its output layers
# start afresh, 2 outputs instead of 3) or a new network. The best models then segment the 4 validation
# phantoms through `predict`, and `evaluate` scores them against their labels.
# Run from the repository root; writes summary.json and the training logs beside this script.
set -e
HERE=benchmarks/results/finetune_demo_session_2026-11-28d
WORK=${WORK:-/tmp/finetune_demo}
STEPS_LIST=${STEPS_LIST:-"100 300 600"}
SEEDS=${SEEDS:-"0 1"}
mkdir -p "$WORK"
[ -f "$WORK/pretrain_data/dataset.json" ] || .venv/bin/accelerated-seg synth "$WORK/pretrain_data" --cases 24 --validation 4 --seed 0
if [ ! -f "$WORK/lesion/dataset.json" ]; then
  .venv/bin/accelerated-seg synth "$WORK/lesion" --cases 8 --validation 4 --seed 1
  .venv/bin/python - "$WORK/lesion" <<'PY'
import json, sys
from pathlib import Path

import nibabel as nib
import numpy as np

folder = Path(sys.argv[1])
content = json.loads((folder / "dataset.json").read_text())
for case in content["training"] + content.get("validation", []):
    path = folder / case["label"]
    image = nib.load(path)
    label = (np.asanyarray(image.dataobj) == 2).astype(np.uint8)  # the lesion; ventricles become background
    nib.save(nib.Nifti1Image(label, image.affine, image.header), path)
content["labels"] = {"0": "background", "1": "lesion"}
(folder / "dataset.json").write_text(json.dumps(content, indent=1))
PY
fi
run() {  # name, then overrides
  local name=$1; shift
  [ -d "$WORK/run_$name/best_model" ] && return  # trained already (a rerun only scores again)
  local start=$SECONDS
  .venv/bin/accelerated-seg train --config configs/demo.yaml --data.cache_dir=$WORK/cache \
      --train.output_dir=$WORK/run_$name --train.progress_bar=false --train.trackers=none "$@" > $HERE/$name.log 2>&1
  echo "$name seconds=$((SECONDS - start))" >> $HERE/$name.log
}
run pretrained --data.dataset=$WORK/pretrain_data/dataset.json
for steps in $STEPS_LIST; do
  for seed in $SEEDS; do
    common="--data.dataset=$WORK/lesion/dataset.json --train.max_steps=$steps --train.val_every=50 --train.seed=$seed"
    run scratch_${steps}_seed$seed $common
    run finetuned_${steps}_seed$seed $common --train.init_from=$WORK/run_pretrained/model
  done
done
.venv/bin/python - "$WORK" "$HERE" <<'PY'
import csv, json, shutil, sys
from pathlib import Path

from accelerated_seg.data.manifest import load_msd
from accelerated_seg.evaluate import evaluate_folders
from accelerated_seg.inference import predict_cases

work, here = Path(sys.argv[1]), Path(sys.argv[2])
cases = load_msd(work / "lesion" / "dataset.json").validation
labels = work / "labels"
shutil.rmtree(labels, ignore_errors=True)
labels.mkdir()
for case in cases:
    shutil.copy(case.label, labels / case.label.name)
summary = {"cases": [c.id for c in cases], "command": f"bash {here}/run.sh", "runs": {}}
for run in sorted(p.name[len("run_"):] for p in work.glob("run_*_seed*")):
    predictions = work / f"predictions_{run}"
    shutil.rmtree(predictions, ignore_errors=True)
    predict_cases(work / f"run_{run}" / "best_model", [str(c.images[0]) for c in cases], predictions)
    result = evaluate_folders(predictions, labels, num_classes=2, output_dir=work / f"evaluation_{run}")
    log = (here / f"{run}.log").read_text()
    summary["runs"][run] = {
        "lesion_dice_of_predict": round(result["per_class"]["1"]["dice"]["mean"], 4),
        "lesion_dice_per_case": [round(float(row["dice"]), 4) for row in csv.DictReader(
            (work / f"evaluation_{run}" / "metrics.csv").open()) if row["class"] == "1"],
        "best_step": json.loads((work / f"run_{run}" / "summary.json").read_text())["best_step"],
        "validation_during_training": json.loads((work / f"run_{run}" / "metrics.json").read_text())["validation"],
        "seconds": int(log.rsplit("seconds=", 1)[1])}
(here / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
print(json.dumps({run: r["lesion_dice_of_predict"] for run, r in summary["runs"].items()}, indent=1))
PY
