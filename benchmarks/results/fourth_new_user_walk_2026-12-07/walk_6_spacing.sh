# bash walk_6_spacing.sh > walk_6_spacing.txt 2>&1
# inference.md "### What the spacing checks judge, and what they do not": a unit other than the model's, a case's
# files in two units, a header in metres read as mm (against data.spacing set and the cases' median), the memory
# refusal, and what is not judged (centimetre numbers under no unit, exit 0 without a warning).
source /tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07/env.sh
M=output/demo/best_model
B=runs/brats2/best_model
set -x
python $H/make_units.py
python -c "import json; c = json.load(open('$M/config.json')); print({k: c.get(k) for k in ('spacing', 'spacing_unit', 'spacing_set', 'cases_median_spacing')})"
python -c "import json; c = json.load(open('$B/config.json')); print({k: c.get(k) for k in ('spacing', 'spacing_unit', 'spacing_set', 'cases_median_spacing')})"
for f in micrometres metres_as_mm metres huge_no_unit huge_mm; do
  st accelerated-seg predict --model $M units/$f.nii.gz --output out_units/$f.nii.gz
done
st accelerated-seg predict --model $M units/centimetres_no_unit.nii.gz --output out_units/cm.nii.gz
python -c "import nibabel as nib; print(nib.load('out_units/cm.nii.gz').shape, nib.load('units/centimetres_no_unit.nii.gz').header.get_zooms())"
# a case's files in two units, for a model that records mm; one declaring micrometres on mm numbers
st accelerated-seg predict --model $B units2/mix --output out_units2
st accelerated-seg predict --model $B units2/declared --output out_units2
# the 2-channel model: a scan 100 times finer than its spacing, that spacing the cases' median (not set)
python -c "
import nibabel as nib, numpy as np
img = nib.load('data_walk/Task02_TwoChannel/imagesTs/p07_0000.nii.gz'); a = np.diag([0.01, 0.01, 0.01, 1]) @ img.affine
for c in (0, 1):
    src = nib.load(f'data_walk/Task02_TwoChannel/imagesTs/p07_000{c}.nii.gz')
    out = nib.Nifti1Image(src.get_fdata().astype(np.float32), a); out.header.set_xyzt_units('mm'); nib.save(out, f'units2/fine_000{c}.nii.gz')"
st accelerated-seg predict --model $B --input units2/fine_0000.nii.gz units2/fine_0001.nii.gz --output fine_seg.nii.gz
