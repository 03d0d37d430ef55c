"""Run as: cd <worktree> && PYTHONPATH=<worktree> OMP_NUM_THREADS=1 /work/main/.venv/bin/python \
    benchmarks/results/channel_order_for_every_predict_2026-12-07/loop_warnings.py <empty folder> \
    > benchmarks/results/channel_order_for_every_predict_2026-12-07/loop_warnings.txt 2>&1
(branch h131.) A loop of 3 predict_file calls from one line, of a dataset.json naming the model's channels otherwise,
under Python's default filter and under a "once" filter for the package's warnings: how many times the warning is
said, and what changed the filters (warnings._filters_mutated, which resets the registries of both): the function 3
frames up, so build_exported_network is build_from_spec's caller, whose catch_warnings it was."""
import json
import sys
import traceback
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from test_inference import export  # noqa: E402

from accelerated_seg.inference import predict_file  # noqa: E402
from accelerated_seg.own_warnings import AcceleratedSegWarning  # noqa: E402

root = Path(sys.argv[1]).absolute()
model = export(root / "model", in_channels=2)
folder = root / "Named" / "imagesTs"
folder.mkdir(parents=True)
for index in range(2):
    nib.save(nib.Nifti1Image(np.full((16, 16, 16), 50, np.float32), np.diag([2.5, 2.5, 2.5, 1])),
             folder / f"c_{index:04d}.nii.gz")
(folder.parent / "dataset.json").write_text(json.dumps({"channel_names": {"0": "T1", "1": "FLAIR"},
                                                        "labels": {"background": 0}}))
mutated, by = warnings._filters_mutated, set()


def counted():
    by.add(traceback.extract_stack(limit=4)[0].name)
    mutated()


warnings._filters_mutated = counted
for action in ("default", "once"):
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter(action, AcceleratedSegWarning)
        for _ in range(3):
            predict_file(model, [folder / "c_0000.nii.gz", folder / "c_0001.nii.gz"], root / "o.nii.gz", device="cpu")
    print(f"{action}: {sum('channels otherwise' in str(w.message) for w in raised)} warning(s) in 3 calls")
print(f"the filters changed by: {sorted(by)}")
