"""Review r113, probe 2: a dataset's dataset.json that is a link to a link to nothing, a link loop (ELOOP), a link
to a folder, and (run as nobody) a file that may not be read; through load_cases, `check`, `evaluate --labels`.

Run: cd <worktree> && PYTHONPATH=. /work/main/.venv/bin/python \
    benchmarks/results/review_r113_2026-12-07/probe_links.py \
    > benchmarks/results/review_r113_2026-12-07/links_<when>.txt
(the permission case: its reads as the user nobody, os.seteuid, where the probe runs as root)
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.evaluate_classes import class_names_from_json

tmp = Path(tempfile.mkdtemp())
os.chmod(tmp, 0o755)
EXE = [sys.executable, "-m", "accelerated_seg.cli"]


def dataset(name: str) -> Path:
    folder = tmp / name
    for sub in ("imagesTr", "labelsTr"):
        (folder / sub).mkdir(parents=True)
    for case in ("a", "b"):
        image = nib.Nifti1Image(np.zeros((8, 8, 8), np.float32), np.eye(4))
        nib.save(image, folder / "imagesTr" / f"{case}.nii.gz")
        label = np.zeros((8, 8, 8), np.uint8)
        label[2:5, 2:5, 2:5] = 1
        nib.save(nib.Nifti1Image(label, np.eye(4)), folder / "labelsTr" / f"{case}.nii.gz")
    return folder


def said(text: str) -> str:
    return text.replace(str(tmp), "<tmp>").strip().splitlines()[-1] if text.strip() else "(nothing)"


def show(what: str, folder: Path) -> None:
    print(f"== {what}")
    try:
        load_cases(folder)
        print("  load_cases: read")
    except DataError as error:
        print(f"  load_cases: {said(str(error))}")
    done = subprocess.run([*EXE, "check", str(folder)], capture_output=True, text=True)
    print(f"  check: status {done.returncode}: {said(done.stderr or done.stdout)}")
    for given in (folder, folder / "dataset.json"):
        try:
            class_names_from_json(given)
            print(f"  evaluate --labels {given.name}: read")
        except DataError as error:
            print(f"  evaluate --labels {given.name}: {said(str(error))}")


chain = dataset("chain")
os.symlink(tmp / "second_link", chain / "dataset.json")
os.symlink("/mnt/not_mounted/dataset.json", tmp / "second_link")
show("dataset.json -> second_link -> /mnt/not_mounted/dataset.json", chain)

loop = dataset("loop")
os.symlink(loop / "dataset.json", loop / "dataset.json")
show("dataset.json -> itself (ELOOP)", loop)

to_folder = dataset("to_folder")
(tmp / "a_folder").mkdir()
os.symlink(tmp / "a_folder", to_folder / "dataset.json")
show("dataset.json -> a folder", to_folder)

plain_folder = dataset("plain_folder")
(plain_folder / "dataset.json").mkdir()
show("dataset.json a folder (no link)", plain_folder)

if os.getuid() == 0:
    locked = dataset("locked")
    (locked / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "one"}, "modality": {"0": "CT"},
                                                     "training": [{"image": "./imagesTr/a.nii.gz",
                                                                   "label": "./labelsTr/a.nii.gz"}]}))
    os.chmod(locked / "dataset.json", 0o600)
    for path in tmp.rglob("*"):
        if path != locked / "dataset.json" and not path.is_symlink():
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
    print("== dataset.json mode 600 of root, read as nobody (os.seteuid in this process)")
    os.seteuid(65534)
    try:
        load_cases(locked)
        print("  load_cases: read")
    except DataError as error:
        print(f"  load_cases: {said(str(error))}")
    try:
        class_names_from_json(locked)
        print("  evaluate --labels: read")
    except DataError as error:
        print(f"  evaluate --labels: {said(str(error))}")
    finally:
        os.seteuid(0)

# evaluate PRED LABELS without --labels, LABELS an nnU-Net labelsTs whose dataset.json one up is a link to nothing
# (h128's Left: evaluate_command._declaration_left_unused passed it over as no dataset.json)
labelled = dataset("labelsTs_case")
(labelled / "labelsTr").rename(labelled / "labelsTs")
(pred := tmp / "pred").mkdir()
for case in ("a", "b"):
    os.link(labelled / "labelsTs" / f"{case}.nii.gz", pred / f"{case}.nii.gz")
os.symlink("/mnt/not_mounted/dataset.json", labelled / "dataset.json")
done = subprocess.run([*EXE, "evaluate", str(pred), str(labelled / "labelsTs"), "--output",
                       str(tmp / "ev")], capture_output=True, text=True)
print(f"== evaluate PRED LABELS, no --labels, dataset.json one up a link to nothing: status {done.returncode}")
if done.returncode:
    print(said(done.stderr))
notes = [line for line in done.stdout.replace(str(tmp), "<tmp>").splitlines() if "note" in line or "warning" in line]
print("\n".join(notes) or "  (no note)")
