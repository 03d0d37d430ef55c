"""Run: PYTHONPATH=/tmp/wt_r82 python units_lines.py /tmp/r82units
What predict says for the units cases docs/inference.md quotes ("What the spacing checks judge", Units bullets):
each case below is a folder of channel files predicted by a tiny export (random weights), its first line printed."""
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np
import torch

from accelerated_seg.exported_model import write_export
from accelerated_seg.models import build_from_spec, model_spec

root = Path(sys.argv[1])


def export(folder, channels, spacing=(2.5, 2.5, 2.5), unit=None):
    spec = model_spec("unet", channels, 3, [16, 16, 16], {"channels": [4, 8, 16], "strides": [2, 2],
                                                          "num_res_units": 1})
    torch.manual_seed(0)
    tensors = {k: v.float().contiguous() for k, v in build_from_spec(spec).state_dict().items()}
    meta = {"labels": {"0": "background", "1": "a", "2": "b"}, "channels": {str(c): f"MRI{c}" for c in range(channels)},
            "in_channels": channels, "num_classes": 3, "patch_size": [16, 16, 16],
            "spacing": list(spacing) if spacing else None}
    if unit:
        meta["spacing_unit"] = unit
    write_export(tensors, spec.to_dict(), meta, folder)
    return folder


def scan(path, numbers, unit):
    rng = np.random.default_rng(0)
    img = nib.Nifti1Image(rng.normal(100, 20, (20, 20, 16)).astype(np.float32), np.diag([*numbers, 1.0]))
    if unit:
        img.header.set_xyzt_units(unit)
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(img, path)


def case(name, model, files):
    folder = root / name
    for channel, (numbers, unit) in enumerate(files):
        scan(folder / "in" / f"p01_{channel:04d}.nii.gz", numbers, unit)
    run = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", "predict", "--model", str(model),
                          str(folder / "in"), "--output", str(folder / "out")], capture_output=True, text=True)
    said = (run.stdout + run.stderr).replace(str(folder) + "/", "")
    print(f"== {name} (exit {run.returncode})\n{said.strip()}\n")


mm3 = export(root / "model_mm3", 3, unit="mm")
none3 = export(root / "model_none3", 3)
null2 = export(root / "model_null2", 2, spacing=None)
mm_null2 = export(root / "model_null2_mm", 2, spacing=None, unit="mm")
two = (2.0, 2.0, 2.0)
micro = (2000.0, 2000.0, 2000.0)
case("A_mm_model_two_channels_in_micrometres", mm3, [(two, "mm"), (micro, "micron"), (micro, "micron")])
case("B_no_unit_model_two_channels_in_micrometres", none3, [(two, "mm"), (micro, "micron"), (micro, "micron")])
case("C_null_spacing_same_numbers_mm_and_micrometres", null2, [(two, "mm"), (two, "micron")])
case("D_null_spacing_mm_model_same_numbers_mm_and_micrometres", mm_null2, [(two, "mm"), (two, "micron")])
case("E_null_spacing_numbers_1000_apart", null2, [(two, "mm"), (micro, "micron")])
mm_null1 = export(root / "model_null1_mm", 1, spacing=None, unit="mm")
case("F_null_spacing_mm_model_one_file_in_micrometres", mm_null1, [(two, "micron")])
case("G_mm_model_one_file_in_micrometres_same_numbers", export(root / "model_mm1", 1, unit="mm"), [(two, "micron")])
