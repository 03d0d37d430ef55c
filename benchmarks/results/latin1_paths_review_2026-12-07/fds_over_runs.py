"""Open file descriptors of one Python process over 4 trainings (cli.main, as a notebook or a k-fold script runs them)
into an absolute run folder named in Latin-1, TensorBoard on (its writer opens the log by the folder's
/proc/self/fd name, held while the accelerator lives), each resuming the last to one more step, then 4 predicts of its
export; last, what each event file in the run's train/ holds (its scalars' tags and steps: written for the whole
run by the writer's thread). Command:
  PYTHONPATH=<package folder> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/latin1_paths_review_2026-12-07/fds_over_runs.py > .../fds_over_runs.txt 2>&1"""
import contextlib
import gc
import io
import os
import subprocess
import sys
import tempfile

from accelerated_seg.cli import main

T = tempfile.mkdtemp()
os.chdir(T)
subprocess.run([sys.executable, "-m", "accelerated_seg", "synth", "data", "--cases", "3", "--validation", "1"],
               check=True, capture_output=True)
with open("tiny.yaml", "w") as f:
    f.write(f"data:\n  dataset: {T}/data/dataset.json\n  patch_size: [16, 16, 16]\n  num_workers: 0\n"
            f"  cache_dir: {T}/cache\nmodel:\n  name: unet\n  args: {{channels: [4, 8], strides: [2], "
            f"num_res_units: 0}}\noptim: {{warmup_steps: 0}}\ntrain: {{val_every: 0, save_every: 1, batch_size: 1}}\n")
run = os.path.join(T, os.fsdecode(b"r\xe9sultats"))


def fds() -> list[str]:
    return sorted(os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
                  if os.path.exists(f"/proc/self/fd/{fd}"))


def quietly(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = main(argv)
    return status, out.getvalue()


start = fds()
for step in range(1, 5):
    status, said = quietly(["train", "--config", "tiny.yaml", f"--train.output_dir={run}", f"--train.max_steps={step}"]
                           + (["--resume", "latest"] if step > 1 else []))
    gc.collect()
    print(f"train to step {step}: status {status}, fds {len(fds())} (at the start {len(start)}); new: "
          f"{ascii([name.replace(T, 'TMP') for name in fds() if name not in start])}")
for i in range(4):
    status, said = quietly(["predict", "--model", os.path.join(run, "model"), "--input",
                            f"{T}/data/imagesTr/case_000.nii.gz", "--output", f"{T}/p{i}.nii.gz"])
    print(f"predict {i}: status {status}, fds {len(fds())}")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from accelerated_seg.files import by_a_utf8_name  # noqa: E402

with by_a_utf8_name(os.path.join(run, "train")) as logs:
    for name in sorted(os.listdir(logs)):
        if name.startswith("events."):
            events = EventAccumulator(os.path.join(logs, name))
            events.Reload()
            print(f"{name}: " + "; ".join(f"{tag} at {[event.step for event in events.Scalars(tag)]}"
                                          for tag in sorted(events.Tags()["scalars"])))
