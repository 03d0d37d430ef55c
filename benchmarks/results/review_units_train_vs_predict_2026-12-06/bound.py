"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python bound.py <empty folder>
Review of helper h84 (r72): training's pre-flight (training_data.checked_data) on datasets of 8^3 cases, each a
(declared unit, numbers per mm, true voxel size in mm); the first line offered for the probed case, where there is
one, run on its image and label (`path` each), and the pre-flight run again. Also predict (inference.predict_file) on
the probed case's image for a model in mm at the dataset's true spacing. Prints the verdict's first 600 characters."""
import json, re, sys, warnings
from pathlib import Path
import numpy as np, nibabel as nib, torch
from accelerate import Accelerator
from accelerated_seg.config import ConfigError, load_config
from accelerated_seg.data.errors import DataError
from accelerated_seg.exported_model import write_export
from accelerated_seg.inference import predict_file
from accelerated_seg.models import build_from_spec, model_spec
from accelerated_seg.training_data import checked_data

root = Path(sys.argv[1]).absolute()
PATCH = [16, 16, 16]


def write(path, unit, numbers, zooms, label=False):
    voxels = np.zeros((8, 8, 8), np.uint8) if label else (np.random.default_rng(0).random((8, 8, 8)) + 1).astype(
        np.float32)
    if label:
        voxels[2:6, 2:6, 2:6] = 1
    image = nib.Nifti1Image(voxels, np.diag([z * numbers for z in zooms] + [1.0]))
    if unit != "none":
        image.header.set_xyzt_units(unit)
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(image, path)


def dataset(name, cases, spacing):
    folder = root / name
    entries = []
    for i, case in enumerate(cases):
        for kind in ("images", "labels"):
            write(folder / f"{kind}Tr" / f"c{i}.nii.gz", *case, label=kind == "labels")
        entries.append({"image": f"./imagesTr/c{i}.nii.gz", "label": f"./labelsTr/c{i}.nii.gz"})
    (folder / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"}, "modality": {"0": "CT"},
                                                     "training": entries, "validation": []}))
    config = folder / "c.yaml"
    config.write_text(f"data:\n  dataset: {folder / 'dataset.json'}\n  spacing: {json.dumps(spacing)}\n"
                      f"  cache_dir: {root / 'cache'}\n  num_workers: 0\n  patch_size: {PATCH}\n"
                      f"model:\n  args: {{channels: [4, 8], strides: [2], num_res_units: 0}}\n"
                      f"train:\n  output_dir: {folder / 'run'}\n")
    return folder, config


def train(config):
    try:
        checked_data(load_config(config, []), Accelerator(cpu=True), None)
        return None
    except (DataError, ConfigError) as error:
        return str(error)


