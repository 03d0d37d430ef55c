# cd benchmarks/results/estimator_stop_walk_2026-12-07 && OMP_NUM_THREADS=1 PYTHONPATH=/tmp/wt_h141 \
#   /work/main/.venv/bin/python walk_2_notebook.py > walk_2_notebook.txt 2>&1
# stopping.md, "The estimator and notebooks", as a notebook sees it: one process (the kernel) runs cell after cell; a
# thread stands in for Jupyter's "interrupt kernel" (SIGINT to the kernel's process) and for a job's SIGTERM to it,
# each sent once the run's checkpoints/step_5 is whole. Cells: (1) fit, interrupted; repr, predict, evaluate, save;
# (2) fit(..., resume='latest') in the same kernel; (3) a new fit, SIGTERM: fit returns, preempted; the kernel's
# handlers as before; (4) its resume. Phantoms from `accelerated-seg synth` in a fresh temporary folder.
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

# Python's own Ctrl-C handler, as a kernel has it: a process started in the background of a script (nohup ... &)
# inherits SIGINT ignored, which Python then keeps (the walk's first Ctrl-C found it so: the fit trained on)
signal.signal(signal.SIGINT, signal.default_int_handler)

from accelerated_seg import Dataset, Segmentation  # noqa: E402 (the notebook's first cell)

design = {"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1}
walk, pairs, data = None, None, None  # the first cell's, set by cells()


def signal_once_saved(signum, run="runs/segmentation", step=5):
    def send():
        checkpoint = walk / run / "checkpoints" / f"step_{step}"
        while not checkpoint.is_dir():
            time.sleep(0.05)
        time.sleep(0.5)
        print(f"WALK [{signal.Signals(signum).name} to the kernel's process]", flush=True)
        os.kill(os.getpid(), signum)
    threading.Thread(target=send, daemon=True).start()


def look(model):
    print(f"WALK summary: {model.summary and {k: model.summary.get(k) for k in ('step', 'preempted')}}")
    print(f"WALK repr: {model!r}")
    for name, call in (("predict", lambda: model.predict(pairs[-1][0])), ("evaluate", lambda: model.evaluate(data)),
                       ("save", lambda: model.save("saved_model"))):
        try:
            call()
            print(f"WALK {name}: ok")
        except Exception as error:
            print(f"WALK {name}: {type(error).__name__}: {error}")


def cells():  # under `if __name__ == "__main__":`, as fit asks of a script (its loader's workers import
    # the main script; a notebook has none)
    global walk, pairs, data
    walk = Path(tempfile.mkdtemp(prefix="h141_notebook_"))
    os.chdir(walk)
    subprocess.run([sys.executable, "-m", "accelerated_seg", "synth", "data", "--cases", "10", "--validation", "2"],
                   check=True, capture_output=True)
    print(f"folder: {walk}", flush=True)
    images, labels = sorted(Path("data/imagesTr").glob("*.nii.gz")), sorted(Path("data/labelsTr").glob("*.nii.gz"))
    pairs = [(str(i), str(l)) for i, l in zip(images, labels)]
    data = Dataset.from_files(pairs[:-2], block_shape=(32, 32, 32), n_classes=3, validation_pairs=pairs[-2:],
                              cache_dir="cache").batch(2)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)}
    print("\nWALK cell 1: fit, interrupted (Jupyter's interrupt: SIGINT)", flush=True)
    model = Segmentation("unet", model_args=design, output_dir="runs/segmentation", trackers="none", save_every=5,
                         val_every=0)
    signal_once_saved(signal.SIGINT)
    try:
        model.fit(data, steps=200)
        print("WALK fit returned")
    except KeyboardInterrupt as interrupt:
        print(f"WALK fit raised {type(interrupt).__name__}; traceback's last line: "
              f"{traceback.format_exc().strip().splitlines()[-1]}")
    look(model)
    print(f"WALK handlers as before: {handlers == {n: signal.getsignal(n) for n in handlers}}")

    print("\nWALK cell 2: fit(..., resume='latest'), steps=10", flush=True)
    model.fit(data, steps=10, resume="latest")
    look(model)

    print("\nWALK cell 3: a new fit into runs/second, a job's SIGTERM to the kernel", flush=True)
    model = Segmentation("unet", model_args=design, output_dir="runs/second", trackers="none", save_every=5,
                         val_every=0)
    signal_once_saved(signal.SIGTERM, "runs/second")
    model.fit(data, steps=200)
    print("WALK fit returned")
    look(model)
    print(f"WALK handlers as before: {handlers == {n: signal.getsignal(n) for n in handlers}}")

    print("\nWALK cell 4: the same estimator's fit(..., resume='latest') to step 12", flush=True)
    model.fit(data, steps=12, resume="latest")
    look(model)
    print("WALK done", flush=True)


if __name__ == "__main__":
    cells()
