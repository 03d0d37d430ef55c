# bash walk_4_keep_largest.sh > walk_4_keep_largest.txt 2>&1   (inference.md "Probability maps"' label values and
# "One piece per structure": a model trained on make_data.py's abdomen (values 0, 1, 6), its config.json's label_map
# and labels, its probabilities' channels; the page's two --keep-largest commands (liver_model: fold 0 of the
# phantoms; abdomen_model: the abdomen model), the pieces counted with scipy (26-connectivity) before and after; a
# value the model does not write; the estimator's evaluate with and without keep_largest)
source "$(dirname "$0")/env.sh"
python /tmp/wt_h137/benchmarks/results/fifth_new_user_walk_2026-12-07/make_data.py
T="--train.max_steps=4 --train.val_every=4 --train.save_every=4 --optim.warmup_steps=0 --data.patch_size=[16,16,16]"
T="$T --data.num_workers=0 --train.progress_bar=false"
NET="--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}"
accelerated-seg train --config configs/demo.yaml $T "$NET" --data.dataset=data_walk/abdomen/dataset.json --data.spacing=null \
    --train.output_dir=runs/abdomen 2>&1 | grep -E "error|classes"; echo "status ${PIPESTATUS[0]}"
rm -rf liver_model abdomen_model && cp -r runs/fold0/best_model liver_model && cp -r runs/abdomen/best_model abdomen_model
python -c "import json; c = json.load(open('abdomen_model/config.json')); print('labels', c['labels'], 'label_map', c['preprocessing']['label_map'], 'num_classes', c['num_classes'])"
mkdir -p ab_scans && cp data_walk/abdomen/imagesTr/abdomen_4.nii.gz data_walk/abdomen/imagesTr/abdomen_5.nii.gz ab_scans/
accelerated-seg predict --model abdomen_model ab_scans/ --output ab_pred/ --probabilities; echo "status $?"
python - <<'PY'
import json, nibabel as nib, numpy as np
c = json.load(open("abdomen_model/config.json"))
value_of = {cls: value for value, cls in c["preprocessing"]["label_map"]}
for case in ("abdomen_4", "abdomen_5"):
    labels = np.asanyarray(nib.load(f"ab_pred/{case}.nii.gz").dataobj)
    probs = nib.load(f"ab_pred/{case}_probs.nii.gz").get_fdata()
    print(case, "values written", sorted(np.unique(labels).tolist()), "probs shape", probs.shape,
          "argmax's classes as values == label map:", bool((np.vectorize(lambda k: value_of.get(k, 0))(probs.argmax(-1)) == labels).all()))
PY
echo "== the page's commands"
accelerated-seg predict --model liver_model scans/ --output predictions/ --keep-largest; echo "status $?"
cp -r predictions pred_kl_all
accelerated-seg predict --model abdomen_model ab_scans/ --output predictions/ --keep-largest 1 6; echo "status $?"
accelerated-seg predict --model liver_model scans/ --output pred_plain/; echo "status $?"
accelerated-seg predict --model abdomen_model ab_scans/ --output ab_plain/; echo "status $?"
python - <<'PY'
import glob, os, nibabel as nib, numpy as np
from scipy import ndimage
def pieces(path):
    a = np.asanyarray(nib.load(path).dataobj)
    return {int(v): ndimage.label(a == v, np.ones((3, 3, 3)))[1] for v in np.unique(a) if v}
for plain, kept in [(f, f.replace("pred_plain", "pred_kl_all")) for f in sorted(glob.glob("pred_plain/*.nii.gz"))] + \
        [(f, f.replace("ab_plain", "predictions")) for f in sorted(glob.glob("ab_plain/*.nii.gz"))]:
    print(os.path.basename(plain), "pieces per value without:", pieces(plain), "with --keep-largest:", pieces(kept))
PY
echo "== a value the model does not write"; rm -rf p_x
accelerated-seg predict --model liver_model scans/ --output p_x/ --keep-largest 6; echo "status $?"
accelerated-seg predict --model abdomen_model ab_scans/ --output p_x/ --keep-largest 2; echo "status $?"
ls -d p_x 2>&1
echo "== an input after --keep-largest"
accelerated-seg predict --model liver_model --output p_x/ --keep-largest 1 scans/; echo "status $?"
echo "== Segmentation.evaluate with and without keep_largest"
python - <<'PY'
from accelerated_seg.estimator import Segmentation
from accelerated_seg.estimator_dataset import Dataset
from accelerated_seg.data.manifest import load_cases
m = load_cases("data/dataset.json", num_folds=5, fold=0)
data = Dataset.from_files([(c.images, c.label) for c in m.training], validation_pairs=[(c.images, c.label) for c in m.validation],
                          label_values=m.label_values, class_names=list(m.labels.values()), block_shape=(16, 16, 16))
model = Segmentation.load("runs/fold0/best_model")
s = model.evaluate(data); print("evaluate:", s["overall"])
s = model.evaluate(data, keep_largest=True); print("evaluate keep_largest=True:", s["overall"])
PY
