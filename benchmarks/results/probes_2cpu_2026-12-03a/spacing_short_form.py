"""How many scans would predict resample to another length if an export wrote its median spacing's
shortest decimal (1.2) in place of the float32 header's (1.2000000476837158)? docs/checkpoints.md,
"Why the spacing reads 1.2000000476837158". Run: PYTHONPATH=. python <this file> > spacing_short_form.json

Counted with resampled_ras_shape's rule (MONAI's compute_shape_offset: distance between the first and
last voxel centres in target voxels, rounded half to even, plus one); a few are read through the
preprocessing itself (Spacingd), which agrees."""
import json
import tempfile
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.preprocess import PreprocessSettings, preprocess

sizes = sorted({round(float(x), 2) for x in np.arange(0.3, 5.01, 0.05)}
               | {0.35, 0.4, 0.488, 0.625, 0.7, 0.8, 0.9, 0.976, 1.2, 1.25, 2.4, 3.6})
lengths = np.arange(2, 601)
moved = triples = 0
examples = {}
for target in sizes:
    header, short = float(np.float32(target)), target  # what a median of such headers is, and its decimal
    if header == short:
        continue
    for size in sizes:
        zoom = float(np.float32(size))
        at_header = np.round((lengths - 1) * zoom / header + 1)
        at_short = np.round((lengths - 1) * zoom / short + 1)
        triples += lengths.size
        moved += int(np.count_nonzero(at_header != at_short))
        if target == 1.2 and size in (0.3, 0.6):
            examples[f"{size} mm to 1.2 mm"] = [int(n) for n in lengths[at_header != at_short][:5]]

warnings.simplefilter("ignore")
root = Path(tempfile.mkdtemp())
through_spacingd = {}
for size, length in ((0.6, 8), (0.6, 512), (0.3, 7)):
    path = root / f"{size}_{length}.nii.gz"
    nib.save(nib.Nifti1Image(np.ones((3, 3, length), np.float32), np.diag([1.2, 1.2, size, 1.0])), path)
    through_spacingd[f"{length} slices of {size} mm"] = {
        str(target): int(preprocess(["image"], PreprocessSettings(spacing=(1.2, 1.2, target), crop_foreground=False))(
            {"image": str(path)})["image"].shape[3]) for target in (float(np.float32(1.2)), 1.2)}
print(json.dumps({"triples": triples, "moved_by_a_voxel": moved, "share": round(moved / triples, 4),
                  "first_lengths_moved": examples, "slices_after_spacingd": through_spacingd}, indent=1))
