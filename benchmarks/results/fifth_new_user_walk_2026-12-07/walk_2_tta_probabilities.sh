# bash walk_2_tta_probabilities.sh > walk_2_tta_probabilities.txt 2>&1   (inference.md "Test-time augmentation"
# and "Probability maps": each --tta form on the walk's 4 scans with fold 0, timed; a bare --tta before an input;
# --probabilities in the folder form and the single-file form, the maps' dtype, shape, grid, sums and argmax)
source "$(dirname "$0")/env.sh"
M=runs/fold0/best_model
for form in "" "--tta none" "--tta axes" "--tta" "--tta all"; do
  out=p_tta_$(echo "${form:-default}" | tr -d ' -')
  /usr/bin/time -f "  %e s" accelerated-seg predict --model $M scans/ --output $out/ $form 2>&1 | tail -2
  echo "[$form] status ${PIPESTATUS[0]} -> $out"
done
python - <<'PY'
import nibabel as nib, numpy as np, glob, os
def maps(folder):
    return {os.path.basename(f): np.asanyarray(nib.load(f).dataobj) for f in sorted(glob.glob(folder + "/*.nii.gz"))}
base = maps("p_tta_default")
for other in ("p_tta_ttanone", "p_tta_ttaaxes", "p_tta_tta", "p_tta_ttaall"):
    o = maps(other)
    print(other, "differs from no --tta at", sum(int((o[k] != base[k]).sum()) for k in base), "voxels")
print("bare --tta == --tta all:", all((maps("p_tta_tta")[k] == maps("p_tta_ttaall")[k]).all() for k in base))
from accelerated_seg.inference import mirror_axes
for mode in ("none", "axes", "all"):
    print(mode, "passes:", len(mirror_axes(mode)), mirror_axes(mode))
PY
echo "== a bare --tta before an input"
accelerated-seg predict --model $M --tta scans/ --output p_bad/; echo "status $?"; ls -d p_bad 2>&1
echo "== --probabilities, folder form"
accelerated-seg predict --model $M scans/ --output p_probs/ --probabilities; echo "status $?"; ls p_probs
echo "== --probabilities, the single-file form"
accelerated-seg predict --model $M --input scan.nii.gz --output seg/scan_seg.nii.gz --probabilities; echo "status $?"
ls seg
python - <<'PY'
import nibabel as nib, numpy as np, glob
pairs = [(f"p_probs/{c}.nii.gz", f"p_probs/{c}_probs.nii.gz", f"scans/{c}.nii.gz")
         for c in ("case_000", "case_001", "case_002", "case_003")]
pairs.append(("seg/scan_seg.nii.gz", "seg/scan_seg_probs.nii.gz", "scan.nii.gz"))
for label, probs, scan in pairs:
    l, p, s = nib.load(label), nib.load(probs), nib.load(scan)
    data = p.get_fdata(dtype=np.float32)
    print(probs, p.get_data_dtype(), p.shape, "scan", s.shape,
          "affine same:", np.allclose(p.affine, s.affine, atol=1e-5),
          "q/sform codes:", (int(p.header["qform_code"]), int(p.header["sform_code"])) ==
          (int(s.header["qform_code"]), int(s.header["sform_code"])),
          "zooms:", p.header.get_zooms()[:3] == s.header.get_zooms(),
          "sum-1 max:", float(np.abs(data.sum(-1) - 1).max()),
          "argmax == label map:", bool((data.argmax(-1) == np.asanyarray(l.dataobj)).all()),
          "label dtype", l.get_data_dtype())
PY
