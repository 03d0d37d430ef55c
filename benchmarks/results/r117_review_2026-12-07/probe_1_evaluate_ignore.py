# cd /tmp/wt_r117 && PYTHONPATH=/tmp/wt_r117 OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
#   benchmarks/results/r117_review_2026-12-07/probe_1_evaluate_ignore.py \
#   > benchmarks/results/r117_review_2026-12-07/probe_1_evaluate_ignore_<at>.txt 2>&1   (at: main, or after)
# r117: h138's ignore-label refusal (evaluate_classes.require_known_values) driven through `accelerated-seg evaluate`
# and evaluate_folders: right evaluations still pass; each wrong one told once, on one line, the merge offered where
# it helps.
import io, json, tempfile, contextlib
from pathlib import Path
import nibabel as nib
import numpy as np
from accelerated_seg.cli import main
from accelerated_seg.evaluate import evaluate_folders

N = 12
def box(lo, hi, v=1):
    m = np.zeros((N, N, N), np.uint8); m[lo:hi, lo:hi, lo:hi] = v; return m
def save(p, a):
    p.parent.mkdir(parents=True, exist_ok=True); nib.save(nib.Nifti1Image(np.asarray(a, np.uint8), np.eye(4)), p)
def run(name, pred, label, labels_json=None, extra=()):
    root = Path(tempfile.mkdtemp())
    save(root / "p" / "a.nii.gz", pred); save(root / "l" / "a.nii.gz", label)
    argv = ["evaluate", str(root / "p"), str(root / "l"), *extra]
    if labels_json is not None:
        (root / "d.json").write_text(json.dumps(labels_json)); argv += ["--labels", str(root / "d.json")]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    lines = [l for l in err.getvalue().splitlines() if l.strip()]
    print(f"\n## {name}\n$ accelerated-seg {' '.join(a.replace(str(root), '…') for a in argv[1:])}\nstatus {status}, "
          f"{len(lines)} stderr line(s)")
    for l in lines: print("  " + l.replace(str(root), "…"))
L3 = {"labels": {"background": 0, "ball": 1, "lesion": 2, "ignore": 3}}
label = box(2, 6) + box(7, 10, 2); label[0, 0, 0] = 3  # a reference annotated in part
run("right: prediction of the classes, reference holding the ignore label", box(2, 6) + box(7, 10, 2), label, L3)
run("prediction holding 3 (ignore) and 1, 2", np.where(label == 3, 3, box(2, 6) + box(7, 10, 2)), label, L3)
run("prediction of 0 and 3 alone (merge not to be offered)", np.where(label > 0, 3, 0), label, L3)
run("prediction holding 3 (ignore) and 7", np.where(label == 2, 7, label), label, L3)
run("prediction holding 3 (ignore) and 255 alone", np.where(label == 2, 255, np.where(label == 1, 3, 0)), label, L3)
run("prediction of 0 and 255 with an ignore label 3 declared (merge offered?)", np.where(label > 0, 255, 0),
    np.where(label == 3, 3, (label > 0).astype(np.uint8)), {"labels": {"background": 0, "fg": 1, "ignore": 3}})
run("prediction of 0 and 3 alone, --merge-foreground, labels fg + ignore 3", np.where(label > 0, 3, 0),
    np.where(label == 3, 3, (label > 0).astype(np.uint8)), {"labels": {"background": 0, "fg": 1, "ignore": 3}},
    ["--merge-foreground"])
run("--num-classes 3, no --labels: prediction holding 3 (no ignore known)", np.where(label == 3, 3, label),
    np.where(label == 3, 0, label), None, ["--num-classes", "3"])
run("--num-classes 3, no --labels: prediction of 0 and 255 alone (merge offered)", np.where(label > 0, 255, 0),
    np.where(label == 3, 0, label), None, ["--num-classes", "3"])
run("an ignore label that is also a class value", box(2, 6), label, {"labels": {"background": 0, "ball": 1, "lesion": 2,
                                                                               "ignore": 2}})
R = {"labels": {"background": 0, "whole": [1, 2], "core": 2, "ignore": 3}, "regions_class_order": [1, 2]}
run("regions: right, reference holding the ignore label", box(2, 6) + box(7, 10, 2), label, R)
run("regions: prediction holding the ignore label", np.where(label == 3, 3, box(2, 6) + box(7, 10, 2)), label, R)
big = np.zeros((N, N, N), np.uint8); big.flat[:12] = np.arange(4, 16); big[5, 5, 5] = 3
run("prediction holding the ignore 3 and 12 other values (list cut at 8)", big, label, L3)
L255 = {"labels": {"background": 0, "ball": 1, "lesion": 2, "ignore": 255}}
big[5, 5, 5] = 255
run("prediction holding the ignore 255 above 12 other values (list cut at 8)", big, np.where(label == 3, 255, label),
    L255)
# evaluate_folders with ignore_value given and the classes taken from the files (no num_classes, no dataset_json)
root = Path(tempfile.mkdtemp())
save(root / "p" / "a.nii.gz", np.where(label == 2, 3, label)); save(root / "l" / "a.nii.gz", label)
print("\n## evaluate_folders(ignore_value=3), classes from the files, prediction holding 3")
try:
    evaluate_folders(root / "p", root / "l", ignore_value=3); print("  scored")
except Exception as e:
    print(f"  {type(e).__name__}: {str(e).replace(str(root), '…')}")
