# bash walk_4_applied.sh > walk_4_applied.txt 2>&1
# inference.md "### What is applied, and the geometry guarantee": --overlap out of range (before torch; from Python
# by its keyword), the label map's dtype/shape/affine/header against the scan's (RAS, LPS, NIfTI-2), and the table of
# scans segmented with a warning (two voxel sizes, qform and sform apart, no orientation, one slice, one voxel of
# most of the variance, a header saying predict wrote it); the warning's one-line form and its category from Python.
source /tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07/env.sh
M=output/demo/best_model
set -x
time st accelerated-seg predict --model $M scans/ --output out_x --overlap 1.5
python - <<'PY' 2>&1 | tail -2
from accelerated_seg.estimator import Segmentation
model = Segmentation.load("output/demo/best_model")
model.predict("scans/scan1.nii.gz", overlap=1.5)
PY
python - <<'PY' 2>&1 | tail -2
from accelerated_seg.inference import predict_cases
predict_cases("output/demo/best_model", ["scans/"], "out_x", overlap=1.5)
PY
python $H/make_headers.py
st accelerated-seg predict --model $M headers --output out_headers
python - <<'PY'
import nibabel as nib, numpy as np
from pathlib import Path
for pred in sorted(Path("out_headers").glob("*.nii*")):
    scan = nib.load(Path("headers") / pred.name)
    p = nib.load(pred)
    same = (p.shape == scan.shape[:3] and np.allclose(p.affine, scan.affine, atol=1e-5)
            and [int(p.header[c]) for c in ("qform_code", "sform_code")] == [int(scan.header[c]) for c in ("qform_code", "sform_code")]
            and np.allclose(p.header.get_zooms()[:3], scan.header.get_zooms()[:3], atol=1e-6))
    print(pred.name, type(p).__name__, p.get_data_dtype(), p.shape, "same geometry as the scan:", same,
          "codes", int(p.header["qform_code"]), int(p.header["sform_code"]))
PY
# a folder of predictions given as the scans
st accelerated-seg predict --model $M out_headers --output out_again
# from Python: the category, and silencing it alone
python - <<'PY' 2>&1 | tail -4
import warnings
from accelerated_seg.own_warnings import AcceleratedSegWarning
from accelerated_seg.inference import predict_file
print(issubclass(AcceleratedSegWarning, UserWarning))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    predict_file("output/demo/best_model", "headers/bare.nii.gz", "py_bare.nii.gz")
print([(w.category.__name__, str(w.message)[:90]) for w in caught])
warnings.filterwarnings("ignore", category=AcceleratedSegWarning)
with warnings.catch_warnings(record=True) as caught:
    predict_file("output/demo/best_model", "headers/bare.nii.gz", "py_bare.nii.gz")
print("after filterwarnings:", len(caught))
PY
