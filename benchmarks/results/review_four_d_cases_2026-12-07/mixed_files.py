"""Run as: cd <worktree> && PYTHONPATH=<worktree>:<worktree>/tests OMP_NUM_THREADS=1 timeout 600 \
    /work/main/.venv/bin/python benchmarks/results/review_four_d_cases_2026-12-07/mixed_files.py <empty folder>
Review r94: a case of two files for a 2-channel model, one of them (x, y, z, 2): what evaluate, predict and check
say (mixed_files_before.txt at b5bdeba8, mixed_files_after.txt on r94)."""
import sys, json, warnings, io, contextlib
from pathlib import Path
import numpy as np, nibabel as nib
from accelerated_seg.estimator import Dataset, Segmentation
from accelerated_seg.cli import main
from test_inference import export
warnings.simplefilter("ignore")
root = Path(sys.argv[1]); (root / "f").mkdir(parents=True)
rng = np.random.default_rng(0)
def save(a, n):
    nib.save(nib.Nifti1Image(a, np.diag([2.5, 2.5, 2.5, 1.0])), root / "f" / n); return str(root / "f" / n)
lab = save(np.zeros((8, 8, 8), np.uint8), "label.nii.gz")
four = save(rng.uniform(10, 100, (8, 8, 8, 2)).astype(np.float32), "four.nii.gz")
three = save(rng.uniform(10, 100, (8, 8, 8)).astype(np.float32), "three.nii.gz")
model = Segmentation.load(export(root / "model", in_channels=2))
for images in ([four, three], [three, four]):
    tag = "[4D, 3D]" if images[0] == four else "[3D, 4D]"
    data = Dataset.from_files([], validation_pairs=[(images, lab)], n_classes=3, block_shape=8, num_workers=0)
    for what, run in (("evaluate", lambda: model.evaluate(data, output_dir=root / "ev")),
                      ("predict", lambda: model.predict(images))):
        try:
            run(); print(tag, what, "taken")
        except Exception as e:
            print(tag, what, "refused:", str(e).splitlines()[-1].strip())
    d = root / f"msd{images[0] == four}"; d.mkdir()
    (d / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a", "2": "b"},
        "modality": {"0": "MRI0", "1": "MRI1"}, "training": [{"image": images, "label": lab}]}))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        main(["check", str(d / "dataset.json")])
    print(tag, "check", [l for l in err.getvalue().splitlines() if "shape" in l or "error" in l][:2])
