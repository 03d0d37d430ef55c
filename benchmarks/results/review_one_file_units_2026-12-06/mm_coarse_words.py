"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python mm_coarse_words.py <empty folder>
mm_coarse.py's cases judged by predict's unit check alone (inference_reading.channel_units_refusal, what predict and
evaluate say before the far finer and memory checks; mm_coarse.py's full predict of a passing case took minutes):
None where the files are taken as they are, else the words' first 200 characters. Cases declaring mm far finer
(0.002, micro-CT) against a spacing set must stay None (taken at their word). main: mm_coarse_words_main.txt; r70:
mm_coarse_words_r70.txt."""
import sys
from pathlib import Path
import numpy as np, nibabel as nib
from accelerated_seg.inference_reading import channel_units_refusal
root = Path(sys.argv[1]); root.mkdir(exist_ok=True)
n = 0
for spacing_set in (True, False):
    config = {"spacing": [1.5] * 3, "spacing_unit": "mm", "spacing_set": spacing_set, "in_channels": 2}
    for channels in (1, 2):
        for numbers, shape in ((2000.0, (8, 8, 8)), (300.0, (4, 4, 4)), (0.002, (8, 8, 8)), (2.0, (8, 8, 8))):
            n += 1
            paths = []
            for i in range(channels):
                image = nib.Nifti1Image(np.ones(shape, np.float32), np.diag([numbers] * 3 + [1.0]))
                image.header.set_xyzt_units("mm")
                nib.save(image, root / f"c{n}_{i:04d}.nii.gz")
                paths.append(root / f"c{n}_{i:04d}.nii.gz")
            said = channel_units_refusal(config, paths, [1.5] * 3)
            print(f"spacing_set {spacing_set}, {channels} file(s) declaring mm on {numbers:g}:",
                  None if said is None else said.replace(str(root), "<root>")[:200])
