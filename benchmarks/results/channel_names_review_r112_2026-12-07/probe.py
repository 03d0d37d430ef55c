"""Run as: cd <worktree> && PYTHONPATH=<code>:<worktree>/tests OMP_NUM_THREADS=1 timeout 900 \
    /work/main/.venv/bin/python benchmarks/results/channel_names_review_r112_2026-12-07/probe.py <empty folder> \
    > benchmarks/results/channel_names_review_r112_2026-12-07/<main|after>.txt
(<code>: main's accelerated_seg, `git archive main accelerated_seg | tar -x -C <code>`, for main.txt; the worktree
for after.txt.)
Review r112 of helper h127's channel-name comparison (evaluate, predict), each through the real path:
(A) a model really trained from an nnU-Net dataset.json naming both its channels CT (nnU-Net's name for CT's
    normalization, which `normalization: auto` reads as CT where every channel is so named), then predict of that
    same dataset's imagesTs/, the command and predict_cases;
(B) predict of an imagesTs/ whose files are named by the model's channels (p_T1.nii.gz, p_FLAIR.nii.gz), which
    predict groups by those names, beside a dataset.json ordering them otherwise;
(C) a Decathlon model's names against the same dataset.json's in other case and spaces, 4D files;
(D) a CSV-trained model (image_0, image_1) against a dataset.json naming T1, FLAIR;
(E) scans in another dataset's Task folder: what the refusal says to do;
(F) names equal but one side with an extra channel: which message comes first (predict and evaluate);
(G) a config.json written before channel names were recorded;
(H) the same order refusal under `accelerate launch` of 2 processes: the lines said;
(I) inference.predict_cases from Python: another order, other names, scans in a folder not named images*;
(J) Segmentation.predict given a Dataset;
(K) the Dataset's own summary (repr) of channels nothing names."""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.cli import main
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation
from conftest import tiny_overrides
from test_inference import export

root = Path(sys.argv[1]).absolute()
rng = np.random.default_rng(0)
AFFINE = np.diag([2.5, 2.5, 2.5, 1.0])


def short(text) -> str:
    return str(text).replace(str(root), "<root>")


def save(path, array, affine=AFFINE):
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(array, affine), path)
    return path


def scan(path, volumes=None):
    shape = (16, 16, 16) if volumes is None else (16, 16, 16, volumes)
    return save(path, rng.uniform(10, 100, shape).astype(np.float32))


def dataset_json(folder, channels, key="channel_names"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dataset.json").write_text(json.dumps({key: channels, "labels": {"background": 0, "lesion": 1},
                                                     "numTraining": 0, "file_ending": ".nii.gz"}))


def two_scans(task, names, case):
    """``task/imagesTs`` holding ``case``'s two channel files (_0000, _0001), beside a dataset.json naming ``names``."""
    dataset_json(task, dict(enumerate(names)))
    for index in range(2):
        scan(task / "imagesTs" / f"{case}_{index:04d}.nii.gz")
    return task / "imagesTs"


def written(folder):
    folder = Path(folder)
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def cli(*args):
    """main(args): its status, stdout and stderr lines, the warnings raised (as the command says them)."""
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(record=True) as raised, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        warnings.simplefilter("always")
        try:
            status = main([str(a) for a in args])
        except SystemExit as stop:
            status = stop.code
    said = [line for line in (out.getvalue() + err.getvalue()).splitlines() if line.strip()]
    said += [f"warning: {w.message}" for w in raised if "channel" in str(w.message)]
    return status, said


def report(tag, status, said, folder=None):
    print(f"  {tag}: status {status}" + (f"; written: {written(folder)}" if folder is not None else ""))
    for line in said:
        if "error" in line or "warning" in line or "channel" in line:
            print(f"    {short(line)}")


def section(title):
    print(f"\n{title}")
    sys.stdout.flush()


# (A) ------------------------------------------------------------------------------------------------------------
section("(A) a model trained from an nnU-Net dataset.json naming both channels CT; predict of its imagesTs/")
synthetic = write_synthetic_dataset(root / "A" / "synthetic", num_cases=6, num_validation=0, seed=0,
                                    size_mm=(40.0, 40.0, 32.0), spacing_mm=2.0).parent
task = root / "A" / "Dataset001_TwoPhaseCT"
for sub in ("imagesTr", "labelsTr", "imagesTs"):
    (task / sub).mkdir(parents=True)
for index, image in enumerate(sorted((synthetic / "imagesTr").glob("*.nii.gz"))):
    case = image.name.removesuffix(".nii.gz")
    where = "imagesTs" if index >= 4 else "imagesTr"
    shutil.copy(image, task / where / f"{case}_0000.nii.gz")
    shutil.copy(image, task / where / f"{case}_0001.nii.gz")
    if where == "imagesTr":
        shutil.copy(synthetic / "labelsTr" / image.name, task / "labelsTr" / image.name)
(task / "dataset.json").write_text(json.dumps({"channel_names": {"0": "CT", "1": "CT"},
                                               "labels": {"background": 0, "ventricles": 1, "lesion": 2},
                                               "numTraining": 4, "file_ending": ".nii.gz"}))
