"""Time ``inference.prepare_case`` (prediction's read stage) of two source trees, alternating.

    python benchmarks/prepare_case_ab.py --trees /tmp/old_tree . --rounds 5 --output benchmarks/results/x.json

Each round runs every tree in its own process (so each imports its own ``accelerated_seg``) on the
same scans: int16 192 x 192 x 160 volumes at 0.8 x 0.8 x 2.5 mm, resampled to 1 mm as the model's
preprocessing asks, like ``benchmark predict --spacing 0.8 0.8 2.5``. A process prepares every scan
once untimed, then each scan ``--repeats`` times, and reports the median milliseconds. Alternating
the trees round by round spreads a noisy host's drift over both. Used for the thirty-fifth session's
change of the read stage (each scan decompressed once, not twice).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# Runs inside each tree's own process: prepares every scan, prints the median milliseconds.
_TIMER = """
import json, statistics, sys, time
from accelerated_seg.inference import prepare_case
scans, repeats = json.loads(sys.argv[1]), int(sys.argv[2])
config = {"in_channels": 1, "spacing": [1.0, 1.0, 1.0]}
for scan in scans:
    prepare_case(config, [scan])
times = []
for _ in range(repeats):
    for scan in scans:
        start = time.perf_counter()
        prepare_case(config, [scan])
        times.append((time.perf_counter() - start) * 1000)
print(json.dumps(round(statistics.median(times), 1)))
"""


def write_scans(folder: Path, count: int) -> list[str]:
    import nibabel as nib
    import numpy as np

    rng = np.random.default_rng(0)
    paths = []
    for index in range(count):
        values = (1000 + rng.normal(size=(192, 192, 160)) * 100).clip(1, None).astype(np.int16)
        paths.append(str(folder / f"scan_{index}.nii.gz"))
        nib.save(nib.Nifti1Image(values, np.diag([0.8, 0.8, 2.5, 1.0])), paths[-1])
    return paths


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", nargs=2, required=True, help="two source trees (folders holding accelerated_seg/)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scans", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2, help="timed passes over the scans per process")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    trees = [str(Path(tree).resolve()) for tree in args.trees]
    medians: dict[str, list[float]] = {tree: [] for tree in trees}
    with tempfile.TemporaryDirectory() as folder:
        scans = write_scans(Path(folder), args.scans)
        for _ in range(args.rounds):
            for tree in trees:
                env = {**os.environ, "PYTHONPATH": tree}
                done = subprocess.run([sys.executable, "-c", _TIMER, json.dumps(scans), str(args.repeats)],
                                      cwd=tree, env=env, capture_output=True, text=True, check=True)
                medians[tree].append(float(done.stdout.strip().splitlines()[-1]))
    first, second = (statistics.median(medians[tree]) for tree in trees)
    result = {"what": "prepare_case ms per scan (median of each process), two trees alternating",
              "command": " ".join(["python", "benchmarks/prepare_case_ab.py",
                                   *(argv if argv is not None else sys.argv[1:])]),
              "scan": "int16 192x192x160 at 0.8x0.8x2.5 mm, resampled to 1 mm", "torch_threads": _threads(),
              "ms_per_round": medians, "ms_median": {trees[0]: first, trees[1]: second},
              "second_over_first": round(second / first, 3)}
    print(json.dumps(result, indent=1))
    if args.output:
        args.output.write_text(json.dumps(result, indent=1) + "\n")
    return 0


def _threads() -> int:
    import torch

    return torch.get_num_threads()


if __name__ == "__main__":
    sys.exit(main())