def predict(image, spacing):
    spec = model_spec("unet", 1, 2, PATCH, {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    torch.manual_seed(0)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    folder = root / f"model_{'_'.join(map(str, spacing))}"
    write_export(tensors, spec.to_dict(), {"labels": {"0": "background", "1": "a"}, "channels": {"0": "CT"},
                                           "in_channels": 1, "num_classes": 2, "patch_size": PATCH,
                                           "spacing": list(spacing), "spacing_unit": "mm"}, folder)
    config = json.loads((folder / "config.json").read_text())
    config["spacing_set"] = True
    (folder / "config.json").write_text(json.dumps(config))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            predict_file(folder, [image], root / "out.nii.gz")
        return None
    except DataError as error:
        return str(error)


def short(said):
    return "PASSES" if said is None else said.replace(str(root), "<root>")[:600]


LINE = re.compile(r"\(nibabel(?:, from \w+)?: (img = .*?, path\))\)")  # the first nibabel line, as the tests find it


def verdict(said):
    """The refusal's kind, from its whole text."""
    if said is None:
        return "PASSES"
    kinds = (("tells which is the case's", "TOLD predict's reading"), ("given in metres", "'given in metres?'"),
             ("most headers it is taken from are probably in metres", "'most headers in metres'"),
             ("most headers it is taken from are probably in micrometres", "'most headers in micrometres'"),
             ("probably in metres, not mm. Rewrite its geometry", "far finer: 'rewrite from metres'"),
             ("xyzt_units", "units: general lines"))
    return next((kind for words, kind in kinds if words in said), "other")


PROBES = {
    # name: (cases, data.spacing, index of the probed case, the true spacing for predict's model)
    "microCT_0.02_one_in_um_as_mm_set": ([("mm", 1, [0.02] * 3)] * 4 + [("mm", 1000, [0.02] * 3)], [0.02] * 3, 4),
    "microCT_0.02_one_in_um_as_mm_median": ([("mm", 1, [0.02] * 3)] * 4 + [("mm", 1000, [0.02] * 3)], None, 4),
    "microCT_0.05_one_in_um_as_mm_set": ([("mm", 1, [0.05] * 3)] * 4 + [("mm", 1000, [0.05] * 3)], [0.05] * 3, 4),
    "microCT_0.02_one_no_unit_um_set": ([("mm", 1, [0.02] * 3)] * 4 + [("none", 1000, [0.02] * 3)], [0.02] * 3, 4),
    "microCT_0.02_one_declares_um_on_mm_set": ([("mm", 1, [0.02] * 3)] * 4 + [("micron", 1, [0.02] * 3)],
                                               [0.02] * 3, 4),
    "rt_5mm_one_in_metres_as_mm_set": ([("mm", 1, [5.0] * 3)] * 4 + [("mm", 0.001, [5.0] * 3)], [5.0] * 3, 4),
    "rt_10mm_one_in_um_as_mm_set": ([("mm", 1, [10.0] * 3)] * 4 + [("mm", 1000, [10.0] * 3)], [10.0] * 3, 4),
    "aniso_0.7x0.7x5_one_in_um_as_mm_set": ([("mm", 1, [0.7, 0.7, 5])] * 4 + [("mm", 1000, [0.7, 0.7, 5])],
                                            [0.7, 0.7, 5], 4),
    "mixed_res_0.5_to_5_correct_median": ([("mm", 1, [z] * 3) for z in (0.5, 0.8, 1, 2, 5)], None, 4),
    "two_cases_um_as_mm_set": ([("mm", 1, [2.0] * 3), ("mm", 1000, [2.0] * 3)], [2.0] * 3, 1),
    "half_mm_half_um_declared_on_mm": ([("mm", 1, [2.0] * 3)] * 2 + [("micron", 1, [2.0] * 3)] * 2, [2.0] * 3, 3),
    "microCT_0.02_one_declares_metres_on_mm_set": ([("mm", 1, [0.02] * 3)] * 4 + [("meter", 1, [0.02] * 3)],
                                                   [0.02] * 3, 4),
    "microCT_0.005_one_in_um_as_mm_set": ([("mm", 1, [0.005] * 3)] * 4 + [("mm", 1000, [0.005] * 3)], [0.005] * 3, 4),
    "mostly_metres_as_mm_median": ([("mm", 1, [2.0] * 3)] * 2 + [("mm", 0.001, [2.0] * 3)] * 3, None, 0),
    "mostly_metres_as_mm_set_0.002": ([("mm", 1, [2.0] * 3)] * 2 + [("mm", 0.001, [2.0] * 3)] * 3, [0.002] * 3, 0),
    "all_mm_set_given_in_metres": ([("mm", 1, [2.0] * 3)] * 3, [0.002] * 3, 0),
    "rt_5mm_mostly_metres_as_mm_median": ([("mm", 1, [5.0] * 3)] * 2 + [("mm", 0.001, [5.0] * 3)] * 3, None, 0),
    "mostly_um_as_mm_median": ([("mm", 1, [2.0] * 3)] * 2 + [("mm", 1000, [2.0] * 3)] * 3, None, 0),
    "mostly_um_as_mm_no_unit_median": ([("none", 1, [2.0] * 3)] * 2 + [("none", 1000, [2.0] * 3)] * 3, None, 0),
}
only = sys.argv[2:] or PROBES
for name in only:
    cases, spacing, probed = PROBES[name]
    folder, config = dataset(name, cases, spacing)
    said = train(config)
    print(f"== {name} (data.spacing {spacing})\nverdict: {verdict(said)}\ntrain: {short(said)}")
    true = cases[0][2] if probed != 0 else cases[1][2]
    print(f"predict (model in mm at {true}): {short(predict(folder / 'imagesTr' / f'c{probed}.nii.gz', true))}")
    if said:
        line = LINE.search(said)
        if line:  # run on the probed case, or, where most headers are told, on every case off mm (numbers != 1)
            run = [i for i, case in enumerate(cases) if case[1] != 1] if "most headers" in verdict(said) else [probed]
            for i in run:
                for kind in ("images", "labels"):
                    exec(line.group(1), {"nib": nib, "np": np, "path": str(folder / f"{kind}Tr" / f"c{i}.nii.gz")})
            again = train(config)
            print(f"line run on {', '.join(f'c{i}' for i in run)}'s images and labels: {line.group(1)[:160]}\n"
                  f"train again: {verdict(again)}: {short(again)}")
    print(flush=True)
