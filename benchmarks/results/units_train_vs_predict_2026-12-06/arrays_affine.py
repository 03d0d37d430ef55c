"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python arrays_affine.py <empty folder>
The hundred-and-sixteenth session (helper h84): ``Segmentation.predict(array, affine=...)`` where the affine's voxel
size looks like another unit than the model's. Arrays of 2 mm voxels (20^3) whose affine holds the model's unit
(as it should), micrometres (x1000 of mm) or metres (x0.001 of mm), for models in mm (2.5), micrometres (2500) and
metres (0.0025), each its spacing set. Each line: PASSES, or the refusal's first line's form (AFFINE: an affine= to
give; IMAGE: a nibabel image to build; NONE), then that line RUN (the affine= given, or the image built and given)
and predict again: RIGHT where it segments with the array at 2 mm in the model's unit, else what it says."""
import json, re, sys, warnings
from pathlib import Path
import numpy as np, nibabel as nib, torch

from accelerated_seg.data.errors import DataError
from accelerated_seg.estimator import Segmentation
from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec

PATCH = [16, 16, 16]
PER_MM = {"mm": 1.0, "micron": 1000.0, "meter": 0.001}
root = Path(sys.argv[1]).absolute()


def model(unit):
    spec = model_spec("unet", 1, 2, PATCH, {"channels": [4, 8], "strides": [2], "num_res_units": 0})
    torch.manual_seed(0)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    folder = root / unit
    write_export(tensors, spec.to_dict(), {"labels": {"0": "background", "1": "a"}, "in_channels": 1,
                                           "channels": {"0": "C0"}, "num_classes": 2, "patch_size": PATCH,
                                           "spacing": [2.5 * PER_MM[unit]] * 3, "spacing_unit": unit}, folder)
    config = json.loads((folder / "config.json").read_text())
    config["spacing_set"] = True
    (folder / "config.json").write_text(json.dumps(config))
    return Segmentation.load(folder)


def predict(segmentation, array, affine):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            segmentation.predict(array, affine=affine)
        return None
    except DataError as error:
        return str(error)


array = (np.random.default_rng(0).random((20, 20, 20)) + 1).astype(np.float32)
for unit in PER_MM:
    segmentation = model(unit)
    for numbers in PER_MM:
        affine = np.diag([2.0 * PER_MM[numbers]] * 3 + [1.0])
        said = predict(segmentation, array, affine)
        line = f"model {unit:6} array's affine in {numbers:6}: "
        if said is None:
            print(line + ("PASSES" if numbers == unit else "PASSES, SILENT OFF"))
            continue
        first = said.split("; or,")[0]
        given = re.search(r"the array given to predict again with affine=(np\.diag\(\[[^\]]*\]\) @ affine)", first)
        built = re.search(r"img = nib\.Nifti1Image\(each array named, affine\)", first)
        if given:
            new = eval(given.group(1), {"np": np, "affine": affine})
            again = predict(segmentation, array, new)
            right = np.allclose(nib.affines.voxel_sizes(new), [2.0 * PER_MM[unit]] * 3)
            print(line + "AFFINE " + (("RIGHT" if right else "OFF") if again is None else f"REFUSED: {again[:160]}"))
        else:
            print(line + ("IMAGE" if built else "NONE") + f": {first[:300]}")