status, said = cli("train", *tiny_overrides(task / "dataset.json", root / "A" / "run", train__max_steps=2,
                                            train__val_every=0, train__save_every=2,
                                            data__validation_fraction=0.25))
print(f"  train: status {status}")
model = root / "A" / "run" / "model"
if (model / "config.json").is_file():
    print(f"  the model's config.json channels: {json.loads((model / 'config.json').read_text()).get('channels')}")
    report("predict --model run/model Dataset001_TwoPhaseCT/imagesTs", *cli(
        "predict", "--model", model, task / "imagesTs", "--output", root / "A" / "out"), root / "A" / "out")
    from accelerated_seg.inference import predict_cases
    try:
        with warnings.catch_warnings(record=True) as raised:
            warnings.simplefilter("always")
            predict_cases(model, [task / "imagesTs"], root / "A" / "py")
        print(f"  predict_cases: segmented; written: {written(root / 'A' / 'py')}")
    except Exception as error:  # noqa: BLE001 - the probe says what came
        print(f"  predict_cases: {type(error).__name__}: {short(error)}; written: {written(root / 'A' / 'py')}")
else:
    print("  train said:", *map(short, said[-5:]), sep="\n    ")

# (B) ------------------------------------------------------------------------------------------------------------
section("(B) imagesTs/ files named by the model's channels (p_T1, p_FLAIR), dataset.json naming FLAIR, T1")
model_b = export(root / "B" / "model", in_channels=2, channels={"0": "T1", "1": "FLAIR"})
dataset_json(root / "B" / "Task", {"0": "FLAIR", "1": "T1"}, key="modality")
for name in ("T1", "FLAIR"):
    scan(root / "B" / "Task" / "imagesTs" / f"p_{name}.nii.gz")
from accelerated_seg.inference_inputs import collect_cases  # noqa: E402

grouped = collect_cases([root / "B" / "Task" / "imagesTs"], json.loads((model_b / "config.json").read_text()))
print(f"  predict's grouping feeds: {[[Path(p).name for p in case.channels] for case in grouped]} "
      f"(model's channel 0, channel 1)")
report("predict", *cli("predict", "--model", model_b, root / "B" / "Task" / "imagesTs", "--output",
                       root / "B" / "out"), root / "B" / "out")

# (C) ------------------------------------------------------------------------------------------------------------
section("(C) a Decathlon model (FLAIR, T1w) against its dataset.json's ' flair', 'T1W', 4D files in imagesTs/")
model_c = export(root / "C" / "model", in_channels=2, channels={"0": "FLAIR", "1": "T1w"})
dataset_json(root / "C" / "Task01", {"0": " flair", "1": "T1W"}, key="modality")
scan(root / "C" / "Task01" / "imagesTs" / "BRATS_001.nii.gz", volumes=2)
report("predict", *cli("predict", "--model", model_c, root / "C" / "Task01" / "imagesTs", "--output",
                       root / "C" / "out"), root / "C" / "out")

# (D) ------------------------------------------------------------------------------------------------------------
section("(D) a CSV-trained model (image_0, image_1) against a dataset.json naming T1, FLAIR")
model_d = export(root / "D" / "model", in_channels=2, channels={"0": "image_0", "1": "image_1"})
report("predict", *cli("predict", "--model", model_d, two_scans(root / "D" / "Task", ["T1", "FLAIR"], "p"),
                       "--output", root / "D" / "out"), root / "D" / "out")

# (E) ------------------------------------------------------------------------------------------------------------
section("(E) the model's own scans (MRI0, MRI1 order) put in another dataset's Task folder (channel_names MRI1, MRI0)")
model_e = export(root / "E" / "model", in_channels=2)
report("predict", *cli("predict", "--model", model_e, two_scans(root / "E" / "Task02", ["MRI1", "MRI0"], "mine"),
                       "--output", root / "E" / "out"), root / "E" / "out")

# (E2) ---------------------------------------------------------------------------------------------------------------
section("(E2) predict --input of one case's files from (E)'s imagesTs/ (dataset.json MRI1, MRI0; model MRI0, MRI1)")
folder_e = root / "E" / "Task02" / "imagesTs"
for tag, order in (("mine_0001 mine_0000 (the dataset's MRI0 first: the model's order)", (1, 0)),
                   ("mine_0000 mine_0001 (the dataset's MRI1 first: another order)", (0, 1))):
    out = root / "E2" / f"{order[0]}{order[1]}" / "seg.nii.gz"
    report(f"--input {tag}", *cli("predict", "--model", model_e, "--input",
                                  *(folder_e / f"mine_{index:04d}.nii.gz" for index in order), "--output", out),
           out.parent)

# (F) ------------------------------------------------------------------------------------------------------------
section("(F) names equal but one side has an extra channel")
dataset_json(root / "F" / "Task", {"0": "MRI1", "1": "MRI0", "2": "CT"})
for index in range(3):
    scan(root / "F" / "Task" / "imagesTs" / f"p_{index:04d}.nii.gz")
