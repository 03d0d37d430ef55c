"""Probe: the Python refusals docs/data.md quotes (Pairs, The Python builder), said by the code as quoted?

Run: cd <repo> && PYTHONPATH=. python benchmarks/results/review_data_md_2026-12-06/python_lines.py \
       > benchmarks/results/review_data_md_2026-12-06/python_lines.txt 2>&1
"""
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.manifest import load_cases
from accelerated_seg.estimator import Dataset

tmp = Path(tempfile.mkdtemp())
for name in ("a", "a_seg", "b", "b_seg", "t1", "t2"):
    nib.save(nib.Nifti1Image(np.zeros((8, 8, 8), np.float32), np.eye(4)), tmp / f"{name}.nii.gz")
a, a_seg, b = str(tmp / "a.nii.gz"), str(tmp / "a_seg.nii.gz"), str(tmp / "b.nii.gz")


def said(title, call):
    try:
        call()
        print(f"### {title}\nno error\n")
    except Exception as error:  # noqa: BLE001 - the probe prints whatever is raised
        print(f"### {title}\n{type(error).__name__}: {error}\n")


said("an entry that is no pair", lambda: Dataset.from_files([(a, a_seg), "b.nii.gz"]))
said("split_seed=-1", lambda: Dataset.from_files([(a, a_seg)], split_seed=-1))
said("spacing=(0, 1, 1)", lambda: Dataset.from_files([(a, a_seg)], spacing=(0, 1, 1)))
said("load_cases of pairs, channels differing", lambda: load_cases([(a, a_seg), ([a, b], str(tmp / "b_seg.nii.gz"))]))
said("n_classes=256 with an ignore_value", lambda: Dataset.from_files([(a, a_seg)], n_classes=256, ignore_value=256))
said("ignore_value among the classes", lambda: Dataset.from_files([(a, a_seg)], n_classes=3, ignore_value=1))
said("a set of pairs", lambda: Dataset.from_files({(a, a_seg)}))
said("a dict of pairs", lambda: Dataset.from_files({a: a_seg}))
said("[[a, a_seg], b]", lambda: Dataset.from_files([[a, a_seg], b]))
said("loader() in a script without the __main__ guard (data.md: refused before preprocessing, naming the line)",
     lambda: Dataset.from_files([(a, a_seg)], validation_pairs=[]).loader())
