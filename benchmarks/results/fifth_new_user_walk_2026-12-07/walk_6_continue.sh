# bash walk_6_continue.sh > walk_6_continue.txt 2>&1   (inference.md "Going on after a stop": the page's command and
# its skipping rules, each against the line it says: the same run; a map removed; the options left out of the digest
# (--sw-batch-size, --aggregate-on-cpu, --sequential); those in it (--overlap, --tta, --precision,
# --transforms-on-device, --keep-largest); --probabilities missing; another model, an ensemble with another member;
# a scan written again (touch); the scans copied with cp -p and with cp; a map whose aux_file records no digest; a map
# decompressed since (.nii), and a .nii another program made; --continue with --input)
source "$(dirname "$0")/env.sh"
rm -rf runs/unet && mkdir -p runs/unet && cp -r runs/fold0/best_model runs/unet/best_model
C="accelerated-seg predict --model runs/unet/best_model scans/ --output predictions_c/"
go() { echo "-- $*"; "$@" 2>&1 | grep -v "^\[" ; echo "   status ${PIPESTATUS[0]}"; }
go $C
go $C --continue
python -c "import nibabel as nib; print('aux_file:', nib.load('predictions_c/case_000.nii.gz').header['aux_file'])"
rm predictions_c/case_002.nii.gz; go $C --continue
for o in "--sw-batch-size 2" "--aggregate-on-cpu" "--sequential"; do go $C --continue $o; done
for o in "--overlap 0.25" "--tta axes" "--precision bf16" "--no-transforms-on-device" "--keep-largest"; do
  go $C --continue $o; go $C --continue; done
echo "== --probabilities"
go $C --continue --probabilities; go $C --continue --probabilities; go $C --continue
echo "== another model; an ensemble with another member"
go accelerated-seg predict --model runs/fold1/best_model scans/ --output predictions_c/ --continue
go accelerated-seg predict --model runs/fold0/best_model --model runs/fold1/best_model scans/ --output predictions_c/ --continue
go accelerated-seg predict --model runs/fold0/best_model --model runs/fold1/best_model scans/ --output predictions_c/ --continue
go accelerated-seg predict --model runs/fold0/best_model --model runs/fold2/best_model scans/ --output predictions_c/ --continue
go $C; go $C --continue
echo "== a scan written again (touch), copies with cp -p and with cp"
touch scans/case_001.nii.gz; go $C --continue
rm -rf scans_p scans_c && mkdir scans_p scans_c && cp -p scans/*.nii.gz scans_p/ && cp scans/*.nii.gz scans_c/
go accelerated-seg predict --model runs/unet/best_model scans_p/ --output predictions_c/ --continue
go accelerated-seg predict --model runs/unet/best_model scans_c/ --output predictions_c/ --continue
go $C --continue
echo "== a map recording no digest (its aux_file emptied, as a version before the eighty-third session wrote it)"
python - <<'PY'
import nibabel as nib, numpy as np
i = nib.load("predictions_c/case_003.nii.gz"); h = i.header.copy(); h["aux_file"] = b""
nib.save(nib.Nifti1Image(np.asanyarray(i.dataobj), i.affine, h), "predictions_c/case_003.nii.gz")
PY
go $C --continue
echo "== a map decompressed since (.nii), then a .nii that another program made"
gunzip predictions_c/case_000.nii.gz; ls predictions_c; go $C --continue; ls predictions_c
python - <<'PY'
import nibabel as nib, numpy as np
i = nib.load("predictions_c/case_001.nii.gz")
nib.save(nib.Nifti1Image(np.zeros(i.shape, np.uint8), i.affine), "predictions_c/case_001.nii")
PY
rm predictions_c/case_001.nii.gz; ls predictions_c; go $C --continue; ls predictions_c
echo "== --continue with --input"
go accelerated-seg predict --model runs/unet/best_model --input scan.nii.gz --output one.nii.gz --continue
