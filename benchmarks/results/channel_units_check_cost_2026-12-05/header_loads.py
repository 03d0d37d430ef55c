"""How many headers the target spacing with its unit loads (``settings_and_unit``), counted, on probe.py's 200
two-channel cases: a figure the shared machine's noise leaves alone. Prints one JSON line per data.spacing unset
(the median) and set.

    PYTHONPATH=<code> python benchmarks/results/channel_units_check_cost_2026-12-05/header_loads.py <name>
"""
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import nibabel as nib

from accelerated_seg.config import DataConfig
from accelerated_seg.data.manifest import load_manifest
from accelerated_seg.data.prepare import settings_and_unit
from probe import write_dataset

with tempfile.TemporaryDirectory() as work:
    root = Path(work)
    (root / "imagesTr").mkdir()
    (root / "labelsTr").mkdir()
    dataset = write_dataset(root)
    manifest = load_manifest(DataConfig(dataset=str(dataset)), work)
    load = nib.load
    for spacing in (None, (2.0, 2.0, 2.0)):
        loaded = Counter()
        nib.load = lambda path, *args, **kwargs: loaded.update([str(path)]) or load(path, *args, **kwargs)
        settings_and_unit(DataConfig(dataset=str(dataset), spacing=spacing), manifest)
        nib.load = load
        print(json.dumps({"code": sys.argv[1], "spacing": spacing, "training_cases": len(manifest.training),
                          "loads": sum(loaded.values()), "files_loaded": len(loaded),
                          "channel_0001_files": sum("_0001" in path for path in loaded),
                          "loaded_twice": sum(count > 1 for count in loaded.values())}))
