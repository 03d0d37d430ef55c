"""Run: cd /tmp/wt_h110 && PYTHONPATH=/tmp/wt_h110 /work/main/.venv/bin/python \
    benchmarks/results/symlinked_outputs_2026-12-07/probe.py /tmp/h110probe > <beside this file>/<name>.txt
(before.txt: run in the worktree at main, 95885b26, before any change; after.txt: branch h110's fix, 326e71f3.)

Outputs that are symbolic links (a user's out/seg.nii.gz -> store/seg.nii.gz on shared storage). Part 1, what the
tools of the field do with a symlinked destination: nibabel's own save, shutil.copy and GNU cp (the evidence for
what a user expects). Part 2, predict --input ... --output <link to a file>, and a folder of cases given as a link
(and a case's map in it a link), then --continue. Part 3, an export (exported_model.write_export, what `export` and
training's model/ call) into a folder given as a link. Part 4, a run's run_info.json (run_records' writer,
files.write_text_atomically) at a link. Part 5, a dangling link, a link loop, a link to /dev/shm (tmpfs, another
filesystem than /tmp's). For each: whether the link is still a link, whether its target holds the new file.
Setup: review_inference_md's setup_probe.py (a tiny random-weight export, data/imagesTr)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
setup = Path(__file__).resolve().parents[1] / "review_inference_md_2026-12-06" / "setup_probe.py"
subprocess.run([sys.executable, str(setup), str(root)], check=True, capture_output=True)
scans = sorted((root / "data" / "imagesTr").glob("*.nii.gz"))
scan = scans[0]


def state(link: Path, before_inode=None) -> str:
    kind = "a link" if link.is_symlink() else ("a regular file" if link.is_file() else
                                                 "a folder" if link.is_dir() else "missing")
    if not link.is_symlink():
        return f"{link.name} is {kind}"
    target = Path(os.path.realpath(link))
    if not target.exists():
        return f"{link.name} is a link to a missing {target}"
    inode = target.stat().st_ino
    fresh = "" if before_inode is None else (" (target REPLACED: new inode)" if inode != before_inode
                                             else " (target NOT replaced: stale, old inode)")
    return f"{link.name} is {kind} to {target.name}{fresh}"


def predict(*args) -> str:
    run = subprocess.run([sys.executable, "-m", "accelerated_seg", "predict", "--model", str(root / "model"), *args],
                         capture_output=True, text=True, cwd=root)
    lines = (run.stdout + run.stderr).strip().splitlines()
    return f"exit {run.returncode}: {lines[-1] if lines else ''}"


print("== Part 1: the field's tools, with dst a link to an existing file and a dangling link")
for tool in ("nibabel to_filename", "shutil.copy", "cp"):
    for dangling in (False, True):
        work = root / "tools" / f"{tool.split()[0]}_{dangling}"
        work.mkdir(parents=True)
        target = work / "store" / "seg.nii.gz"
        target.parent.mkdir()
        if not dangling:
            nib.save(nib.Nifti1Image(np.zeros((2, 2, 2), np.uint8), np.eye(4)), target)
        inode = target.stat().st_ino if target.exists() else None
        link = work / "seg.nii.gz"
        link.symlink_to(target)
        image = nib.Nifti1Image(np.ones((2, 2, 2), np.uint8), np.eye(4))
        source = work / "new.nii.gz"
        nib.save(image, source)
        try:
            if tool == "nibabel to_filename":
                image.to_filename(link)
            elif tool == "shutil.copy":
                shutil.copy(source, link)
            else:
                subprocess.run(["cp", str(source), str(link)], check=True, capture_output=True, text=True)
            outcome = "wrote"
        except Exception as error:  # noqa: BLE001 - the probe reports whatever it was
            outcome = f"refused: {getattr(error, 'stderr', '') or error}".strip()
        holds = (f", target holds the new data: {bool(np.asarray(nib.load(target).dataobj).all())}"
                 if target.exists() else "")
        print(f"{tool:20s} {'dangling link' if dangling else 'link to a file'}: {outcome}; {state(link)}"
              f"{', same inode' if target.exists() and target.stat().st_ino == inode else ''}{holds}")

print("\n== Part 2: predict")
store = root / "store"
store.mkdir()
print("first run into store/seg.nii.gz:", predict("--input", str(scan), "--output", str(store / "seg.nii.gz")))
(root / "out").mkdir()
link = root / "out" / "seg.nii.gz"
link.symlink_to(store / "seg.nii.gz")
inode = (store / "seg.nii.gz").stat().st_ino
print("--input --output out/seg.nii.gz (link):", predict("--input", str(scan), "--output", str(link)))
print("  ", state(link, inode))

folder_store = root / "store_folder"
print("first run into store_folder/:", predict(*map(str, scans), "--output",
                                               str(folder_store)))
(root / "out_folder").symlink_to(folder_store)
first = sorted(folder_store.glob("*.nii.gz"))[0]
inode = first.stat().st_ino
print("--output out_folder/ (a link to store_folder/):",
      predict(*map(str, scans), "--output", str(root / "out_folder")))
print("   out_folder is", "a link" if (root / "out_folder").is_symlink() else "NOT a link",
      f"; {first.name} in store_folder replaced: {first.stat().st_ino != inode}")
cases = root / "cases"
cases.mkdir()
case_store = root / "case_store"
print("first run into case_store/:", predict(*map(str, scans), "--output", str(case_store)))
for path in sorted(case_store.glob("*.nii.gz")):
    (cases / path.name).symlink_to(path)
one = sorted(cases.iterdir())[0]
inode = Path(os.path.realpath(one)).stat().st_ino
print("--output cases/ (each map in it a link into case_store/):",
      predict(*map(str, scans), "--output", str(cases)))
print("  ", state(one, inode))
inode = Path(os.path.realpath(one)).stat().st_ino if one.exists() else None
print("again with --continue:", predict(*map(str, scans), "--output", str(cases), "--continue"))
print("  ", state(one, inode), "(--continue: the same inode means passed over)")

print("\n== Part 3: an export into a folder given as a link (exported_model.write_export)")
from accelerated_seg.exported_model import write_export  # noqa: E402
from safetensors.torch import load_file  # noqa: E402

(root / "export_link").symlink_to(root / "model")
inode = (root / "model" / "model.safetensors").stat().st_ino
config = __import__("json").loads((root / "model" / "config.json").read_text())
tensors = {k: v + 1 for k, v in load_file(root / "model" / "model.safetensors").items()}
write_export(tensors, config["model"], {k: v for k, v in config.items() if k not in ("model", "format_version")},
             root / "export_link")
print("  export_link is", "a link" if (root / "export_link").is_symlink() else "NOT a link (a folder now)",
      f"; model/model.safetensors replaced: {(root / 'model' / 'model.safetensors').stat().st_ino != inode}",
      f"; partial/previous left: {sorted(p.name for p in root.iterdir() if p.name.endswith(('.partial', '.previous')))}")

print("\n== Part 4: a run's run_info.json at a link (files.write_text_atomically, as run_records writes it)")
from accelerated_seg.files import write_text_atomically  # noqa: E402

run = root / "run"
run.mkdir()
(root / "shared").mkdir()
(root / "shared" / "run_info.json").write_text('{"old": 1}')
(run / "run_info.json").symlink_to(root / "shared" / "run_info.json")
inode = (root / "shared" / "run_info.json").stat().st_ino
write_text_atomically(run / "run_info.json", '{"new": 1}')
print("  ", state(run / "run_info.json", inode), "; target reads", (root / "shared" / "run_info.json").read_text())
(root / "run_link").symlink_to(run)
write_text_atomically(root / "run_link" / "metrics.json", "{}")
print("   run_link/ (a link to run/): metrics.json written into run/:", (run / "metrics.json").is_file(),
      "; run_link still a link:", (root / "run_link").is_symlink())

print("\n== Part 5: a dangling link, a link loop, a link onto another filesystem (/dev/shm, tmpfs)")
odd = root / "odd"
odd.mkdir()
(odd / "dangling.nii.gz").symlink_to(root / "nowhere" / "seg.nii.gz")
(odd / "loop.nii.gz").symlink_to(odd / "loop2.nii.gz")
(odd / "loop2.nii.gz").symlink_to(odd / "loop.nii.gz")
elsewhere = Path("/dev/shm/h110probe")
shutil.rmtree(elsewhere, ignore_errors=True)
elsewhere.mkdir()
print("other filesystem first run:", predict("--input", str(scan), "--output", str(elsewhere / "seg.nii.gz")))
(odd / "shm.nii.gz").symlink_to(elsewhere / "seg.nii.gz")
inode = (elsewhere / "seg.nii.gz").stat().st_ino
print(f"/tmp and /dev/shm devices: {odd.stat().st_dev} {elsewhere.stat().st_dev}")
for name in ("dangling.nii.gz", "loop.nii.gz", "shm.nii.gz"):
    print(f"--output {name}:", predict("--input", str(scan), "--output", str(odd / name)))
    print("  ", state(odd / name, inode if name == "shm.nii.gz" else None),
          "; temporaries left:", sorted(p.name for p in [*odd.iterdir(), *elsewhere.iterdir()] if ".tmp" in p.name))
for name in ("dangling.json", "loop.json"):
    (odd / name).symlink_to(odd / ("nowhere.json" if name == "dangling.json" else name))
    try:
        write_text_atomically(odd / name, "{}")
        print(f"write_text_atomically({name}): wrote;", state(odd / name))
    except Exception as error:  # noqa: BLE001
        print(f"write_text_atomically({name}): {type(error).__name__}: {error}")
shutil.rmtree(elsewhere)
