# source env.sh && python $HERE/make_data.py $T/w2/cases && cd $T/w2 \
#   python $HERE/walk_2_bad_data.py > $HERE/walk_2_bad_data.txt 2>&1
# The refusals a researcher meets with their own files: for each fault, where it is told (from_files, or fit), the
# message (does it name the file or setting and what to do?), how long it took, and what the run folder holds after.
import time
import traceback
import warnings
from pathlib import Path

from accelerated_seg import Dataset, Segmentation

C = Path("cases")
good = [(str(C / f"good{i}_img.nii.gz"), str(C / f"good{i}_seg.nii.gz")) for i in range(6)]


def pair(name):
    return (str(C / f"{name}_img.nii.gz"), str(C / f"{name}_seg.nii.gz"))


def attempt(title, make, fit=True, block_shape=16, **from_files):
    out = Path("runs") / title.split()[0].rstrip(":")
    print(f"\n=== {title}")
    start = time.monotonic()
    stage = "from_files"
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            data = Dataset.from_files(make, block_shape=block_shape, validation_pairs=[good[5]], **from_files)
            if fit:
                stage = "fit"
                Segmentation("unet", model_args={"channels": [4, 8], "strides": [2]}, output_dir=str(out),
                             trackers="none", progress_bar=False, val_every=0).fit(data, steps=1, warmup_steps=0)
        print(f"-> not refused ({time.monotonic() - start:.1f} s)")
    except Exception as error:  # noqa: BLE001 - what a user sees
        print(f"-> {stage}: {type(error).__name__} after {time.monotonic() - start:.1f} s:\n{error}")
        if not str(error).strip():
            traceback.print_exc()
    for w in said:
        print(f"   warning ({w.category.__name__}): {w.message}")
    held = sorted(str(p.relative_to(out)) for p in out.rglob('*'))[:12] if out.exists() else 'absent'
    print(f"   {out} after: {held}")


if __name__ == "__main__":  # the page's main guard: without it fit refused every case (walk_2a)
    attempt("good (the control)", good[:5], n_classes=3)
    attempt("shape: a label of another shape than its image", good[:4] + [pair("shape")], n_classes=3)
    attempt("grid: a label on another grid", good[:4] + [pair("grid")], n_classes=3)
    attempt("range: a label value 5, n_classes=3", good[:4] + [pair("range")], n_classes=3)
    attempt("ncls2: labels 0..2, n_classes=2", good[:5], n_classes=2)
    attempt("ncls_default: labels 0..2, n_classes left out", good[:5])
    attempt("ncls5: labels 0..2, n_classes=5", good[:5], n_classes=5)
    attempt("float: a label value 0.5", good[:4] + [pair("float")], n_classes=3)
    attempt("block: block_shape 32 on volumes of 24 x 24 x 20", good[:5], n_classes=3, block_shape=32)
    attempt("block64: block_shape 64", good[:5], n_classes=3, block_shape=64)
    attempt("small: one case smaller than block_shape 16 (20 x 20 x 12)", good[:4] + [pair("small")], n_classes=3)
    attempt("flat: a 2D case", good[:4] + [pair("flat")], n_classes=3)
    attempt("missing: a file that is not there", good[:4] + [("cases/nope_img.nii.gz", "cases/nope_seg.nii.gz")],
            n_classes=3)
    attempt("channels: one case of 2 channel files among cases of 1",
            good[:4] + [([str(C / "two_c0.nii.gz"), str(C / "two_c1.nii.gz")], good[4][1])], n_classes=3)
    attempt("swapped: (label, image) in place of (image, label)", [(b, a) for a, b in good[:5]], n_classes=3)
    print("\n=== a bad validation case (range) given as validation_pairs")
    start = time.monotonic()
    try:
        data = Dataset.from_files(good[:4], block_shape=16, n_classes=3, validation_pairs=[pair("range")])
        Segmentation("unet", model_args={"channels": [4, 8], "strides": [2]}, output_dir="runs/val", trackers="none",
                     progress_bar=False).fit(data, steps=1, warmup_steps=0)
        print("-> not refused")
    except Exception as error:  # noqa: BLE001
        print(f"-> {type(error).__name__} after {time.monotonic() - start:.1f} s:\n{error}")
    print(f"   runs/val after: {sorted(str(p) for p in Path('runs/val').rglob('*'))[:12]}")
