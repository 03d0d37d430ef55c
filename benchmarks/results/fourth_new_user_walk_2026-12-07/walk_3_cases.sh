# bash walk_3_cases.sh > walk_3_cases.txt 2>&1
# inference.md "### Inputs and cases", the case table and what follows: grouping by nnU-Net channel naming (a
# 2-channel model, runs/brats2, channels T1 and FLAIR), by channel names, 4D files, a folder per case; a dataset.json
# beside the scans naming the channels in another order (refused) or otherwise (warned); --input's order; every
# problem reported together; grids; the --output forms; the --input form's refusals.
source /tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07/env.sh
M=output/demo/best_model
B=runs/brats2/best_model
T=data_walk/Task02_TwoChannel
set -x
# 1 channel: a plain name and nnU-Net naming
mkdir -p one && cp scans/scan1.nii.gz one/brain_7.nii.gz && cp scans/scan2.nii.gz one/liver_3_0000.nii.gz
st accelerated-seg predict --model $M one --output out_one && ls out_one
# 2 channels: p01_0000, p01_0001
mkdir -p two && cp $T/imagesTr/p01_0000.nii.gz $T/imagesTr/p01_0001.nii.gz two/
st accelerated-seg predict --model $B two --output out_two && ls out_two
# by the channel names of config.json (`_` or `-`, case aside)
mkdir -p named && cp $T/imagesTr/p02_0000.nii.gz named/p02_t1.nii.gz && cp $T/imagesTr/p02_0001.nii.gz named/p02-FLAIR.nii.gz
st accelerated-seg predict --model $B named --output out_named && ls out_named
# one 4D file of every channel, whatever its name
python -c "
import nibabel as nib, numpy as np
a = nib.load('$T/imagesTr/p03_0000.nii.gz'); b = nib.load('$T/imagesTr/p03_0001.nii.gz')
nib.save(nib.Nifti1Image(np.stack([a.get_fdata(), b.get_fdata()], -1).astype(np.float32), a.affine), 'pat_0001.nii.gz')"
st accelerated-seg predict --model $B pat_0001.nii.gz --output out_4d && ls out_4d
python -c "import nibabel as nib; print(nib.load('out_4d/pat_0001.nii.gz').shape)"
# a folder per case
st accelerated-seg predict --model $M 'data/*/image.nii.gz' --output out_percase && ls out_percase
mkdir -p data/case_001 && cp $(ls output/demo/synthetic_data/labelsTr/*.nii.gz | head -1) data/case_001/seg.nii.gz
mkdir -p data/case_002 && cp $(ls output/demo/synthetic_data/labelsTr/*.nii.gz | sed -n 2p) data/case_002/seg.nii.gz
mkdir labels; for d in data/*/; do ln -s "$PWD/${d}seg.nii.gz" "labels/$(basename "$d")_image.nii.gz"; done
ls -l labels
st accelerated-seg evaluate out_percase labels
# a dataset.json one folder up naming the channels in another order: refused; otherwise: warned
mkdir -p Task/imagesTs && cp $T/imagesTs/p06_000[01].nii.gz Task/imagesTs/
echo '{"channel_names": {"0": "FLAIR", "1": "T1"}, "labels": {"background": 0, "tumour": 1}, "numTraining": 0, "file_ending": ".nii.gz"}' > Task/dataset.json
st accelerated-seg predict --model $B Task/imagesTs --output out_task
echo '{"channel_names": {"0": "T1w", "1": "FLAIR2"}, "labels": {"background": 0, "tumour": 1}, "numTraining": 0, "file_ending": ".nii.gz"}' > Task/dataset.json
st accelerated-seg predict --model $B Task/imagesTs --output out_task2
echo '{"channel_names": {"0": "FLAIR", "1": "T1"}, "labels": {"background": 0, "tumour": 1}, "numTraining": 0, "file_ending": ".nii.gz"}' > Task/dataset.json
# --input in the order given, compared as the dataset's channel of its number
st accelerated-seg predict --model $B --input Task/imagesTs/p06_0001.nii.gz Task/imagesTs/p06_0000.nii.gz --output seg_in.nii.gz
st accelerated-seg predict --model $B --input Task/imagesTs/p06_0000.nii.gz Task/imagesTs/p06_0001.nii.gz --output seg_in.nii.gz
# Python: predict_file and predict_cases compare alike
python - <<'PY' 2>&1 | tail -3
from accelerated_seg.inference import predict_file
predict_file("runs/brats2/best_model", ["Task/imagesTs/p06_0000.nii.gz", "Task/imagesTs/p06_0001.nii.gz"], "py_seg.nii.gz")
PY
# every problem reported together: a file without _NNNN, a case lacking a channel, a channel the model does not
# take, two files for one channel
mkdir -p bad && cp $T/imagesTr/p01_0000.nii.gz bad/p01_0000.nii.gz && cp $T/imagesTr/p01_0000.nii.gz bad/loose.nii.gz \
  && cp $T/imagesTr/p02_0000.nii.gz bad/p02_0000.nii.gz && cp $T/imagesTr/p02_0001.nii.gz bad/p02_0001.nii.gz \
  && cp $T/imagesTr/p02_0001.nii.gz bad/p02_0002.nii.gz && cp $T/imagesTr/p03_0000.nii.gz bad/p03_0000.nii.gz \
  && cp $T/imagesTr/p03_0001.nii.gz bad/p03_FLAIR.nii.gz && cp $T/imagesTr/p03_0001.nii.gz bad/p03_0001.nii.gz
touch bad/p01_0001.mha
st accelerated-seg predict --model $B bad --output out_bad
# channels on two grids (the page: FLAIR voxels 3 mm, T1 2.5 mm) and a truncated file
mkdir -p grid && python -c "
import nibabel as nib, numpy as np
for name, mm in (('g_0000', 2.5), ('g_0001', 3.0)):
    img = nib.Nifti1Image(np.random.default_rng(0).normal(size=(16, 16, 16)).astype(np.float32), np.diag([mm, mm, mm, 1]))
    img.header.set_xyzt_units('mm'); nib.save(img, 'grid/' + name + '.nii.gz')"
st accelerated-seg predict --model $B grid --output out_grid
cp grid/g_0001.nii.gz /tmp/walk_h136_g1.nii.gz && head -c 3000 /tmp/walk_h136_g1.nii.gz > grid/g_0001.nii.gz
st accelerated-seg predict --model $B grid --output out_grid
# --output: one case's own path, a folder
st accelerated-seg predict --model $M scans/scan1.nii.gz --output one_case.nii
ls -l one_case.nii
st accelerated-seg predict --model $M scans/ --output two_cases.nii.gz
# the page's one-case commands, scan.nii.gz and the older --input form
cp scans/scan1.nii.gz scan.nii.gz
st accelerated-seg predict --model output/demo/best_model scan.nii.gz --output scan_seg.nii.gz
st accelerated-seg predict --model output/demo/best_model --input scan.nii.gz --output scan_seg.nii.gz
cp $T/imagesTs/p07_0000.nii.gz t1.nii.gz && cp $T/imagesTs/p07_0001.nii.gz flair.nii.gz && cp -r runs/brats2/best_model brats_model
st accelerated-seg predict --model brats_model --input t1.nii.gz flair.nii.gz --output seg.nii.gz
# the --input form's refusals: another count, one 3D file for 2 channels, a 4D file among several
st accelerated-seg predict --model brats_model --input t1.nii.gz flair.nii.gz t1.nii.gz --output seg.nii.gz
python -c "
import nibabel as nib, numpy as np
img = nib.Nifti1Image(np.ones((20, 20, 8), np.float32), np.eye(4)); img.header.set_xyzt_units('mm'); nib.save(img, 't1_small.nii.gz')
img = nib.Nifti1Image(np.ones((20, 20, 8, 2), np.float32), np.eye(4)); img.header.set_xyzt_units('mm'); nib.save(img, 't1_4d.nii.gz')"
cp t1_small.nii.gz t1.nii.gz
st accelerated-seg predict --model brats_model --input t1.nii.gz --output seg.nii.gz
cp t1_4d.nii.gz t1.nii.gz
st accelerated-seg predict --model brats_model --input t1.nii.gz flair.nii.gz --output seg.nii.gz
mkdir -p fourd && cp t1_4d.nii.gz fourd/case_0000.nii.gz && cp flair.nii.gz fourd/case_0001.nii.gz
st accelerated-seg predict --model brats_model fourd --output out_fourd
# both faults: a 4D file and channels on different grids
mkdir -p both && cp t1_4d.nii.gz both/case_0000.nii.gz && cp grid/g_0000.nii.gz both/case_0001.nii.gz
st accelerated-seg predict --model brats_model both --output out_both
