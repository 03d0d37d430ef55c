# cd benchmarks/results/review_fit_names_2026-12-07 && PYTHONPATH=/tmp/wt_r128 ACCELERATE_USE_CPU=true \
#   /work/main/.venv/bin/python probe_2_launched_names.py > probe_2_launched_names.txt 2>&1
# The estimator's own multi-GPU launch (notebook_launcher, 2 CPU processes: gpus_to_launch stood in as the tests do),
# given examples/estimator.py's names: stopped by SIGINT to this launching process once a checkpoint is whole (as
# Jupyter's interrupt), then by SIGTERM (a job's notice) in its resume: the lines its launched processes say, the
# repr, and the names as a pickle carries them (a spawned process's arguments).
import os
import pickle
import runpy
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import accelerated_seg.estimator as estimator
from accelerated_seg import Dataset, Segmentation
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import ensure_synthetic_dataset
from accelerated_seg.model_folders import ESTIMATOR_NAMES, callers_names

ROOT = Path(__file__).resolve().parents[3]
names = runpy.run_path(str(ROOT / "examples" / "estimator.py"))["EXAMPLE_NAMES"]
given = callers_names(names, ESTIMATOR_NAMES, "fit")
print("pickled and back, equal:", pickle.loads(pickle.dumps(given)) == given, flush=True)

home = Path(tempfile.mkdtemp(prefix="r128_launch_"))
ensure_synthetic_dataset(home / "data", num_cases=6, num_validation=0, size_mm=(48.0, 48.0, 48.0))
pairs = [(str(c.images[0]), str(c.label)) for c in load_msd(home / "data" / "dataset.json").training]
data = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_pairs=[], num_workers=0,
                          cache_dir=str(home / "cache"), spacing=(2.0, 2.0, 2.0)).batch(2)
estimator.gpus_to_launch = lambda: 2
run = home / "run"
model = Segmentation("unet", model_args={"channels": [4, 8, 16], "strides": [2, 2], "num_res_units": 1},
                     multi_gpu=True, output_dir=str(run), val_every=0, save_every=2, trackers="none",
                     progress_bar=False)


def signalled_once_a_checkpoint_is_whole(signum, newer_than=0):
    waits = (f"import os, time\nfrom pathlib import Path\nfrom accelerated_seg.model_folders import "
             f"complete_checkpoints\ndeadline = time.monotonic() + 300\n"
             f"while time.monotonic() < deadline and not [c for c in complete_checkpoints(Path({str(run)!r}) / "
             f"'checkpoints') if int(c.name[5:]) > {newer_than}]:\n    time.sleep(0.1)\n"
             f"os.kill({os.getpid()}, {int(signum)})\n")
    return subprocess.Popen([sys.executable, "-c", waits])


sender = signalled_once_a_checkpoint_is_whole(signal.SIGINT)
try:
    model.fit(data, steps=100_000, names=names)
except KeyboardInterrupt:
    print("KeyboardInterrupt raised", flush=True)
sender.wait()
print("repr:", repr(model), flush=True)
step = int(sorted(p.name for p in (run / "checkpoints").iterdir())[-1][5:])
sender = signalled_once_a_checkpoint_is_whole(signal.SIGTERM, newer_than=step)
model.fit(data, steps=100_000, resume="latest", names=names)
sender.wait()
print("preempted:", model.summary.get("preempted"), flush=True)
print("repr:", repr(model), flush=True)
