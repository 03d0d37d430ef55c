# python walk_0_my_data.py > walk_0_my_data.txt 2>&1   (after `source env.sh`)
# The researcher's own data, tiny: six phantom cases written small (16 x 16 x 12 voxels of 3 mm) and listed in a CSV
# of their own (image, label), as a CSV of one's scans is written; its classes are given by data.labels.
import csv
import json
import os
from pathlib import Path

from accelerated_seg.data.synthetic import write_synthetic_dataset

root = Path(os.environ["T"]) / "mydata"
write_synthetic_dataset(root / "scans", num_cases=6, num_validation=0, seed=1, size_mm=(48.0, 48.0, 36.0),
                        spacing_mm=3.0)
manifest = json.loads((root / "scans" / "dataset.json").read_text())
print("declared labels:", manifest["labels"])
with open(root / "cases.csv", "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["image", "label"])
    for entry in manifest["training"]:
        writer.writerow([str(root / "scans" / entry["image"]), str(root / "scans" / entry["label"])])
print((root / "cases.csv").read_text())
