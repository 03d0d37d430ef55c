# bash walk_3_ensembles.sh > walk_3_ensembles.txt 2>&1   (inference.md "Ensembles": the page's five-fold command with
# the walk's five folds; two copies of one model against that model; a model listed twice; members that differ (a
# fold trained with data.spacing unset: a median); a member recording another spacing_unit (its config.json edited);
# a scan far finer than the members' medians; the coarsest-median example)
source "$(dirname "$0")/env.sh"
accelerated-seg predict --model runs/fold0/best_model --model runs/fold1/best_model --model runs/fold2/best_model \
    --model runs/fold3/best_model --model runs/fold4/best_model scans/ --output predictions/; echo "status $?"
ls predictions
echo "== two copies of fold 0 against fold 0 alone"
rm -rf copy0 && cp -r runs/fold0/best_model copy0
accelerated-seg predict --model runs/fold0/best_model scans/ --output p_one/ --probabilities > /dev/null; echo "status $?"
accelerated-seg predict --model runs/fold0/best_model --model copy0 scans/ --output p_two/ --probabilities > /dev/null
echo "status $?"
python - <<'PY'
import glob, os, nibabel as nib, numpy as np
for f in sorted(glob.glob("p_one/*.nii.gz")):
    a, b = nib.load(f), nib.load(f.replace("p_one", "p_two"))
    print(os.path.basename(f), "identical voxels:", bool((np.asanyarray(a.dataobj) == np.asanyarray(b.dataobj)).all()),
          "bytes identical:", open(f, "rb").read() == open(f.replace("p_one", "p_two"), "rb").read())
PY
echo "== the ensemble's mean against fold 0 and fold 1 alone"
accelerated-seg predict --model runs/fold1/best_model scans/ --output p_one1/ --probabilities > /dev/null
accelerated-seg predict --model runs/fold0/best_model --model runs/fold1/best_model scans/ --output p_01/ \
    --probabilities > /dev/null; echo "status $?"
python - <<'PY'
import nibabel as nib, numpy as np
for c in ("case_000", "case_003"):
    p0, p1, p01 = (nib.load(f"{d}/{c}_probs.nii.gz").get_fdata() for d in ("p_one", "p_one1", "p_01"))
    print(c, "ensemble - mean of the two:", float(np.abs(p01 - (p0 + p1) / 2).max()))
PY
echo "== a model listed twice"
accelerated-seg predict --model runs/fold0/best_model --model runs/fold0/best_model scans/ --output p_x/; echo "status $?"
accelerated-seg predict --model runs/fold0/best_model --model ./runs/fold0/best_model/ scans/ --output p_x/; echo "status $?"
echo "== a fold trained with data.spacing unset (a median) beside fold 0 (3 mm set)"
T="--train.max_steps=2 --train.val_every=2 --train.save_every=2 --optim.warmup_steps=0 --data.patch_size=[16,16,16]"
T="$T --data.num_workers=0 --train.progress_bar=false"
NET="--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}"
accelerated-seg train --config configs/demo.yaml $T "$NET" --data.spacing=null --data.dataset=data/dataset.json \
    --data.num_folds=5 --data.fold=1 --train.output_dir=runs/median1 2>&1 | grep -E "error|spacing"
python -c "import json; c = json.load(open('runs/median1/best_model/config.json')); print({k: v for k, v in c.items() if 'spacing' in k}, c['preprocessing'].get('spacing'))"
accelerated-seg predict --model runs/fold0/best_model --model runs/median1/best_model scans/ --output p_x/; echo "status $?"
echo "== a member recording another spacing_unit"
python -c "import json; c = json.load(open('runs/fold0/best_model/config.json')); print({k: v for k, v in c.items() if 'spacing' in k})"
rm -rf um1 && cp -r runs/fold1/best_model um1
python - <<'PY'
import json
c = json.load(open("um1/config.json")); c["spacing_unit"] = "micron"; json.dump(c, open("um1/config.json", "w"), indent=1)
PY
accelerated-seg predict --model runs/fold0/best_model --model um1 scans/ --output p_x/; echo "status $?"
echo "== a scan 100 times finer than the members' median, declaring mm"
mkdir -p fine && python - <<'PY'
import nibabel as nib, numpy as np
i = nib.load("scans/case_000.nii.gz")
nib.save(nib.Nifti1Image(np.asanyarray(i.dataobj), np.diag([0.01, 0.01, 0.01, 1.0])), "fine/fine_000.nii.gz")
PY
accelerated-seg predict --model runs/fold0/best_model --model runs/fold1/best_model fine/ --output p_x/; echo "status $?"
python -c "
from accelerated_seg.ensemble import _cases_median
print('coarsest of [2, 2, 2] and [1, 3, 0.5]:', _cases_median([(None, {'cases_median_spacing': [2, 2, 2]}), (None, {'cases_median_spacing': [1, 3, 0.5]})]))"
ls -d p_x 2>&1
