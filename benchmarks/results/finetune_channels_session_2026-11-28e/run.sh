#!/bin/bash
# A one-channel pretrained network fine-tuned on two channels (its input layers spread over them), against
# a new network, on the lesion task of finetune_demo_session_2026-11-28d (run that script first: this one
# reuses its pretrained 3-class demo export and its lesion-only phantoms, 4 to train on, 4 to validate on).
# Each phantom gets a second channel, written beside the first (nnU-Net naming: _0000, _0001):
#   similar   another acquisition of the same contrast: 0.8 x the image + noise (sd 0.1 of the image's)
#   inverted  an opposite contrast: -1 x the image + the same noise; spread weights answer the mean of
#             the channels, which for these two cancels: the case the spreading is worst at
# Arms, 300 steps, seeds 0 and 1, the demo's settings:
#   new       a new network on the two channels
#   spread    the demo export, its input layers spread over the two channels, the new output layers
#             trained alone for the first 50 steps (train.head_only_steps=50, as docs/checkpoints.md advises)
# Scored by each run's best validation Dice during training (summary.json: sliding window over the 4 whole
# validation volumes, every 50 steps), and the validation Dice at steps 50 and 100.
# Run from the repository root; writes summary.json and the training logs beside this script.
set -e
HERE=benchmarks/results/finetune_channels_session_2026-11-28e
WORK=${WORK:-/tmp/finetune_demo}
SEEDS=${SEEDS:-"0 1"}
[ -d "$WORK/run_pretrained/model" ] || { echo "run benchmarks/results/finetune_demo_session_2026-11-28d/run.sh first"; exit 1; }
for contrast in similar inverted; do
  [ -f "$WORK/lesion_$contrast/dataset.json" ] || .venv/bin/python - "$WORK/lesion" "$WORK/lesion_$contrast" "$contrast" <<'PY'
import json, sys
from pathlib import Path

import nibabel as nib
import numpy as np

source, folder, contrast = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
content = json.loads((source / "dataset.json").read_text())
rng = np.random.default_rng(0)
for split in ("training", "validation"):
    for case in content[split]:
        image = nib.load(source / case["image"])
        first = np.asanyarray(image.dataobj).astype(np.float32)
        noise = rng.normal(0.0, 0.1 * float(first.std()), first.shape).astype(np.float32)
        second = (0.8 if contrast == "similar" else -1.0) * first + noise
        stem = Path(case["image"]).name[: -len(".nii.gz")]
        paths = []
        for channel, array in enumerate((first, second)):
            path = folder / "imagesTr" / f"{stem}_{channel:04d}.nii.gz"
            path.parent.mkdir(parents=True, exist_ok=True)
            nib.save(nib.Nifti1Image(array, image.affine), path)
            paths.append(f"./imagesTr/{path.name}")
        label = folder / case["label"]
        label.parent.mkdir(parents=True, exist_ok=True)
        label.write_bytes((source / case["label"]).read_bytes())
        case["image"] = paths
content["modality"] = {"0": "MRI", "1": "MRI_B"}
(folder / "dataset.json").write_text(json.dumps(content, indent=1))
PY
done
run() {  # name, then overrides
  local name=$1; shift
  [ -d "$WORK/run_$name/best_model" ] && return  # trained already (a rerun only scores again)
  local start=$SECONDS
  .venv/bin/accelerated-seg train --config configs/demo.yaml --data.cache_dir=$WORK/cache \
      --train.output_dir=$WORK/run_$name --train.progress_bar=false --train.trackers=none "$@" > $HERE/$name.log 2>&1
  echo "$name seconds=$((SECONDS - start))" >> $HERE/$name.log
}
for contrast in similar inverted; do
  for seed in $SEEDS; do
    common="--data.dataset=$WORK/lesion_$contrast/dataset.json --train.max_steps=300 --train.val_every=50 --train.seed=$seed"
    run ${contrast}_new_seed$seed $common
    run ${contrast}_spread_seed$seed $common --train.init_from=$WORK/run_pretrained/model --train.head_only_steps=50
  done
done
.venv/bin/python - "$WORK" "$HERE" <<'PY'
import json, sys
from pathlib import Path

work, here = Path(sys.argv[1]), Path(sys.argv[2])
runs = {}
for log in sorted(here.glob("*.log")):
    run = log.stem
    validation = json.loads((work / f"run_{run}" / "metrics.json").read_text())["validation"]
    at = {v["step"]: round(v["dice_lesion"], 4) for v in validation}
    runs[run] = {"best_validation_dice": round(json.loads((work / f"run_{run}" / "summary.json").read_text())["best_dice"], 4),
                 "validation_dice_by_step": at, "seconds": int(log.read_text().rsplit("seconds=", 1)[1]),
                 "spread_message": next((line.strip() for line in log.read_text().splitlines()
                                         if "spread its one channel" in line), None)}
(here / "summary.json").write_text(json.dumps({"command": f"bash {here}/run.sh", "runs": runs}, indent=1) + "\n")
print(json.dumps({run: (r["best_validation_dice"], r["validation_dice_by_step"].get(50)) for run, r in runs.items()},
                 indent=1))
PY
