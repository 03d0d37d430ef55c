#!/bin/bash
# train.head_only_steps on the fine-tuning task of finetune_demo_session_2026-11-28d (run that script first:
# this one reuses its work folder, i.e. the pretrained 3-class demo export and the lesion-only phantoms, and
# compares with its arms). Each arm fine-tunes the same export with the same settings and seeds as 28d's
# fine-tuned arm, plus its own overrides:
#   head50    the first 50 steps train the new output layers alone (train.head_only_steps=50)
#   warmup50  the whole network, its rate warmed up over 50 steps instead of 20 (optim.warmup_steps=50):
#             a longer warm-up alone, as nnU-Net's fine-tuning trainers use, as the control
#   head20, head100  how much the number of head-only steps matters (20 at 100 and 300 steps, 100 at 300)
# One arm of 28d (fine-tuned, 100 steps, seed 0) is trained again as a check that the runs repeat on this
# machine. The best models then segment the 4 validation phantoms through `predict`, and `evaluate` scores
# them against their labels, as in 28d.
# Run from the repository root; writes summary.json and the training logs beside this script.
set -e
HERE=benchmarks/results/finetune_head_only_session_2026-11-28e
BEFORE=benchmarks/results/finetune_demo_session_2026-11-28d
WORK=${WORK:-/tmp/finetune_demo}
SEEDS=${SEEDS:-"0 1"}
[ -d "$WORK/run_pretrained/model" ] || { echo "run $BEFORE/run.sh first"; exit 1; }
run() {  # name, then overrides
  local name=$1; shift
  [ -d "$WORK/run_$name/best_model" ] && return  # trained already (a rerun only scores again)
  local start=$SECONDS
  .venv/bin/accelerated-seg train --config configs/demo.yaml --data.cache_dir=$WORK/cache \
      --train.output_dir=$WORK/run_$name --train.progress_bar=false --train.trackers=none "$@" > $HERE/$name.log 2>&1
  echo "$name seconds=$((SECONDS - start))" >> $HERE/$name.log
}
finetune="--data.dataset=$WORK/lesion/dataset.json --train.val_every=50 --train.init_from=$WORK/run_pretrained/model"
run repeat_finetuned_100_seed0 $finetune --train.max_steps=100 --train.seed=0
for seed in $SEEDS; do
  for steps in 100 300 600; do
    run head50_${steps}_seed$seed $finetune --train.max_steps=$steps --train.seed=$seed --train.head_only_steps=50
  done
  for steps in 100 300; do
    run warmup50_${steps}_seed$seed $finetune --train.max_steps=$steps --train.seed=$seed --optim.warmup_steps=50
    run head20_${steps}_seed$seed $finetune --train.max_steps=$steps --train.seed=$seed --train.head_only_steps=20
  done
  run head100_300_seed$seed $finetune --train.max_steps=300 --train.seed=$seed --train.head_only_steps=100
done
.venv/bin/python - "$WORK" "$HERE" "$BEFORE" <<'PY'
import csv, json, shutil, sys
from pathlib import Path

from accelerated_seg.data.manifest import load_msd
from accelerated_seg.evaluate import evaluate_folders
from accelerated_seg.inference import predict_cases

work, here, before = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
cases = load_msd(work / "lesion" / "dataset.json").validation
labels = work / "labels"
shutil.rmtree(labels, ignore_errors=True)
labels.mkdir()
for case in cases:
    shutil.copy(case.label, labels / case.label.name)
summary = {"cases": [c.id for c in cases], "command": f"bash {here}/run.sh", "runs": {}}
for log in sorted(here.glob("*.log")):
    run = log.stem
    predictions = work / f"predictions_{run}"
    shutil.rmtree(predictions, ignore_errors=True)
    predict_cases(work / f"run_{run}" / "best_model", [str(c.images[0]) for c in cases], predictions)
    result = evaluate_folders(predictions, labels, num_classes=2, output_dir=work / f"evaluation_{run}")
    summary["runs"][run] = {
        "lesion_dice_of_predict": round(result["per_class"]["1"]["dice"]["mean"], 4),
        "lesion_dice_per_case": [round(float(row["dice"]), 4) for row in csv.DictReader(
            (work / f"evaluation_{run}" / "metrics.csv").open()) if row["class"] == "1"],
        "best_step": json.loads((work / f"run_{run}" / "summary.json").read_text())["best_step"],
        "validation_during_training": json.loads((work / f"run_{run}" / "metrics.json").read_text())["validation"],
        "seconds": int(log.read_text().rsplit("seconds=", 1)[1])}
earlier = json.loads((before / "summary.json").read_text())["runs"]
both = {**{f"28d/{run}": result for run, result in earlier.items()}, **summary["runs"]}
table = {}  # steps_seed -> arm -> lesion Dice of predict; validation Dice at step 50
for run, result in both.items():
    arm, steps_seed = run.split("/")[-1].split("_", 1)
    if arm in ("scratch", "finetuned", "head20", "head50", "head100", "warmup50"):
        step_50 = next(v["dice_lesion"] for v in result["validation_during_training"] if v["step"] == 50)
        table.setdefault(steps_seed, {})[arm] = {"dice": result["lesion_dice_of_predict"],
                                                 "validation_dice_at_step_50": round(step_50, 4)}
summary["lesion_dice_by_arm"] = table
summary["repeat_of_28d"] = {"finetuned_100_seed0": earlier["finetuned_100_seed0"]["lesion_dice_of_predict"],
                            "again": summary["runs"]["repeat_finetuned_100_seed0"]["lesion_dice_of_predict"]}
(here / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
print(json.dumps({"table": table, "repeat": summary["repeat_of_28d"]}, indent=1))
PY
