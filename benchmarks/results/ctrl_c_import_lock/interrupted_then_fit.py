"""Ctrl-C (_thread.interrupt_main) a first fit while it imports, then fit again in the same process.

First, as a notebook would have, it predicts with a model (trained for one step in a subprocess): without that
no fit of three runs left the lock held (17 interrupted fits). Prints, per interrupted fit, whether the main thread was left holding Python's import lock and whether another
thread could import; where it was, fits again (a faulthandler watchdog ends a hang after 90 s) and says whether
that fit finished. Hundred-and-fourth session; see README.md beside it.
"""
import _imp
import contextlib
import faulthandler
import os
import random
import subprocess
import sys
import tempfile
import threading
import _thread

import nibabel as nib
import numpy as np

from accelerated_seg import Dataset, Segmentation


def another_thread_imports() -> bool:
    def look():
        with contextlib.suppress(ImportError):
            __import__("no_module_of_this_name_h104")
    thread = threading.Thread(target=look, daemon=True)
    thread.start()
    thread.join(5)
    return not thread.is_alive()


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


ARGS = dict(channels=[8, 16, 32], strides=[2, 2], num_res_units=1)


def export_one(folder: str) -> None:
    data = Dataset.from_files(tiny_pairs(folder), block_shape=16, n_classes=2, cache_dir=f"{folder}/cache").batch(2)
    Segmentation("unet", model_args=ARGS, output_dir=f"{folder}/first", val_every=0).fit(data, steps=1)


def main(tries: int) -> None:
    folder = tempfile.mkdtemp()
    subprocess.run([sys.executable, __file__, "export", folder], check=True, capture_output=True)
    pairs, args = tiny_pairs(folder), ARGS
    Segmentation.load(f"{folder}/first/model").predict(pairs[0][0])
    for _ in range(tries):
        after = random.uniform(0.05, 0.6)
        data = Dataset.from_files(pairs, block_shape=16, n_classes=2, cache_dir=f"{folder}/cache",
                                  spacing=(1.0 + random.random(),) * 3).batch(2)
        model = Segmentation("unet", model_args=args, output_dir=f"{folder}/run", overwrite=True)
        threading.Timer(after, _thread.interrupt_main).start()
        try:
            model.fit(data, epochs=50)
        except KeyboardInterrupt:
            held = _imp.lock_held()
            print(f"interrupted {after:.2f} s in: import lock held {held}, another thread imports "
                  f"{another_thread_imports()}", flush=True)
            if held:
                faulthandler.dump_traceback_later(90, exit=True)
                model.fit(data, steps=2, overwrite=True)
                print(f"the next fit finished: step {model.summary['step']}", flush=True)
                os._exit(0)
    print(f"no interrupted fit left the lock held in {tries} tries")


if __name__ == "__main__":
    export_one(sys.argv[2]) if sys.argv[1] == "export" else main(int(sys.argv[1]))
