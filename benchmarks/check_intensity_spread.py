"""What the z-score check of one voxel that makes an image's spread (``data/intensity_spread.py``) adds
to the pre-flight check: ``check_cases`` under ``normalization="zscore"`` (the sums gathered in the
pass over the voxels) against ``"ct"`` (not gathered), alternating, one thread, median of the repeats,
on CT-sized int16 volumes and on BraTS-sized float32 MR volumes. Writes
benchmarks/results/check_intensity_spread_<tag>.json with the machine and the command.

    PYTHONPATH=. python benchmarks/check_intensity_spread.py --tag 2cpu
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

from check_threads import write_cases as write_ct_cases  # benchmarks/ is the script's folder: on sys.path


def write_mr_cases(folder: Path, count: int, shape: tuple[int, int, int]) -> list[Case]:
    """Skull-stripped-MR-like cases: a head of tissue (about 200, noise 20) in a zero background, float32."""
    rng = np.random.default_rng(1)
    x, y, z = np.meshgrid(*(np.linspace(-1, 1, n) for n in shape), indexing="ij")
    head = x ** 2 + y ** 2 + z ** 2 < 0.8
    label = (((x - 0.2) ** 2 + y ** 2 + z ** 2) < 0.05).astype(np.uint8)
    affine = np.eye(4)
    cases = []
    for index in range(count):
        image = np.where(head, 200 + rng.normal(0, 20, shape), 0).astype(np.float32)
        paths = folder / f"mr_{index:03d}.nii.gz", folder / f"mr_{index:03d}_label.nii.gz"
        nib.save(nib.Nifti1Image(image, affine), paths[0])
        nib.save(nib.Nifti1Image(label, affine), paths[1])
        cases.append(Case(id=f"mr_{index:03d}", images=(paths[0],), label=paths[1]))
    return cases


def timed(cases: list[Case], repeats: int) -> dict:
    check_cases(cases[:1], 3)  # imports and first-use costs out of the timing
    seconds = {"zscore": [], "ct": []}
    for repeat in range(repeats):
        for normalization in (("zscore", "ct") if repeat % 2 == 0 else ("ct", "zscore")):
            start = time.perf_counter()
            report = check_cases(cases, 3, normalization=normalization)
            seconds[normalization].append(time.perf_counter() - start)
            assert not report.errors and not [w for w in report.warnings if "variance" in w], report
    zscore, ct = (statistics.median(seconds[name]) for name in ("zscore", "ct"))
    return {"cases": len(cases), "shape": list(np.asanyarray(nib.load(cases[0].images[0]).dataobj).shape),
            "seconds_with_the_spread": round(zscore, 3), "seconds_without": round(ct, 3),
            "ratio": round(zscore / ct, 3),
            "runs_s": {name: [round(t, 3) for t in runs] for name, runs in seconds.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tag", default="2cpu", help="the result's file name: check_intensity_spread_<tag>.json")
    args = parser.parse_args()
    record = {"what": "seconds of check_cases over the cases (every voxel read, one thread) with the z-score "
                      "spread gathered (normalization zscore) and without (ct), alternating, median of the repeats"}
    with tempfile.TemporaryDirectory() as folder:
        record["ct_int16"] = timed(write_ct_cases(Path(folder), args.cases, (512, 512, 100)), args.repeats)
        record["mr_float32"] = timed(write_mr_cases(Path(folder), args.cases, (240, 240, 155)), args.repeats)
    out = write_result(f"check_intensity_spread_{args.tag}", record, None, command=script_command())
    print(json.dumps({key: {k: v for k, v in value.items() if k != "runs_s"} if isinstance(value, dict) else value
                      for key, value in record.items()}))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
