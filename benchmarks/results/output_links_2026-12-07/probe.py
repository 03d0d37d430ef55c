"""Run: cd /tmp/wt_h113 && PYTHONPATH=<package root>:/tmp/wt_h113/tests OMP_NUM_THREADS=1 \
    /work/main/.venv/bin/python benchmarks/results/output_links_2026-12-07/probe.py /tmp/h113probe_<name> \
    > <beside>/<name>.txt
(before.txt: <package root> /tmp/h113_main, main at a3920b79 checked out there; after.txt: /tmp/wt_h113, branch h113.)
The three cases the hundred-and-twentieth session left of outputs reached through symbolic links: (1) predict's lock
against a second predict writing one real folder/file through links from two folders, (2) a dangling export/run-file
link met by export and training's checks before the work, (3) links of links (out -> a -> b) written and removed.
Process A (a subprocess) holds what a live predict holds while it writes (holding_output_folder), and says so by a
file; B is a real predict started after that file appears: ordered by files, no timing."""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nibabel as nib
import numpy as np
import torch

from accelerated_seg.config import ConfigError
from accelerated_seg.data.io import write_nifti
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.exported_model import write_export
from accelerated_seg.files import write_text_atomically
from accelerated_seg.inference import predict_cases
from accelerated_seg.inference_outputs import remove_earlier_prediction
from accelerated_seg.predict_marks import label_map_descrip
from test_inference import export

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
root.mkdir(parents=True)
print("package:", Path(__import__("accelerated_seg").__file__).parent)
print("A's package:", subprocess.run([sys.executable, "-c", "import accelerated_seg; print(accelerated_seg.__file__)"],
                                     cwd=root, capture_output=True, text=True).stdout.strip())
write_synthetic_dataset(root / "scans", num_cases=1, num_validation=1, size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0)
image = root / "scans" / "imagesTr" / "case_000.nii.gz"
model = export(root / "model")

HOLDER = """
import sys, time
from pathlib import Path
from accelerated_seg.inference_outputs import holding_output_folder
output, outputs, ready, done = sys.argv[1], sys.argv[2:-2], Path(sys.argv[-2]), Path(sys.argv[-1])
with holding_output_folder(output, outputs):
    ready.write_text("held")
    while not done.exists():
        time.sleep(0.05)
"""


def while_a_holds(output: Path, outputs: list[Path], then) -> None:
    """Run ``then()`` while process A holds what a predict into ``output`` (writing ``outputs``) holds."""
    ready, done = root / f"ready_{len(list(root.glob('ready_*')))}", root / f"done_{len(list(root.glob('done_*')))}"
    # cwd: -c puts the working folder first on sys.path, which would import the package found there, not PYTHONPATH's
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(output), *map(str, outputs), str(ready), str(done)],
                              cwd=root)
    while not ready.exists():
        if holder.poll() is not None:
            raise SystemExit(f"A ended with {holder.returncode} before holding")
        time.sleep(0.05)
    try:
        then()
    finally:
        done.write_text("go")
        holder.wait()


def predict_b(output: Path, said: str) -> None:
    try:
        predict_cases(model, [image], output)
        print(f"   B ({said}): NOT refused, wrote {output}")
    except ConfigError as error:
        print(f"   B ({said}): refused: {error}")


def identity(path: Path) -> str:
    return f"inode {os.stat(path).st_ino}" if path.exists() else "gone"


print("== 1a: A predicts into out1/, B into out2/; each folder's case_000.nii.gz links to store/case_000.nii.gz")
store = root / "store"
predict_cases(model, [image], store)  # an earlier predict's map there, which a rerun may replace
for folder in ("out1", "out2"):
    (root / folder).mkdir()
    (root / folder / "case_000.nii.gz").symlink_to(store / "case_000.nii.gz")
before = identity(store / "case_000.nii.gz")
while_a_holds(root / "out1", [root / "out1" / "case_000.nii.gz"], lambda: predict_b(root / "out2", "--output out2"))
print(f"   store/case_000.nii.gz: {before} -> {identity(store / 'case_000.nii.gz')}")

print("== 1b: A predicts --output one1/seg.nii.gz, B --output one2/seg.nii.gz; both link to study/seg.nii.gz")
study = root / "study"
predict_cases(model, [image], study / "seg.nii.gz")
for folder in ("one1", "one2"):
    (root / folder).mkdir()
    (root / folder / "seg.nii.gz").symlink_to(study / "seg.nii.gz")
before = identity(study / "seg.nii.gz")
while_a_holds(root / "one1" / "seg.nii.gz", [root / "one1" / "seg.nii.gz"],
              lambda: predict_b(root / "one2" / "seg.nii.gz", "--output one2/seg.nii.gz"))
print(f"   study/seg.nii.gz: {before} -> {identity(study / 'seg.nii.gz')}")

print("== 1c: the same without links: A and B both --output plain/seg.nii.gz")
predict_cases(model, [image], root / "plain" / "seg.nii.gz")
while_a_holds(root / "plain" / "seg.nii.gz", [root / "plain" / "seg.nii.gz"],
              lambda: predict_b(root / "plain" / "seg.nii.gz", "--output plain/seg.nii.gz"))
print("   left in plain/ after both:", sorted(p.name for p in (root / "plain").iterdir()))

