"""Review r106: how long load_cases takes to read a large cases CSV and dataset.json (hand_edited's reader reads the
whole file, tests it for UTF-8 and, for a JSON, refuses keys given twice), and what a big binary file under the
name costs.

    cd /tmp/wt_r106 && D=benchmarks/results/review_hand_edited_datasets_2026-12-07 && \
        PYTHONPATH=/tmp/wt_r106 /work/main/.venv/bin/python $D/huge.py > $D/huge.txt 2>&1
"""
import json
import os
import tempfile
import time
from pathlib import Path

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_cases

tmp = Path(tempfile.mkdtemp())
n = 50_000
table = tmp / "cases.csv"
table.write_text("image,label\n" + "".join(f"images/case_{i:06d}.nii.gz,labels/case_{i:06d}.nii.gz\n"
                                           for i in range(n)))
start = time.perf_counter()
cases = load_cases(table)
print(f"CSV of {n} rows ({table.stat().st_size / 1e6:.1f} MB): {len(cases.training)} training, "
      f"{time.perf_counter() - start:.2f} s")
dataset = tmp / "dataset.json"
dataset.write_text(json.dumps({"labels": {"0": "background", "1": "x"}, "modality": {"0": "CT"}, "training": [
    {"image": f"imagesTr/case_{i:06d}.nii.gz", "label": f"labelsTr/case_{i:06d}.nii.gz"} for i in range(n)]},
    indent=1))
start = time.perf_counter()
cases = load_cases(dataset)
print(f"dataset.json of {n} entries ({dataset.stat().st_size / 1e6:.1f} MB): {len(cases.training)} training, "
      f"{time.perf_counter() - start:.2f} s")
dataset.write_bytes(os.urandom(200_000_000))  # a 200 MB binary file saved under the name (a copy gone wrong)
start = time.perf_counter()
try:
    load_cases(dataset)
except DataError as error:
    print(f"200 MB of random bytes as dataset.json: {time.perf_counter() - start:.2f} s: {str(error)[-120:]}")
