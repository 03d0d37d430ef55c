# bash walk_5_written.sh > walk_5_written.txt 2>&1
# inference.md "### What is written, and when it is refused": an output through a symbolic link (a link of links
# too), a dangling link, a looping one, two outputs linking to one file; the lock (a second predict beside a live
# one); the list refused before anything is segmented; a rerun replacing only its own files (a hand-corrected map
# refused, --output labelsTr refused, probabilities deleted by a rerun without them); a case that fails alone.
source /tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07/env.sh
M=output/demo/best_model
D=output/demo/synthetic_data
set -x
# an output that is a symbolic link, written through; a link of links
mkdir -p study lnk && rm -f lnk/seg.nii.gz && ln -s $PWD/study/seg.nii.gz lnk/seg.nii.gz && echo old > study/seg.nii.gz
st accelerated-seg predict --model $M scans/scan1.nii.gz --output lnk/seg.nii.gz
python -c "from accelerated_seg.predict_marks import *" 2>/dev/null
echo old > study/b && ln -sfn $PWD/study/b a && ln -sfn $PWD/a lnk2.nii.gz
st accelerated-seg predict --model $M scans/scan1.nii.gz --output lnk2.nii.gz
ls -l lnk lnk2.nii.gz a study
rm study/seg.nii.gz
st accelerated-seg predict --model $M scans/scan1.nii.gz --output lnk/seg.nii.gz
ln -sfn loop.nii.gz loop.nii.gz
st accelerated-seg predict --model $M scans/scan1.nii.gz --output loop.nii.gz
# two outputs that are links to one file
mkdir -p two_links && ln -sfn $PWD/study/one.nii.gz two_links/scan1.nii.gz && ln -sfn $PWD/study/one.nii.gz two_links/scan2.nii.gz
st accelerated-seg predict --model $M scans/ --output two_links
# the lock: a second predict into a folder a live one holds
(accelerated-seg predict --model $M $D/imagesTr --output out_locked --tta all > lock_first.txt 2>&1 &)
sleep 5
st accelerated-seg predict --model $M scans/ --output out_locked
wait; sleep 20; cat lock_first.txt
# refused before anything is segmented
st accelerated-seg predict --model $M scans/scan1.nii.gz --output scans/scan1.nii.gz
st accelerated-seg predict --model $M scans/ --output scans
touch a_file && st accelerated-seg predict --model $M scans/ --output a_file
mkdir -p out_pf/scan1_probs.nii.gz && st accelerated-seg predict --model $M scans/ --output out_pf --probabilities
st accelerated-seg predict --model $M scans/ --output a_file/below
mkdir -p ro && chmod 555 ro && st accelerated-seg predict --model $M scans/ --output ro
mkdir -p xp && cp scans/scan1.nii.gz xp/x.nii.gz && cp scans/scan2.nii.gz xp/x_probs.nii.gz
st accelerated-seg predict --model $M xp --output out_xp --probabilities
# a rerun replaces only its own files; another file under an output's name; a map corrected by hand
st accelerated-seg predict --model $M scans/ --output out_rerun --probabilities
ls out_rerun
st accelerated-seg predict --model $M scans/ --output out_rerun
ls out_rerun
python -c "import nibabel as nib; h = nib.load('out_rerun/scan1.nii.gz').header; print(h['descrip'], '|', h['aux_file'])"
python -c "
import nibabel as nib, numpy as np
img = nib.load('out_rerun/scan1.nii.gz'); data = np.asanyarray(img.dataobj).copy(); data[0, 0, 0] = 1
nib.save(nib.Nifti1Image(data, img.affine, img.header), 'out_rerun/scan1.nii.gz')"
st accelerated-seg predict --model $M scans/ --output out_rerun
cp -r $D/labelsTr labelsTr && st accelerated-seg predict --model $M $D/imagesTr --output labelsTr
# a case the rerun fails on has the earlier run's files deleted; a case that fails alone ends with status 2
mkdir -p fails && cp scans/scan1.nii.gz fails/c01.nii.gz && cp scans/scan2.nii.gz fails/c02.nii.gz
st accelerated-seg predict --model $M fails --output out_fails
python - <<'PY'
import nibabel as nib, numpy as np
img = nib.load("fails/c02.nii.gz"); data = img.get_fdata().astype(np.float32); data[1, 1, 1] = np.nan; data[2, 2, 2] = np.inf
nib.save(nib.Nifti1Image(data, img.affine, img.header), "fails/c02.nii.gz")
PY
st accelerated-seg predict --model $M fails --output out_fails
ls out_fails
# the others that fail alone: 2D, 4D of other volumes, (x, y, z, 1, C), (x, y, z, 1, 1), no voxel above 0
python - <<'PY'
import os
import nibabel as nib, numpy as np
os.makedirs("alone", exist_ok=True)
img = nib.load("scans/scan1.nii.gz"); data = img.get_fdata().astype(np.float32)
def save(name, array, affine=img.affine):
    out = nib.Nifti1Image(array, affine); out.header.set_xyzt_units("mm"); nib.save(out, f"alone/{name}.nii.gz")
save("ok", data)
save("flat", data[:, :, 0])
save("three_volumes", np.stack([data] * 3, -1))
save("vector", np.stack([data] * 2, -1)[:, :, :, None, :])
save("vector_one", data[:, :, :, None, None])
save("below_zero", data - data.max() - 1)
save("zero_voxel", data, np.diag([0.0, 1.5, 1.5, 1.0]))
save("complex", data.astype(np.complex64))
PY
st accelerated-seg predict --model $M alone --output out_alone
ls out_alone
