"""The pre-flight check of a dataset (``check_cases``, which every training launch runs, each rank a
share of the cases) in one thread against ``--workers`` threads: CT-sized gzipped volumes (int16 images with
soft tissue, bone and air, uint8 labels), alternating, median of the repeats, nothing else running.
Writes benchmarks/results/check_threads_<tag>.json with the machine and the command.

    PYTHONPATH=. python benchmarks/check_threads.py --cases 8 --workers 2 --tag 2cpu
"""
import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.benchmark import script_command, write_result
from accelerated_seg.data.cases import Case
from accelerated_seg.data.checks import check_cases


def write_cases(folder: Path, count: int, shape: tuple[int, int, int]) -> list[Case]:
    """CT-like cases: a body of soft tissue (about 40 HU) with a bone ring in air (-1000 HU), noise on
    top, so gzip compresses them about as it does real scans; labels of two organs."""
    rng = np.random.default_rng(0)
    x, y, z = np.meshgrid(*(np.linspace(-1, 1, n) for n in shape), indexing="ij")
    body = x ** 2 + y ** 2 < 0.8
    image = np.where(body, 40, -1000) + np.where((x ** 2 + y ** 2 > 0.7) & body, 700, 0)
    label = np.where(((x + 0.3) ** 2 + y ** 2) < 0.05, 2, (((x - 0.2) ** 2 + y ** 2 + z ** 2) < 0.1).astype(np.uint8))
    affine = np.diag([0.8, 0.8, 2.5, 1.0])
    cases = []
    for index in range(count):
        noisy = (image + rng.normal(0, 20, shape)).astype(np.int16)
        paths = folder / f"ct_{index:03d}.nii.gz", folder / f"ct_{index:03d}_label.nii.gz"
        nib.save(nib.Nifti1Image(noisy, affine), paths[0])
        nib.save(nib.Nifti1Image(label.astype(np.uint8), affine), paths[1])
        cases.append(Case(id=f"ct_{index:03d}", images=(paths[0],), label=paths[1]))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--shape", type=int, nargs=3, default=[512, 512, 100], metavar=("X", "Y", "Z"))
    parser.add_argument("--workers", type=int, default=2, help="the threads compared with one")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tag", default="2cpu", help="the result's file name: check_threads_<tag>.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cases = write_cases(Path(folder), args.cases, tuple(args.shape))
        gzipped = sum(path.stat().st_size for case in cases for path in (*case.images, case.label))
        check_cases(cases[:1], 3)  # imports and first-use costs out of the timing
        seconds = {1: [], args.workers: []}
        for repeat in range(args.repeats):
            for workers in ((1, args.workers) if repeat % 2 == 0 else (args.workers, 1)):
                start = time.perf_counter()
                report = check_cases(cases, 3, workers=workers)
                seconds[workers].append(time.perf_counter() - start)
                assert not report.errors, report.errors
    one, several = (statistics.median(seconds[w]) for w in (1, args.workers))
    record = {"what": "seconds of check_cases over the cases (every voxel read), one thread against several, "
                      "alternating, median of the repeats",
              "cases": args.cases, "shape": args.shape, "gzipped_bytes": gzipped,
              "seconds_one_thread": round(one, 3), f"seconds_{args.workers}_threads": round(several, 3),
              "speedup": round(one / several, 2),
              "runs_s": {str(w): [round(t, 3) for t in runs] for w, runs in seconds.items()}}
    out = write_result(f"check_threads_{args.tag}", record, None, command=script_command())
    print(json.dumps({key: value for key, value in record.items() if key != "runs_s"}))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
