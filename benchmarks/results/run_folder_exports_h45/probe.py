"""Probe of the hundred-and-eighth session: (1) a refused run in a run's folder and a hand-made model.previous/;
(2) `accelerated-seg export` into the best_model/ of a run still training. Runs the CLI of whichever
accelerated_seg PYTHONPATH gives; prints what it saw. Usage: PYTHONPATH=<tree> python probe.py WORKDIR"""

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from conftest import tiny_overrides  # noqa: E402

from accelerated_seg.data.synthetic import write_synthetic_dataset  # noqa: E402

work = Path(sys.argv[1])
cli = [sys.executable, "-m", "accelerated_seg.cli"]
dataset = write_synthetic_dataset(work / "data", num_cases=6, num_validation=2, seed=0, size_mm=(40.0, 40.0, 32.0),
                                  spacing_mm=2.0)  # tests/conftest.py's tiny dataset
run = work / "run"
subprocess.run([*cli, "train", *tiny_overrides(dataset, run, train__max_steps=2, train__val_every=0)], check=True,
               capture_output=True)
(run / "model.previous").mkdir()
(run / "model.previous" / "notes.txt").write_text("mine")
refused = subprocess.run([*cli, "train", *tiny_overrides(dataset, run, train__max_steps=2, train__val_every=0)],
                         capture_output=True, text=True)
print("(1) refused `accelerated-seg train`: status", refused.returncode, "| model.previous/notes.txt kept:",
      (run / "model.previous" / "notes.txt").is_file())
print("    its lines:", *[line for line in (refused.stdout + refused.stderr).splitlines()
                          if "left alone" in line or "error" in line.lower()][:3], sep="\n      ")

# The command refuses before its imports (run_folder.py), before the lock and the sweep: the Python train()
# (examples/train.py's way) takes the lock, sweeps, and then judges the folder.
code = ("import sys; from accelerated_seg.config import load_config; from accelerated_seg.train import train; "
        "train(load_config(None, sys.argv[1:]))")
refused = subprocess.run([sys.executable, "-c", code, *tiny_overrides(dataset, run, train__max_steps=2,
                                                                       train__val_every=0)],
                         capture_output=True, text=True)
print("    train() from Python: status", refused.returncode, "| model.previous/notes.txt kept:",
      (run / "model.previous" / "notes.txt").is_file())
print("    its lines:", *[line[:300] for line in (refused.stdout + refused.stderr).splitlines()
                          if "left alone" in line or "Error" in line][:3], sep="\n      ")

# (2) a run training for a while into run2, and an export of run's checkpoint into run2/best_model meanwhile
run2 = work / "run2"
training = subprocess.Popen([*cli, "train", *tiny_overrides(dataset, run2, train__max_steps=400, train__val_every=0,
                                                            train__save_every=400)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while not (run2 / "run_info.json").exists():
    time.sleep(0.2)
start = time.perf_counter()
export = subprocess.run([*cli, "export", str(run / "checkpoints" / "step_2"), "--output", str(run2 / "best_model")],
                        capture_output=True, text=True)
print(f"(2) export into a training run's best_model/: status {export.returncode} in "
      f"{time.perf_counter() - start:.1f} s, training pid {training.pid}")
print("    its line:", (export.stdout + export.stderr).strip().splitlines()[-1][:400])
training.kill()
training.wait()
