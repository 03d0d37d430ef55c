"""Run as: rm -rf /tmp/r108_old && mkdir /tmp/r108_old && git archive 87c33d4b accelerated_seg | tar -x -C /tmp/r108_old
  && W=$(mktemp -d) && (PYTHONPATH=/tmp/r108_old python records_probe.py $W old; ... $W old2;
  PYTHONPATH=<worktree> python records_probe.py $W new; ... $W new2) > records.txt
The checks' records (check_records.CHECKING_CODE) written by the code before h125 (87c33d4b), then read by the code
after it: is the old record file read again (every case re-read once), refused, or taken?"""
import json
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

import accelerated_seg
from accelerated_seg.data import check_records
from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.manifest import load_cases

root, which = Path(sys.argv[1]), sys.argv[2]
folder = root / "data"
if which == "old":
    folder.mkdir(exist_ok=True)
    for index in range(3):
        for channel in range(2):
            nib.save(nib.Nifti1Image(np.random.default_rng(index).uniform(1, 9, (8, 8, 8)).astype(np.float32),
                                     np.eye(4)), folder / f"c{index}_{channel:04d}.nii.gz")
        label = np.zeros((8, 8, 8), np.uint8)
        label[2:6, 2:6, 2:6] = 1
        nib.save(nib.Nifti1Image(label, np.eye(4)), folder / f"c{index}.nii.gz")
    (folder / "dataset.json").write_text(json.dumps({
        "name": "r", "modality": {"0": "T1", "1": "FLAIR"}, "labels": {"0": "background", "1": "lesion"},
        "training": [{"image": [f"c{i}_0000.nii.gz", f"c{i}_0001.nii.gz"], "label": f"c{i}.nii.gz"}
                     for i in range(3)]}))
read = []
original = check_records.CheckRecords.load
check_records.CheckRecords.load = lambda self, settings: read.append(found := original(self, settings)) or found
manifest = load_cases(folder / "dataset.json", validation_fraction=0.0)
report = check_manifest(manifest, records_folder=root / "checks")
report.keep_records() if hasattr(report, "keep_records") else None
print(f"{which} code ({Path(accelerated_seg.__file__).parent.parent}): errors {report.errors}; cases recalled from "
      f"records: {len(read[0]) if read else 'none loaded'}; record files now: "
      f"{sorted(path.name for path in (root / 'checks').glob('*.json'))}")
