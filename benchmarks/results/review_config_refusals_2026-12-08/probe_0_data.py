# python probe_0_data.py > probe_0_data.txt 2>&1   (after `source env.sh`)
# Six phantom cases written small, listed in a CSV, and the experiment file that trains on them (as the walk's).
import csv, json, os
from pathlib import Path
from accelerated_seg.data.synthetic import write_synthetic_dataset

root = Path(os.environ["T"]) / "mydata"
write_synthetic_dataset(root / "scans", num_cases=6, num_validation=0, seed=1, size_mm=(48.0, 48.0, 36.0),
                        spacing_mm=3.0)
manifest = json.loads((root / "scans" / "dataset.json").read_text())
with open(root / "cases.csv", "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["image", "label"])
    for entry in manifest["training"]:
        writer.writerow([str(root / "scans" / entry["image"]), str(root / "scans" / entry["label"])])
(Path(os.environ["T"]) / "exp.yaml").write_text(f"""data:
  dataset: {root / 'cases.csv'}
  labels: {{0: background, 1: ventricles, 2: lesion}}
  patch_size: [16, 16, 16]
  spacing: [3.0, 3.0, 3.0]
  validation_fraction: 0.34
  num_workers: 0
model:
  name: unet
  args: {{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}}
train:
  output_dir: {os.environ['T']}/runs/exp
  max_steps: 1
  batch_size: 1
  val_every: 0
  save_every: 0
  trackers: none
  progress_bar: false
""")
print("written", root, manifest["labels"])
