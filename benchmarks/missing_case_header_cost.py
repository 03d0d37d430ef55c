"""The cost of evaluate's advice for a label without a prediction: to say it in the words of the tool that wrote
the prediction folder, ``evaluate_cases._missing_predictions_advice`` reads the header of every prediction there
(``marked_by_predict``: predict's mark in ``descrip``) unless one carries it. Here 200 predictions of another tool
(none marked, so every header is read) against 201 labels, at two map sizes, in one process, page cache warm:
the whole refusal (``match_cases`` to its DataError) and the header reads alone, median of 15 each, and the
refusal with the reads left out (``marked_by_predict`` answering False unread) for the difference, and that of an
nnU-Net v1 folder (a plans.pkl beside the maps), told by name before any header is read. A header is
read from the gzip stream's first block, so the size of the map should not matter; its bytes alone since the
ninety-seventh session (nib.load before: ``BEFORE``, kept in the JSON beside the figures). docs/inference.md
quotes the figures. Writes benchmarks/results/missing_case_header_cost_2cpu.json."""
import argparse
import json
import os
import statistics
import tempfile
import timeit
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.benchmark import provenance, script_command
from accelerated_seg.data.errors import DataError
from accelerated_seg.files import write_text_atomically

import accelerated_seg.predict_marks as predict_marks
from accelerated_seg.evaluate_cases import match_cases

CASES = 200
REPEATS = 15
# This script's figures with marked_by_predict reading each file through nib.load (nibabel's sniffing of every
# image class), before the ninety-seventh session read its header's bytes alone: commit 1a8f26c9, load average 8.2
BEFORE = {"what": "marked_by_predict through nib.load, until the ninety-seventh session (commit 1a8f26c9, same "
                  "machine, load average 8.2)",
          "32^3": {"refusal_median_s": 0.3995, "header_reads_median_s": 0.357, "per_header_ms": 1.785},
          "128^3": {"refusal_median_s": 0.3808, "header_reads_median_s": 0.4585, "per_header_ms": 2.293}}


def _median_seconds(work) -> tuple[float, list[float]]:
    runs = timeit.repeat(work, number=1, repeat=REPEATS)
    return round(statistics.median(runs), 4), [round(run, 4) for run in runs]


def _folders(root: Path, size: int) -> tuple[Path, Path]:
    """CASES predictions (a cube of class 1 in each, another tool's: no mark in the header) and CASES + 1 labels."""
    pred_dir, label_dir = root / "predictions", root / "labels"
    pred_dir.mkdir()
    label_dir.mkdir()
    array = np.zeros((size,) * 3, np.uint8)
    array[size // 4:size // 2, size // 4:size // 2, size // 4:size // 2] = 1
    image = nib.Nifti1Image(array, np.eye(4))
    for k in range(CASES + 1):
        nib.save(image, label_dir / f"case_{k:03d}.nii.gz")
        if k < CASES:
            nib.save(image, pred_dir / f"case_{k:03d}.nii.gz")
    return pred_dir, label_dir


def _refused(pred_dir: Path, label_dir: Path) -> None:
    try:
        match_cases(pred_dir, label_dir)
    except DataError:
        return
    raise AssertionError("a label without a prediction was not refused")


def main() -> None:
    results, load_before = {}, os.getloadavg()
    for size in (32, 128):
        with tempfile.TemporaryDirectory() as work:
            pred_dir, label_dir = _folders(Path(work), size)
            predictions = sorted(pred_dir.iterdir())
            marked = predict_marks.marked_by_predict
            reads, read_runs = _median_seconds(lambda: [marked(path) for path in predictions])
            refusal, refusal_runs = _median_seconds(lambda: _refused(pred_dir, label_dir))
            predict_marks.marked_by_predict = lambda path: False  # the refusal with no header read
            try:
                unread, unread_runs = _median_seconds(lambda: _refused(pred_dir, label_dir))
            finally:
                predict_marks.marked_by_predict = marked
            (pred_dir / "plans.pkl").write_bytes(b"")  # nnU-Net v1's folder: told by name, no header read
            v1, v1_runs = _median_seconds(lambda: _refused(pred_dir, label_dir))
            results[f"{size}^3"] = {
                "file_kb": round(statistics.median(path.stat().st_size for path in predictions) / 1024, 1),
                "refusal_median_s": refusal, "refusal_without_header_reads_median_s": unread,
                "refusal_nnunet_v1_folder_median_s": v1, "header_reads_median_s": reads,
                "per_header_ms": round(reads / CASES * 1000, 3),
                "refusal_runs_s": refusal_runs, "unread_runs_s": unread_runs, "nnunet_v1_runs_s": v1_runs,
                "header_read_runs_s": read_runs}
            print(size, {key: value for key, value in results[f"{size}^3"].items() if not key.endswith("runs_s")})
    out = {"what": f"match_cases refusing {CASES + 1} labels against {CASES} predictions of another tool (no "
                   f"predict mark, so the advice reads every header), uint8 .nii.gz maps, median of {REPEATS}, "
                   f"page cache warm",
           **provenance(script_command()), "cases": CASES,
           "load_average": {"before": [round(x, 2) for x in load_before],
                            "after": [round(x, 2) for x in os.getloadavg()]}, "seconds": results, "before": BEFORE}
    write_text_atomically("benchmarks/results/missing_case_header_cost_2cpu.json", json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help, and no run on an unknown argument
    main()
