"""Segmentation.evaluate given an output_dir whose path leaves room for summary.json's temporary (what its check
counted) but not for predictions/<case>.nii.gz's, which it writes below it: what is said, and when (before or after
a case is predicted). Command:
cd /tmp/wt_h124 && PYTHONPATH=/tmp/wt_h124:/tmp/wt_h124/tests /work/main/.venv/bin/python \
    benchmarks/results/printed_paths_2026-12-07/no_room_for_predictions.py > benchmarks/results/printed_paths_2026-12-07/<out>.txt 2>&1
(no_room_before.txt with PYTHONPATH=/tmp/h124_main:/tmp/h124_main/tests, a `git archive` of main ce2bcde4's
accelerated_seg/ and tests/; no_room_after.txt as above, with the fix)
"""
import os
import tempfile
import traceback
from pathlib import Path

import accelerated_seg.estimator as estimator
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.estimator import Dataset, Segmentation
from test_inference import export

with tempfile.TemporaryDirectory() as folder:
    root = Path(folder)
    dataset = write_synthetic_dataset(root / "data", num_cases=4, num_validation=1, seed=0, size_mm=(40.0, 40.0, 32.0),
                                      spacing_mm=2.0)
    manifest = load_msd(dataset)
    pairs = [(str(case.images[0]), str(case.label)) for case in (*manifest.training, manifest.validation[0])]
    data = Dataset.from_files(pairs[:-1], block_shape=16, n_classes=3, validation_pairs=pairs[-1:], num_workers=0,
                              cache_dir=str(root / "cache"))
    model = Segmentation.load(export(root / "model"))
    case = data.manifest.validation[0].id
    predicted = estimator._predicted

    def said_predicting(*args, **kwargs):
        for case_id, raw in predicted(*args, **kwargs):
            print(f"    (a case predicted: {case_id})")
            yield case_id, raw

    estimator._predicted = said_predicting
    for room in (60, 10):  # bytes past 4095 with predictions/<case>'s temporary; the check counted 51 for its own
        needed = len(f"/predictions/.{case}.nii.gz.{'0' * 32}.tmp.nii.gz")
        output_dir = str(root / "out")
        while len(output_dir) < 4096 - needed + room:
            output_dir += "/" + "d" * min(200, 4096 - needed + room - len(output_dir) - 1)
        print(f"[output_dir of {len(output_dir)} bytes: + summary.json's temporary {len(output_dir) + 51}, "
              f"+ predictions/{case}.nii.gz's temporary {len(output_dir) + needed}]")
        try:
            model.evaluate(data, output_dir=output_dir)
            print("    evaluated")
        except Exception as error:
            print(f"    {type(error).__name__}: {str(error).replace(folder, 'TMP').replace('d' * 200, 'd{200}')}")
            print("    raised at:", traceback.extract_tb(error.__traceback__)[-1].name)
        print("    made below out/:", os.path.exists(root / "out"))
