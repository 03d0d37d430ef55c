"""A dataset's hand-edited files: (1) a dataset.json, a cases CSV or a splits_final.json that is a dangling symbolic
link, found in a folder given for the dataset; (2) a key given twice in one JSON object of every hand-edited JSON the
package reads (dataset.json, splits_final.json, an export's config.json, evaluate's --labels). What each path says
(the hundred-and-twenty-fourth session, helper h128).

    cd /tmp/wt_h128 && PYTHONPATH=/tmp/wt_h128:/tmp/wt_h128/tests /work/main/.venv/bin/python \
        benchmarks/results/dataset_file_links_and_keys_2026-12-07/probe.py \
        > benchmarks/results/dataset_file_links_and_keys_2026-12-07/<before|after>.txt 2>&1

Paths: load_cases (train's pre-flight, Dataset reading), load_msd/load_nnunet given the folder, `check`, a real
`accelerated-seg train --data.dataset=...` (a subprocess, status and its last line), `evaluate --labels`, predict's
input expansion (a dataset.json given as a scan) and predict --model of an export. The temporary folder's name is
written as TMP.
"""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from broken_cases import write_csv, write_msd, write_nnunet

from accelerated_seg.cli import main
from accelerated_seg.data.formats.msd import load_msd
from accelerated_seg.data.formats.nnunet import load_nnunet
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.inference_inputs import expand_inputs

TMP = Path(tempfile.mkdtemp(prefix="h128_"))


def plain(text):
    return str(text).replace(str(TMP), "TMP")


def show(what, call):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            result = call()
        said = f"-> {result!r}" if not isinstance(result, (list, dict)) and not hasattr(result, "training") else \
            f"-> read ({len(result.training)} training case(s))" if hasattr(result, "training") else f"-> {result!r}"
    except SystemExit as stop:
        said = f"SystemExit({stop.code})"
    except Exception as error:  # noqa: BLE001 - the probe records whatever is raised
        said = f"{type(error).__name__}: {error}"
    lines = [line for line in out.getvalue().splitlines() if line.startswith(("error", "warning"))]
    print(f"[{what}] {plain(said)}")
    for line in lines:
        print(f"    {plain(line)}")


