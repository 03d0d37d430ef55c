# source env.sh && cd $T/w2 && python $HERE/walk_12_classes_precision.py > $HERE/walk_12_classes_precision.txt 2>&1
# "## Classes and channels" and "## Precision, and a process left as found" on the walk's own cases: names given in
# the metrics and config.json; label_values [0, 1, 4] trained and predicted as the files' own values; precision='fp16'
# on a CPU; precision='fp32' against the launch's ACCELERATE_MIXED_PRECISION=bf16; one fit's bf16 not carried over.
import json
import os
import shutil
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg import Dataset, Segmentation

C = Path("cases")
good = [(str(C / f"good{i}_img.nii.gz"), str(C / f"good{i}_seg.nii.gz")) for i in range(6)]
tiny, quiet = {"channels": [4, 8], "strides": [2]}, dict(trackers="none", progress_bar=False, warmup_steps=0)


def attempt(title, call):
    try:
        got = call()
        print(f"=== {title}\n-> {got}")
    except Exception as error:  # noqa: BLE001 - what a user sees
        print(f"=== {title}\n-> {type(error).__name__}: {error}")


if __name__ == "__main__":
    shutil.rmtree("w12", ignore_errors=True)
    named = Dataset.from_files(good[:5], block_shape=16, n_classes=3, validation_pairs=[good[5]],
                               class_names=["background", "edema", "core"], channel_names=["FLAIR"]).batch(2)
    print("print(named):", named)
    model = Segmentation("unet", model_args=tiny, output_dir="w12/named", val_every=2, **quiet).fit(named, steps=2)
    config = json.loads(Path(model.model_dir, "config.json").read_text())
    print("config.json labels, channels:", config["labels"], config["channels"])
    print("metrics.json keys:", sorted(json.loads(Path("w12/named/metrics.json").read_text())[-1])[:10]
          if isinstance(json.loads(Path("w12/named/metrics.json").read_text()), list)
          else sorted(json.loads(Path("w12/named/metrics.json").read_text()))[:10])
    # BraTS-like values: 2 in the files is class 2 of [0, 1, 2] here made 4 (a copy of the labels, 2 -> 4)
    Path("w12/cases4").mkdir(parents=True)
    pairs4 = []
    for image, label in good:
        img = nib.load(label)
        data = np.asanyarray(img.dataobj).copy()
        data[data == 2] = 4
        out = Path("w12/cases4") / Path(label).name
        nib.save(nib.Nifti1Image(data, img.affine), out)
        pairs4.append((image, str(out)))
    values = Dataset.from_files(pairs4[:5], block_shape=16, label_values=[0, 1, 4], validation_pairs=[pairs4[5]])
    print("print(values):", values)
    m4 = Segmentation("unet", model_args=tiny, output_dir="w12/values", val_every=0, **quiet).fit(values.batch(2),
                                                                                                 steps=2)
    print("predicted values:", np.unique(np.asanyarray(m4.predict(pairs4[5][0]).dataobj)).tolist(),
          "(the files hold 0, 1, 4)")
    attempt("precision='fp16' on a CPU", lambda: Segmentation("unet", model_args=tiny, output_dir="w12/fp16",
                                                              precision="fp16", **quiet).fit(named, steps=1))
    print("w12/fp16 made:", Path("w12/fp16").exists())
    os.environ["ACCELERATE_MIXED_PRECISION"] = "bf16"
    attempt("precision='fp32' under ACCELERATE_MIXED_PRECISION=bf16",
            lambda: Segmentation("unet", model_args=tiny, output_dir="w12/clash", precision="fp32", **quiet)
            .fit(named, steps=1))
    print("w12/clash made:", Path("w12/clash").exists())
    del os.environ["ACCELERATE_MIXED_PRECISION"]
    b = Segmentation("unet", model_args=tiny, output_dir="w12/bf16", precision="bf16", val_every=0, **quiet)
    print("bf16 fit:", b.fit(named, steps=1).summary.get("strategy"))
    f = Segmentation("unet", model_args=tiny, output_dir="w12/after", val_every=0, **quiet)
    print("the next fit, precision left out:", f.fit(named, steps=1).summary.get("strategy"))