report("predict, model MRI0, MRI1; dataset.json MRI1, MRI0, CT; files _0000.._0002",
       *cli("predict", "--model", model_e, root / "F" / "Task" / "imagesTs", "--output", root / "F" / "out"),
       root / "F" / "out")
pair = ([str(scan(root / "F" / "eval" / f"e_{index:04d}.nii.gz")) for index in range(3)],
        str(save(root / "F" / "eval" / "e.nii.gz", np.zeros((16, 16, 16), np.uint8))))
try:
    data = Dataset.from_files([], validation_pairs=[pair], n_classes=3, block_shape=16, num_workers=0,
                              channel_names=["MRI1", "MRI0", "CT"])
    Segmentation.load(model_e).evaluate(data, output_dir=root / "F" / "evaluation")
    print("  evaluate, Dataset MRI1, MRI0, CT: scored")
except Exception as error:  # noqa: BLE001
    print(f"  evaluate, Dataset MRI1, MRI0, CT: {type(error).__name__}: {short(error)}")

# (G) ------------------------------------------------------------------------------------------------------------
section("(G) a config.json without channels (exported before names were recorded), dataset.json MRI1, MRI0")
model_g = export(root / "G" / "model", in_channels=2)
config = json.loads((model_g / "config.json").read_text())
del config["channels"]
(model_g / "config.json").write_text(json.dumps(config))
report("predict", *cli("predict", "--model", model_g, root / "E" / "Task02" / "imagesTs", "--output",
                       root / "G" / "out"), root / "G" / "out")

# (H) ------------------------------------------------------------------------------------------------------------
section("(H) accelerate launch, 2 processes, of predict of (E)'s imagesTs/ (channel_names MRI1, MRI0)")
env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}


def launched(port, *args):
    """``accelerate launch`` of ``accelerated-seg <args>`` on 2 CPU processes (gloo)."""
    return subprocess.run(
        [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
         "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(port), "-m",
         "accelerated_seg", *map(str, args)], env=env, capture_output=True, text=True, timeout=300)


launch = launched(29617, "predict", "--model", model_e, root / "E" / "Task02" / "imagesTs", "--output",
                  root / "H" / "out")
print(f"  status {launch.returncode}; written: {written(root / 'H' / 'out')}")
for line in (launch.stdout + launch.stderr).splitlines():
    if "channel" in line:
        print(f"    {short(line)[:220]}")
two_scans(root / "H" / "Task", ["T1", "FLAIR"], "p")
launch = launched(29618, "predict", "--model", model_e, root / "H" / "Task" / "imagesTs", "--output",
                  root / "H" / "named")
print(f"  T1, FLAIR: status {launch.returncode}; written: {written(root / 'H' / 'named')}; lines naming a channel: "
      f"{sum('channel' in line for line in (launch.stdout + launch.stderr).splitlines())}")

# (I) ------------------------------------------------------------------------------------------------------------
section("(I) inference.predict_cases from Python, model MRI0, MRI1")
from accelerated_seg.inference import predict_cases  # noqa: E402

scans_elsewhere = root / "I" / "scans"
for index in range(2):
    scan(scans_elsewhere / f"mine_{index:04d}.nii.gz")
for tag, inputs, out in (("Task02/imagesTs (MRI1, MRI0)", root / "E" / "Task02" / "imagesTs", root / "I" / "order"),
                         ("H's Task/imagesTs (T1, FLAIR)", root / "H" / "Task" / "imagesTs", root / "I" / "named"),
                         ("scans/ beside a dataset.json naming MRI1, MRI0", scans_elsewhere, root / "I" / "scans_out")):
    if tag.startswith("scans/"):
        dataset_json(root / "I", {"0": "MRI1", "1": "MRI0"})
    try:
        with warnings.catch_warnings(record=True) as raised:
            warnings.simplefilter("always")
            predict_cases(model_e, inputs, out)
        names = [short(w.message)[:160] for w in raised if "channel" in str(w.message)]
        print(f"  {tag}: segmented; written: {written(out)}; warnings naming a channel: {names}")
    except Exception as error:  # noqa: BLE001
        print(f"  {tag}: {type(error).__name__}: {short(error)}; written: {written(out)}")

# (J) ------------------------------------------------------------------------------------------------------------
section("(J) Segmentation.predict given a Dataset")
try:
    data = Dataset.from_files([], validation_pairs=[(pair[0][:2], pair[1])], n_classes=3, block_shape=16,
                              num_workers=0, channel_names=["MRI1", "MRI0"])
    Segmentation.load(model_e).predict(data)
    print("  segmented")
except Exception as error:  # noqa: BLE001
    print(f"  {type(error).__name__}: {short(error)[:300]}")

# (K) ------------------------------------------------------------------------------------------------------------
section("(K) the Dataset's repr, channels nothing names")
for images in (pair[0][:2], pair[0][0]):
    print(f"  {short(repr(Dataset.from_files([], validation_pairs=[(images, pair[1])], n_classes=3, block_shape=16)))}")