def train(dataset, name):
    run = subprocess.run([sys.executable, "-m", "accelerated_seg", "train", f"--data.dataset={dataset}",
                          f"--train.output_dir={TMP / 'runs' / name}", "--train.max_steps=1"],
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    last = [line for line in run.stderr.splitlines() if line.strip()][-1:] or ["(nothing)"]
    wrote = sorted(p.name for p in (TMP / "runs" / name).iterdir()) if (TMP / "runs" / name).exists() else []
    print(f"[train {name}] status {run.returncode}; run folder holds {wrote}")
    print(f"    {plain(last[0])}")


def predictions(labels):
    """A copy of ``labels`` as the folder of predictions evaluate scores (the same folder for both is refused)."""
    copy = TMP / f"pred_of_{labels.parent.name}"
    shutil.copytree(labels, copy, dirs_exist_ok=True)
    return str(copy)


def dangle(path):
    """``path`` made a symbolic link to storage not mounted."""
    if path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(TMP / "unmounted" / path.name)
    return path


print("== (1) dangling links found in a folder ==")
write_msd(msd := TMP / "msd")
dangle(msd / "dataset.json")
show("msd folder, load_cases", lambda: load_cases(msd))
show("msd folder, load_msd", lambda: load_msd(msd))
show("msd folder, check", lambda: main(["check", str(msd)]))
train(msd, "msd_link")
show("msd folder, evaluate --labels FOLDER",
     lambda: main(["evaluate", predictions(msd / "labelsTr"), str(msd / "labelsTr"), "--labels", str(msd),
                   "--output", str(TMP / "ev1")]))
show("msd dataset.json link, evaluate --labels FILE",
     lambda: main(["evaluate", predictions(msd / "labelsTr"), str(msd / "labelsTr"), "--labels",
                   str(msd / "dataset.json"), "--output", str(TMP / "ev2")]))
show("msd imagesTr given (its dataset.json one up a link), load_cases", lambda: load_cases(msd / "imagesTr"))
show("msd folder given to predict (inference_inputs, not h128's file)", lambda: expand_inputs([msd]))

write_nnunet(nnunet := TMP / "nnunet")
dangle(nnunet / "dataset.json")
show("nnunet folder, load_cases", lambda: load_cases(nnunet))
show("nnunet folder, load_nnunet", lambda: load_nnunet(nnunet))
show("nnunet folder, check", lambda: main(["check", str(nnunet)]))

write_nnunet(splits := TMP / "splits")
dangle(splits / "splits_final.json")
show("splits_final.json link, load_cases", lambda: load_cases(splits))

table = write_csv(csv := TMP / "csv").source
dangle(table)
show("folder of one cases.csv link, load_cases", lambda: load_cases(csv))
show("folder of one cases.csv link, check", lambda: main(["check", str(csv)]))
write_csv(csv2 := TMP / "csv2")
(csv2 / "notes.csv").write_text("a,b\n")
dangle(csv2 / "cases.csv")
show("folder of two CSVs, one a link, load_cases", lambda: load_cases(csv2))

(linked := TMP / "linked_dataset").symlink_to(TMP / "unmounted" / "Task01")
show("data.dataset itself a link to nothing, load_cases", lambda: load_cases(linked))
train(linked, "folder_link")

print("== (2) a key given twice ==")
write_msd(twice := TMP / "twice")
(twice / "dataset.json").write_text(json.dumps(json.loads((twice / "dataset.json").read_text()), indent=1)
                                    .replace('"1": "a",', '"1": "a",\n  "1": "b",'))
show("dataset.json labels '1' twice, load_cases", lambda: load_cases(twice))
show("dataset.json labels '1' twice, check", lambda: main(["check", str(twice)]))
train(twice, "key_twice")
show("dataset.json labels '1' twice, evaluate --labels",
     lambda: main(["evaluate", predictions(twice / "labelsTr"), str(twice / "labelsTr"), "--labels",
                   str(twice / "dataset.json"), "--output", str(TMP / "ev3")]))
show("dataset.json labels '1' twice, predict's expansion", lambda: expand_inputs([twice / "dataset.json"]))
write_msd(top := TMP / "top")
(top / "dataset.json").write_text((top / "dataset.json").read_text().rstrip()[:-1] + ', "validation": []}')
show("dataset.json 'validation' twice at the top, load_cases", lambda: load_cases(top))

write_nnunet(folds := TMP / "folds")
(folds / "splits_final.json").write_text('[\n {"train": ["good"],\n  "val": ["bad"],\n  "val": []}\n]\n')
show("splits_final.json 'val' twice, load_cases", lambda: load_cases(folds))
show("splits_final.json 'val' twice, check", lambda: main(["check", str(folds)]))

try:
    from test_inference import export
except Exception as error:  # noqa: BLE001
    print(f"(no export helper: {error})")
else:
    model = export(TMP / "model")
    config = model / "config.json"
    config.write_text(json.dumps(json.loads(config.read_text()), indent=1)
                      .replace('"num_classes": 3,', '"num_classes": 3,\n "num_classes": 2,'))
    write_msd(scans := TMP / "scans")
    show("export config.json 'num_classes' twice, predict --model",
         lambda: main(["predict", "--model", str(model), str(scans / "imagesTr"), "--output", str(TMP / "pred")]))
    print(f"    predictions written: {sorted(p.name for p in (TMP / 'pred').glob('*'))}")
    show("export config.json 'num_classes' twice, evaluate --labels",
         lambda: main(["evaluate", predictions(scans / "labelsTr"), str(scans / "labelsTr"), "--labels",
                       str(config), "--output", str(TMP / "ev4")]))

print("== (2b) JSON typed by hand on a command line ==")
show("plan --model-args with 'channels' twice",
     lambda: main(["plan", "--model", "unet", "--patch", "32", "32", "32", "--model-args",
                   '{"channels": [4, 8], "strides": [2], "channels": [64, 128]}']))