print("== 1d: A predicts into out1/ (links into store/), B plain into store/ (nothing linked): B meets A's lock")
while_a_holds(root / "out1", [root / "out1" / "case_000.nii.gz"], lambda: predict_b(store, "--output store"))
print("   left in store/ and out1/ after both:", sorted(p.name for p in store.iterdir()),
      sorted(p.name for p in (root / "out1").iterdir()))

print("== 2a: export --output model_link, a link to a folder on storage not mounted: the checks before the reading")
from accelerated_seg.checkpoint_files import check_export_output  # noqa: E402

dangling = root / "model_link"
dangling.symlink_to(root / "unmounted" / "model")
try:
    check_export_output(dangling, root / "run" / "checkpoints" / "step_1")
    print("   checks: passed (the export reads the checkpoint, then its write refuses)")
except ConfigError as error:
    print(f"   checks: refused: {error}")
try:
    write_export({"w": torch.ones(1)}, {"name": "unet", "args": {}}, {}, dangling)
except OSError as error:
    print(f"   the write: {type(error).__name__}: {error}")

print("== 2b: train/fit into run/ where run/model or run/summary.json is a dangling link, or run itself is")
from accelerated_seg.run_folder import check_folder_path, resume_or_replace  # noqa: E402

for name in ("model", "summary.json", "checkpoints"):
    run = root / f"run_{name.replace('.', '_')}"
    run.mkdir()
    (run / name).symlink_to(root / "unmounted" / name)
    try:
        print(f"   {run.name}/{name}: resume_or_replace -> {resume_or_replace(run, None, False)} (the run trains)")
    except ConfigError as error:
        print(f"   {run.name}/{name}: refused: {error}")
(root / "run_itself").symlink_to(root / "unmounted" / "run")
try:
    check_folder_path(root / "run_itself", "train.output_dir")
    resume_or_replace(root / "run_itself", None, False)
    print("   run_itself: passed the checks")
    from accelerated_seg.run_lock import hold_run_folder
    hold_run_folder(root / "run_itself").release()
    print("   run_itself: the run folder's lock taken")
except ConfigError as error:
    print(f"   run_itself: refused: {error}")
except OSError as error:
    print(f"   run_itself: the lock: {type(error).__name__}: {error}")

print("== 3: links of links: out3/seg.nii.gz -> mid/seg.nii.gz -> final/seg.nii.gz (and the same for other writers)")
for folder in ("out3", "mid", "final"):
    (root / folder).mkdir()


def chain(name: str) -> tuple[Path, Path, Path]:
    first, middle, last = root / "out3" / name, root / "mid" / name, root / "final" / name
    middle.symlink_to(Path("..") / "final" / name)  # relative, as `ln -s ../final/x` makes it
    first.symlink_to(middle)
    return first, middle, last


def kinds(*paths: Path) -> str:
    return ", ".join(f"{p.parent.name}/{p.name}: " + ("link" if p.is_symlink() else "dir" if p.is_dir() else
                                                       "file" if p.exists() else "none")
                     + (" (dangling)" if p.is_symlink() and not p.exists() else "") for p in paths)


labels, header = np.ones((2, 2, 2), np.uint8), nib.Nifti1Header()
header["descrip"] = label_map_descrip(labels)
first, middle, last = chain("seg.nii.gz")
write_nifti(last, labels, np.eye(4), header=header)
old = os.stat(last).st_ino
write_nifti(first, labels, np.eye(4), header=header)
print(f"   a map written through: {kinds(first, middle, last)}; final replaced: {os.stat(last).st_ino != old}")
print(f"   a failed case's removal: said {remove_earlier_prediction(first)!r}")
print(f"      after: {kinds(first, middle, last)}")
first, middle, last = chain("summary.json")
last.write_text('{"old": 1}')
write_text_atomically(first, '{"new": 1}')
print(f"   summary.json written through: {kinds(first, middle, last)}; final holds {last.read_text()}")
first, middle, last = chain("model")
write_export({"w": torch.zeros(1)}, {"name": "unet", "args": {}}, {}, last)
write_export({"w": torch.ones(1)}, {"name": "unet", "args": {}}, {}, first)
from safetensors.torch import load_file  # noqa: E402

print(f"   an export through: {kinds(first, middle, last)}; final holds w={load_file(last / 'model.safetensors')['w']}"
      f"; left in final/: {sorted(p.name for p in (root / 'final').iterdir())}")

print("== 3b: a checkpoint step folder run/checkpoints/step_1 -> mid/step_1 -> final/step_1, saved again and rotated")
from test_preemption import _OneProcess  # noqa: E402

from accelerated_seg.checkpoint import save_training_state  # noqa: E402

save_training_state(_OneProcess(), root / "final", 1, 1, "config: yes\n")
(root / "mid" / "step_1").symlink_to(root / "final" / "step_1")
(root / "ckrun" / "checkpoints").mkdir(parents=True)
(root / "ckrun" / "checkpoints" / "step_1").symlink_to(root / "mid" / "step_1")
for step in (1, 2):
    save_training_state(_OneProcess(), root / "ckrun" / "checkpoints", step, 1, "config: yes\n")
listed = sorted(p.name + ("@" if p.is_symlink() else "") for p in (root / "ckrun" / "checkpoints").iterdir())
print(f"   after saving steps 1 and 2 (keep_last 1): {kinds(root / 'mid' / 'step_1', root / 'final' / 'step_1')}; "
      f"checkpoints/: {listed}")
