"""Run: PYTHONPATH=/tmp/wt_r82 python fails_alone.py /tmp/r82probe   (after setup_probe.py /tmp/r82probe)
docs/inference.md, "A case that fails alone": the spacing checks' refusals (a header in metres read as mm: 100 times
finer; the host's memory) fail their case alone, the others written, status 2. Also an --output for several cases
that is an existing file, and for one case an existing file predict wrote (replaced, not refused)."""
import shutil
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

root = Path(sys.argv[1])
scans = root / "fails_alone"
shutil.rmtree(scans, ignore_errors=True)
scans.mkdir()
shutil.copy(root / "data/imagesTr/case_000.nii.gz", scans / "good.nii.gz")
rng = np.random.default_rng(0)
voxels = rng.normal(100, 20, (20, 20, 16)).astype(np.float32)
nib.save(nib.Nifti1Image(voxels, np.diag([0.002, 0.002, 0.002, 1])), scans / "metres_as_mm.nii.gz")  # 100x finer
nib.save(nib.Nifti1Image(voxels, np.diag([2000.0, 2000.0, 2000.0, 1])), scans / "huge.nii.gz")  # memory


def predict(*args):
    run = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", "predict", "--model", str(root / "model"),
                          *map(str, args)], capture_output=True, text=True, cwd=root)
    print(f"$ predict {' '.join(map(str, args))}\nexit {run.returncode}\n{(run.stdout + run.stderr).strip()[:900]}\n")


predict("fails_alone", "--output", "fails_alone_out")
print(sorted(p.name for p in (root / "fails_alone_out").iterdir()), "\n")
(root / "a_file").write_text("x")
predict("fails_alone/good.nii.gz", "data/imagesTr/case_001.nii.gz", "--output", "a_file")
predict("fails_alone/good.nii.gz", "--output", "one.nii.gz")
predict("fails_alone/good.nii.gz", "--output", "one.nii.gz")
