"""Ctrl-C a fresh process's first fit while it imports, then fit again in that process; once per fresh process.

Prints one JSON line per process: when the interrupt was asked for, how long until fit raised KeyboardInterrupt,
whether "interrupt: a module is being imported" was said (the interrupt held), and how the next fit ended ("done",
or its error); or that the process hung (``hung_s``: killed after that long, its two fits taking 5-10 s). docs/known_issues.md; hundred-and-fourth session.

    PYTHONPATH=. .venv/bin/python benchmarks/results/ctrl_c_during_imports/first_fit_interrupted.py 10
"""
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
import _thread

#: How long a process may take before it is said to hang, and killed.
HUNG_S = 60

import nibabel as nib
import numpy as np


def tiny_pairs(folder: str) -> list:
    rng, pairs = np.random.default_rng(0), []
    for i in range(4):
        label = np.zeros((16, 16, 16), "uint8")
        label[4:10, 4:10, 4:10] = 1
        image = rng.normal(size=label.shape).astype("float32") + 2 * label
        pairs.append((f"{folder}/img{i}.nii.gz", f"{folder}/lab{i}.nii.gz"))
        nib.save(nib.Nifti1Image(image, np.eye(4)), pairs[-1][0])
        nib.save(nib.Nifti1Image(label, np.eye(4)), pairs[-1][1])
    return pairs


def one(after: float) -> None:
    from accelerated_seg import Dataset, Segmentation  # the package's own light import, as a notebook's first cell

    folder = tempfile.mkdtemp()
    args = dict(channels=[8, 16, 32], strides=[2, 2], num_res_units=1)
    data = Dataset.from_files(tiny_pairs(folder), block_shape=16, n_classes=2, cache_dir=f"{folder}/cache").batch(2)
    asked = time.monotonic()
    threading.Timer(after, _thread.interrupt_main).start()
    try:
        Segmentation("unet", model_args=args, output_dir=f"{folder}/run", val_every=0).fit(data, epochs=50)
        raised = None
    except KeyboardInterrupt:
        raised = time.monotonic() - asked - after
    try:
        Segmentation("unet", model_args=args, output_dir=f"{folder}/run", overwrite=True, val_every=0).fit(data, steps=2)
        next_fit = "done"
    except Exception as error:  # noqa: BLE001 (what a half-imported package raises is the finding)
        next_fit = f"{type(error).__name__}: {error}"[:200]
    print(json.dumps({"interrupt_after_s": round(after, 2),
                      "raised_after_interrupt_s": None if raised is None else round(raised, 2),
                      "next_fit": next_fit}), flush=True)


def main(processes: int) -> None:
    for _ in range(processes):
        after = random.uniform(0.05, 1.5)
        try:
            done = subprocess.run([sys.executable, __file__, "one", str(after)], capture_output=True, text=True,
                                  timeout=HUNG_S)
        except subprocess.TimeoutExpired:  # a tiny fit takes 5-10 s here: the next fit hung (or the first's end)
            print(json.dumps({"interrupt_after_s": round(after, 2), "hung_s": HUNG_S}), flush=True)
            continue
        held = "interrupt: a module is being imported" in done.stderr
        for line in done.stdout.splitlines():
            if line.startswith("{"):
                print(json.dumps({**json.loads(line), "held_during_an_import": held}), flush=True)
        if done.returncode:
            print(json.dumps({"exit": done.returncode, "stderr_tail": done.stderr[-300:]}), flush=True)


if __name__ == "__main__":
    one(float(sys.argv[2])) if sys.argv[1] == "one" else main(int(sys.argv[1]))
