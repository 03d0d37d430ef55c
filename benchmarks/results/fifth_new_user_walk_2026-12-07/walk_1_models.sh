# bash walk_1_models.sh > walk_1_models.txt 2>&1   (the walk's models and scans: a user's five folds of a
# cross-validation on `accelerated-seg synth` phantoms (10 cases, no validation list, data.num_folds 5), the demo's
# run as output/demo (6 phantoms), each a few steps of the demo's config at a 16^3 patch and 3 mm, a 3-level U-Net;
# (a first try wrote --model.args without a space after its colons: refused in one line saying so, the walk's slip);
# scans/: 4 phantoms of another seed, scan.nii.gz one of them)
source "$(dirname "$0")/env.sh"
T="--train.max_steps=4 --train.val_every=4 --train.save_every=4 --optim.warmup_steps=0 --data.patch_size=[16,16,16]"
T="$T --data.spacing=[3.0,3.0,3.0] --data.num_workers=0 --train.progress_bar=false"
NET="--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}"
accelerated-seg synth data/ --cases 10 --validation 0; echo "status $?"
for k in 0 1 2 3 4; do
  accelerated-seg train --config configs/demo.yaml $T "$NET" --data.dataset=data/dataset.json --data.num_folds=5 \
      --data.fold=$k --train.output_dir=runs/fold$k 2>&1 | grep -E "split|error|Dice|exported" ; echo "fold $k status ${PIPESTATUS[0]}"
done
accelerated-seg train --config configs/demo.yaml $T "$NET" --data.synthetic.num_cases=6 --data.synthetic.num_validation=2 \
    2>&1 | grep -E "split|error|exported"; echo "demo status ${PIPESTATUS[0]}"
ls runs/fold0/best_model output/demo/best_model
accelerated-seg synth testdata/ --cases 4 --validation 0 --seed 1; echo "status $?"
mkdir -p scans && cp testdata/imagesTr/*.nii.gz scans/ && cp scans/case_000.nii.gz scan.nii.gz
ls scans
python -c "
import nibabel as nib, glob
for f in sorted(glob.glob('scans/*.nii.gz')):
    i = nib.load(f); print(f, i.shape, nib.aff2axcodes(i.affine), i.header.get_zooms())"
