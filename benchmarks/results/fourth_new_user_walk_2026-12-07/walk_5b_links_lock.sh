# bash walk_5b_links_lock.sh > walk_5b_links_lock.txt 2>&1
# walk_5's link and lock cases made as the page means them (walk_5's first tries linked to files predict had not
# written, refused as such, and started the second predict before the first held its lock): a link to a map predict
# wrote, a link of links, two links to one such map; a second predict started once the first has written a map;
# the case that fails alone for a voxel size of 0, and complex voxels.
source /tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07/env.sh
M=output/demo/best_model
set -x
rm -rf study lnk a lnk2.nii.gz two_links && mkdir -p study lnk two_links
st accelerated-seg predict --model $M scans/scan1.nii.gz --output study/seg.nii.gz
ln -s $PWD/study/seg.nii.gz lnk/seg.nii.gz
md5sum study/seg.nii.gz
st accelerated-seg predict --model $M scans/scan2.nii.gz --output lnk/seg.nii.gz
ls -l lnk study; md5sum study/seg.nii.gz
st accelerated-seg predict --model $M scans/scan2.nii.gz --output lnk/seg.nii.gz --continue
# a link of links: lnk2.nii.gz -> a -> study/b
st accelerated-seg predict --model $M scans/scan1.nii.gz --output study/b.nii.gz
ln -s $PWD/study/b.nii.gz a && ln -s $PWD/a lnk2.nii.gz
st accelerated-seg predict --model $M scans/scan2.nii.gz --output lnk2.nii.gz
ls -l a lnk2.nii.gz study
# two outputs that are links to one map predict wrote
ln -s $PWD/study/seg.nii.gz two_links/scan1.nii.gz && ln -s $PWD/study/seg.nii.gz two_links/scan2.nii.gz
st accelerated-seg predict --model $M scans/ --output two_links
# the lock: the second predict started once the first has said its first map
rm -rf out_locked first.txt
accelerated-seg predict --model $M output/demo/synthetic_data/imagesTr --output out_locked --tta all --overlap 0.9 > first.txt 2>&1 &
FIRST=$!
for i in $(seq 1 120); do grep -q '^\[1/' first.txt && break; sleep 0.5; done
cat first.txt
st accelerated-seg predict --model $M scans/ --output out_locked
wait $FIRST; echo "[first's status $?]"; tail -2 first.txt
# a single file held by a live predict, and a folder's predict one of whose maps it is
accelerated-seg predict --model $M --input output/demo/synthetic_data/imagesTr/case_000.nii.gz --output out_locked2/scan1.nii.gz --tta all --overlap 0.95 > first2.txt 2>&1 &
FIRST=$!
sleep 1; for i in $(seq 1 120); do [ -e out_locked2/.scan1.nii.gz.run.lock ] && break; sleep 0.25; done; ls -a out_locked2
st accelerated-seg predict --model $M scans/ --output out_locked2
wait $FIRST; echo "[first's status $?]"; cat first2.txt
# a voxel size of 0; complex voxels
python - <<'PY'
import nibabel as nib, numpy as np
img = nib.load("scans/scan1.nii.gz"); data = img.get_fdata().astype(np.float32)
zero = nib.Nifti1Image(data, None)
zero.set_sform(np.diag([0.0, 1.5, 1.5, 1.0]), code=2)
nib.save(zero, "alone/zero_voxel.nii.gz")
nib.save(nib.Nifti1Image(data.astype(np.complex64), img.affine), "alone/complex.nii.gz")
PY
rm -rf out_alone; st accelerated-seg predict --model $M alone --output out_alone
