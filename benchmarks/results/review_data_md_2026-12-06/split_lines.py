"""Probe: the split words docs/data.md quotes ("Settings' names", Splits), said by load_cases as quoted?

Run: cd <repo> && PYTHONPATH=. python benchmarks/results/review_data_md_2026-12-06/split_lines.py \
       > benchmarks/results/review_data_md_2026-12-06/split_lines.txt 2>&1
"""
import json
import tempfile
from pathlib import Path

from accelerated_seg.data.manifest import load_cases
from accelerated_seg.data.splits import unused_split_settings_warning
from accelerated_seg.model_folders import Names

tmp = Path(tempfile.mkdtemp())
entries = [{"image": f"./imagesTr/c{n}.nii.gz", "label": f"./labelsTr/c{n}.nii.gz", "fold": n % 3} for n in range(9)]
listed = [{"image": f"./imagesTr/v{n}.nii.gz", "label": f"./labelsTr/v{n}.nii.gz"} for n in range(2)]
(tmp / "dataset.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"}, "modality": {"0": "MR"},
                                              "training": entries, "validation": listed}))
plain = [{k: v for k, v in entry.items() if k != "fold"} for entry in entries]
(tmp / "plain.json").write_text(json.dumps({"labels": {"0": "background", "1": "a"}, "modality": {"0": "MR"},
                                            "training": plain, "validation": listed}))


def said(title, call):
    try:
        manifest = call()
        print(f"### {title}\nsplit: {manifest.split}\nwarning: {unused_split_settings_warning(manifest)}\n")
    except Exception as error:  # noqa: BLE001 - the probe prints whatever is raised
        print(f"### {title}\n{type(error).__name__}: {error}\n")


said("plain.json, seed=7", lambda: load_cases(tmp / "plain.json", seed=7))
said("keys and list, num_folds unset", lambda: load_cases(tmp / "dataset.json"))
said("keys and list, num_folds unset, names=Names()", lambda: load_cases(tmp / "dataset.json", names=Names()))
said("keys and list, num_folds=3, fold=1", lambda: load_cases(tmp / "dataset.json", num_folds=3, fold=1))
said("keys and list, fold=1 alone", lambda: load_cases(tmp / "dataset.json", fold=1))
said("keys and list, fold=1 alone, names=Names()", lambda: load_cases(tmp / "dataset.json", fold=1, names=Names()))
said("plain.json, num_folds=20", lambda: load_cases(tmp / "plain.json", num_folds=20))
