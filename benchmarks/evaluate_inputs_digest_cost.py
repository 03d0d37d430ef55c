"""The cost of summary.json's ``inputs_sha256`` (``evaluate_output.input_digests``: SHA-256 of the files scored,
by which evaluate tells the same evaluation from folders moved since; ninety-ninth session) beside the
evaluation itself: ``evaluate_folders`` of --cases pairs of two-class balls, --size^3 uint8 voxels, saved
gzipped (.nii.gz, as predict writes them) and uncompressed (.nii, the most bytes to read per voxel). Median of
--repeats, one process; the digests read the files from the page cache, as they did after scoring until the
hundredth session (since, scoring's own read hashes them: evaluate_single_read.py). Writes
benchmarks/results/evaluate_inputs_digest_cost_<cores>cpu.json; docs/inference.md quotes it."""
import argparse
import json
import os
import statistics
import tempfile
import timeit
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.benchmark import provenance, script_command
from accelerated_seg.evaluate import evaluate_folders, match_cases
from accelerated_seg.evaluate_output import input_digests
from accelerated_seg.files import write_text_atomically


def write_cases(root: Path, cases: int, size: int, ending: str) -> None:
    """Labels of two classes (a ball and a smaller one inside it) and predictions one ball shifted by 2 voxels
    (evaluate_single_read.py writes its cases with it too)."""
    grid = np.stack(np.meshgrid(*[np.arange(size)] * 3, indexing="ij"), -1)
    for case in range(cases):
        centre = np.array([size / 2] * 3) + case
        label = ((np.linalg.norm(grid - centre, axis=-1) < size / 4).astype(np.uint8)
                 + (np.linalg.norm(grid - centre - [0, 0, size / 8], axis=-1) < size / 16))
        pred = (np.linalg.norm(grid - centre - [2, 0, 0], axis=-1) < size / 4).astype(np.uint8)
        for folder, array in (("labels", label), ("pred", pred)):
            (root / folder).mkdir(parents=True, exist_ok=True)
            nib.save(nib.Nifti1Image(array.astype(np.uint8), np.eye(4)), root / folder / f"case{case}{ending}")


def _measured(root: Path, repeats: int) -> dict:
    pairs, _ = match_cases(root / "pred", root / "labels")
    evaluation = [round(run, 4) for run in timeit.repeat(
        lambda: evaluate_folders(root / "pred", root / "labels", num_classes=3, overwrite=True), number=1,
        repeat=repeats)]
    digests = [round(run, 5) for run in timeit.repeat(lambda: input_digests(pairs, None), number=1, repeat=repeats)]
    return {"file_megabytes": round(sum(path.stat().st_size for _, pred, label in pairs for path in (pred, label))
                                    / 2**20, 2),
            "evaluate_folders_s": statistics.median(evaluation), "evaluate_folders_runs_s": evaluation,
            "input_digests_s": statistics.median(digests), "input_digests_runs_s": digests,
            "share_of_the_evaluation": round(statistics.median(digests) / statistics.median(evaluation), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=5)
    parser.add_argument("--size", type=int, default=192)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*always_return_as_numpy.*", category=FutureWarning)
    result = {**provenance(script_command()), "cases": args.cases, "size": args.size}
    for ending in (".nii.gz", ".nii"):
        with tempfile.TemporaryDirectory() as folder:
            write_cases(Path(folder), args.cases, args.size, ending)
            result[ending] = _measured(Path(folder), args.repeats)
    out = Path(__file__).parent / "results" / f"evaluate_inputs_digest_cost_{os.cpu_count()}cpu.json"
    write_text_atomically(out, json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
