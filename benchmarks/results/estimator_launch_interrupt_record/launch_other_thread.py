"""A thread of the launching process that makes temporary files while a 2-process estimator fit runs: a folder of
its own (tempfile.mkdtemp) and multiprocessing's pymp-* folder (first use, kept for the process's life). After the
fit: are they there, does a multiprocessing Listener still work, what is left in TMPDIR?
The hundred-and-eleventh session's review: what tempfile.tempdir pointed at the launch's folder (h57, 32313e7f) cost.
Run: TMPDIR=<root>/tmp PYTHONPATH=<package> OMP_NUM_THREADS=1 python launch_other_thread.py <root>"""
import os, sys, tempfile, threading, time
from pathlib import Path
os.environ["ACCELERATE_USE_CPU"] = "true"
os.environ.pop("MASTER_PORT", None)
import multiprocessing.util, multiprocessing.connection
import accelerated_seg, accelerated_seg.estimator as estimator
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation

root = Path(sys.argv[1])
print("package", Path(accelerated_seg.__file__).parent, "TMPDIR", os.environ.get("TMPDIR"))
dataset = write_synthetic_dataset(root / "data", num_cases=6, num_validation=2, seed=0, size_mm=(32.0, 32.0, 32.0),
                                  spacing_mm=2.0)
pairs = [(str(c.images[0]), str(c.label)) for c in load_msd(dataset).training]
estimator.gpus_to_launch = lambda: 2
data = Dataset.from_files(pairs, block_shape=(16, 16, 16), n_classes=3, cache_dir=str(root / "cache"),
                          num_workers=0, spacing=(2.0, 2.0, 2.0)).batch(2)
model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                     output_dir=str(root / "run"), multi_gpu=True, val_every=0, save_every=0, trackers="none",
                     progress_bar=False)
made = {}
def background():  # as a notebook's background job would, a few seconds into the fit
    time.sleep(3)
    made["folder"] = tempfile.mkdtemp(prefix="users_job_")
    Path(made["folder"], "result.txt").write_text("kept?")
    made["pymp"] = multiprocessing.util.get_temp_dir()
    made["at"] = time.time() - started
started = time.time()
threading.Thread(target=background, daemon=True).start()
model.fit(data, steps=30)
print(f"fit: {model.summary['step']} steps in {time.time() - started:.1f} s; thread made its files at "
      f"{made.get('at', float('nan')):.1f} s")
for what in ("folder", "pymp"):
    print(f"{what}: {made.get(what, '-').replace(str(root), '<root>')} exists after the fit: "
          f"{Path(made[what]).is_dir() if what in made else '-'}")
try:
    listener = multiprocessing.connection.Listener(family="AF_UNIX")
    print("multiprocessing Listener after the fit: ok"); listener.close()
except OSError as error:
    print("multiprocessing Listener after the fit:", type(error).__name__, error.strerror)
print("left in TMPDIR:", sorted(p.name for p in Path(os.environ["TMPDIR"]).iterdir()))
