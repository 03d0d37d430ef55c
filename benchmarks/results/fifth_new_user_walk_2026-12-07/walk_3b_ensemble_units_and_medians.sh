# bash walk_3b_ensemble_units_and_medians.sh > walk_3b_ensemble_units_and_medians.txt 2>&1   (inference.md
# "Ensembles"' bullets, redone after walk_3's probes fell short of them: there the edited member recorded a unit and
# fold 0 none, which joins any, as the page says; and the fine scan declared no unit. Here: two members recording
# mm and micrometres (copies of folds 0 and 1, their config.json edited); a scan 100x finer than the medians declaring
# mm, for folds 0+1 (spacing set) and for a member whose spacing is a median (runs/median1, 1.5 mm) beside one set
# to the same 1.5 mm (runs/set1p5))
source "$(dirname "$0")/env.sh"
rm -rf um0 um1 && cp -r runs/fold0/best_model um0 && cp -r runs/fold1/best_model um1
python - <<'PY'
import json
for folder, unit in (("um0", "mm"), ("um1", "micron")):
    c = json.load(open(f"{folder}/config.json")); c["spacing_unit"] = unit
    json.dump(c, open(f"{folder}/config.json", "w"), indent=1)
PY
accelerated-seg predict --model um0 --model um1 scans/ --output p_y/; echo "status $?"
mkdir -p fine_mm && python - <<'PY'
import nibabel as nib, numpy as np
i = nib.load("scans/case_000.nii.gz")
image = nib.Nifti1Image(np.asanyarray(i.dataobj), np.diag([0.012, 0.012, 0.012, 1.0]))
image.header.set_xyzt_units("mm")
nib.save(image, "fine_mm/fine_000.nii.gz")
PY
echo "== folds 0 and 1 (3 mm set; cases' medians 1.5 mm)"
accelerated-seg predict --model runs/fold0/best_model --model runs/fold1/best_model fine_mm/ --output p_y/; echo "status $?"
echo "== a median member (1.5 mm) beside a member set to 1.5 mm"
T="--train.max_steps=2 --train.val_every=2 --train.save_every=2 --optim.warmup_steps=0 --data.patch_size=[16,16,16]"
T="$T --data.num_workers=0 --train.progress_bar=false"
NET="--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}"
accelerated-seg train --config configs/demo.yaml $T "$NET" --data.spacing=[1.5,1.5,1.5] --data.dataset=data/dataset.json \
    --data.num_folds=5 --data.fold=2 --train.output_dir=runs/set1p5 2>&1 | grep -E "error"
accelerated-seg predict --model runs/set1p5/best_model --model runs/median1/best_model fine_mm/ --output p_y/; echo "status $?"
accelerated-seg predict --model runs/set1p5/best_model fine_mm/ --output p_y/; echo "status $?"
ls -d p_y 2>&1
