# bash walk_4_data_infer_predict.sh > walk_4_data_infer_predict.txt 2>&1
# docs/performance.md "`benchmark data`, `infer` and `predict`" (and "No benchmark replaces another's result"):
# each scaled down by its own options to tiny phantoms and volumes; the refusals the page lists, made as it says.
source /tmp/wt_h145/benchmarks/results/ninth_new_user_walk_2026-12-07/env.sh
set -x
DATA=(--cases 2 --size-mm 32 32 32 --spacing-mm 2 --patch 8 --workers 1 --batch 2 --batches 2 --blocks 2)
# data: twice without --output (the committed data_2cpu.json is beside: data_2cpu_2.json, then _3), a --data-dir
time accelerated-seg benchmark data "${DATA[@]}"; echo "status $?"
time accelerated-seg benchmark data "${DATA[@]}" --data-dir $WALK/phantoms; echo "status $?"
ls benchmarks/results/ | grep '^data_2cpu'
ls $WALK/phantoms $WALK/phantoms/cache -a
# the refusals: a --patch above the phantoms cropped to their foreground, a --batch above --cases x 4, a --data-dir
# that is a file, a volume beyond the host's memory
accelerated-seg benchmark data "${DATA[@]}" --patch 15; echo "status $?"
accelerated-seg benchmark data "${DATA[@]}" --patch 17; echo "status $?"
accelerated-seg benchmark data "${DATA[@]}" --batch 9; echo "status $?"
touch $WALK/a_file
accelerated-seg benchmark data "${DATA[@]}" --data-dir $WALK/a_file; echo "status $?"
accelerated-seg benchmark data --size-mm 4000 4000 4000; echo "status $?"
# infer: the demo's U-Net with random weights, a 32^3 volume, a 16^3 window; twice without --output
time accelerated-seg benchmark infer --size 32 32 32 --roi 16 --blocks 2 --device cpu; echo "status $?"
ls benchmarks/results/ | grep '^infer_2cpu'
accelerated-seg benchmark infer --size 4000 4000 4000 --roi 64 --device cpu; echo "status $?"
# predict: 2 scans of 32^3, a 16^3 window, the U-Net of channels 4 8, one block
time accelerated-seg benchmark predict --cases 2 --size 32 32 32 --roi 16 --channels 4 8 --blocks 1 \
    --output $WALK/predict.json; echo "status $?"
accelerated-seg benchmark predict --roi 0; echo "status $?"
accelerated-seg benchmark predict --size 3000 3000 3000; echo "status $?"
python - <<'PY'
import json, os
d = json.load(open(os.environ["WALK"] + "/predict.json"))
print(sorted(d))
print("roi recorded:", d.get("roi"))
PY
