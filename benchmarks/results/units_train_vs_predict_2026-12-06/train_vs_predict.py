"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python train_vs_predict.py <empty folder>
The hundred-and-sixteenth session (helper h84): one file's units, judged by training's pre-flight checks, by
`accelerated-seg check` and by predict, against the same spacing. Each kind of file (true voxels 2 mm, 8^3) is a case,
its label on its image's grid and header, put:
  check:  `python -m accelerated_seg check --config <yaml>` (a subprocess), the case among two reference cases in mm
          at 2 mm (the "model's training cases"), data.spacing set to 2 x 2 x 2 (set) or unset (median: 2 x 2 x 2);
  train:  training's pre-flight on the same dataset and config (``training_data.checked_data``, the two calls training
          makes before its cache: ``check_as_configured`` and ``settings_and_unit``), in process;
  predict: ``inference.predict_file`` (what `predict --input` calls) on the case's image, for a model trained in mm
          at 2 x 2 x 2 (config.json's spacing_unit "mm"), its spacing set (set) or a median (median).
Each cell: PASSES, or the refusing check (units: a unit error; budget: data.max_voxels once resampled; finer: the far
finer check; memory: the host's memory) and the first line offered ("declare mm", "from micrometres", "from metres",
"spacing?" for a line about data.spacing alone, "none"); then whether the three agree (the same verdict and first
line, whichever check says it).
Kinds: mm; mm~U (micrometre numbers, 2000, declared mm); U~mm (mm numbers declared micrometres); M~mm (mm numbers
declared metres); n0.1, n10, n1000 (no unit, numbers 0.1, 10 and 1000 times the mm: 0.2, 20, 2000)."""
import json, re, subprocess, sys, warnings
from pathlib import Path
import numpy as np, nibabel as nib, torch

from accelerated_seg.data.errors import DataError
from accelerated_seg.exported_model import write_export
from accelerated_seg.inference import predict_file
from accelerated_seg.models import build_from_spec, model_spec

KINDS = {"mm": ("mm", 1.0), "mm~U": ("mm", 1000.0), "U~mm": ("micron", 1.0), "M~mm": ("meter", 1.0),
         "n0.1": ("none", 0.1), "n10": ("none", 10.0), "n1000": ("none", 1000.0)}
PATCH = [16, 16, 16]
root = Path(sys.argv[1]).absolute()
root.mkdir(exist_ok=True)


def write(path, unit, numbers, label=False):
    rng = np.random.default_rng(0)
    voxels = np.zeros((8, 8, 8), np.uint8) if label else (rng.random((8, 8, 8)) + 1).astype(np.float32)
    if label:
        voxels[2:6, 2:6, 2:6] = 1
    image = nib.Nifti1Image(voxels, np.diag([2.0 * numbers] * 3 + [1.0]))
    if unit != "none":
        image.header.set_xyzt_units(unit)
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(image, path)
    return path


def dataset(kind):
    folder = root / kind
    entries = []
    for case, (unit, numbers) in (("ref_a", ("mm", 1.0)), ("ref_b", ("mm", 1.0)), ("probed", KINDS[kind])):
        write(folder / "imagesTr" / f"{case}.nii.gz", unit, numbers)
        write(folder / "labelsTr" / f"{case}.nii.gz", unit, numbers, label=True)
        entries.append({"image": f"./imagesTr/{case}.nii.gz", "label": f"./labelsTr/{case}.nii.gz"})
    (folder / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"}, "modality": {"0": "MRI"},
                                                     "training": entries, "validation": []}))
    configs = {}
    for how, spacing in (("set", "[2, 2, 2]"), ("median", "null")):
        configs[how] = folder / f"{how}.yaml"
        configs[how].write_text(f"data:\n  dataset: {folder / 'dataset.json'}\n  spacing: {spacing}\n"
                                f"  cache_dir: {root / 'cache'}\n  num_workers: 0\n  patch_size: {PATCH}\n"
                                f"model:\n  args: {{channels: [4, 8], strides: [2], num_res_units: 0}}\n"
                                f"train:\n  output_dir: {folder / ('run_' + how)}\n")
    return folder, configs


def export(folder, spacing_set):
    spec = model_spec("unet", 1, 2, PATCH, {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    torch.manual_seed(0)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    metadata = {"labels": {"0": "background", "1": "a"}, "channels": {"0": "MRI"}, "in_channels": 1,
                "num_classes": 2, "patch_size": PATCH, "spacing": [2.0, 2.0, 2.0], "spacing_unit": "mm"}
    write_export(tensors, spec.to_dict(), metadata, folder)
    config = json.loads((folder / "config.json").read_text())
    config["spacing_set"] = spacing_set
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def check(config):
    done = subprocess.run([sys.executable, "-m", "accelerated_seg", "check", "--config", str(config)],
                          capture_output=True, text=True, timeout=300)
    errors = [line.removeprefix("error: ") for line in done.stderr.splitlines() if line.startswith("error: ")]
    return "\n".join(errors) or None if done.returncode else None


def train(config):
    from accelerate import Accelerator
    from accelerated_seg.config import ConfigError, load_config
    from accelerated_seg.training_data import checked_data
    try:
        checked_data(load_config(config, []), Accelerator(cpu=True), None)
        return None
    except (DataError, ConfigError) as error:
        return str(error)


def predict(model, image):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            predict_file(model, [image], root / "out.nii.gz")
        return None
    except DataError as error:
        return str(error)


def verdict(said):
    """(the refusing check, the first line offered) of ``said``."""
    if said is None:
        return "PASSES"
    which = ("memory" if "GiB is available" in said else "budget" if "data.max_voxels" in said else
             "finer" if "times finer than" in said else "units" if "xyzt_units" in said else "other")
    first = said.split("; or,")[0].split(", or, where")[0]
    found = re.search(r"np\.diag\(\[([0-9.e+-]+),|unit_codes\['(\w+)'\]\]?; nib\.save\(img", first)
    scale = {"0.001": "from micrometres", "1000": "from metres"}
    if found is None:
        line = "spacing?" if "data.spacing" in first and "nibabel" not in first else "none"
    elif found.group(1):
        line = scale.get(found.group(1), f"x{found.group(1)}")
    else:
        line = f"declare {found.group(2)}"
    return f"{which}: {line}"


models = {"set": export(root / "model_set", True), "median": export(root / "model_median", False)}
print(f"{'kind':7} {'spacing':7} | {'check':24} | {'train':24} | {'predict':24} | agree")
words = []
for kind in KINDS:
    folder, configs = dataset(kind)
    for how in ("set", "median"):
        said = {"check": check(configs[how]), "train": train(configs[how]),
                "predict": predict(models[how], folder / "imagesTr" / "probed.nii.gz")}
        cells = {who: verdict(text) for who, text in said.items()}
        # the same verdict and the same first line, whichever check says it
        agree = "yes" if len({cell.split(": ")[-1] for cell in cells.values()}) == 1 else "NO"
        print(f"{kind:7} {how:7} | {cells['check']:24} | {cells['train']:24} | {cells['predict']:24} | {agree}")
        for who, text in said.items():
            if text is not None:
                words.append(f"{kind} {how} {who}: {text.replace(str(root), '<root>')}")
print()
print("\n\n".join(words))
