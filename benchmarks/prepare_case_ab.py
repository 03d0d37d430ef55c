"""Time prediction's host work on a case in two source trees, alternating: ``inference.prepare_case``
(the read stage) and ``inference.restore_case`` (the write stage's inverse and class map).

    python benchmarks/prepare_case_ab.py --trees /tmp/old_tree . --rounds 5 --output benchmarks/results/x.json

Each round runs every tree in its own process (so each imports its own ``accelerated_seg``) on the
same scans: int16 192 x 192 x 160 volumes at 0.8 x 0.8 x 2.5 mm, resampled to 1 mm as the model's
preprocessing asks, like ``benchmark predict --spacing 0.8 0.8 2.5``. A process prepares every scan
once untimed, then each scan ``--repeats`` times, and reports the median milliseconds; then it maps
fixed 3-class probabilities on each prepared grid back onto the scan's grid the same way. Alternating
the trees round by round spreads a noisy host's drift over both. The first round's processes also
save what they made, and the result says how far the second tree's is from the first's (the
preprocessed images, the class maps). Used for the thirty-fifth session's change of the read stage
(each scan decompressed once, not twice) and the thirty-sixth's resampling in float32.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

# Runs inside each tree's own process: prepares every scan, prints the median milliseconds.
#: What its result is ("what"): --output replaces only a file of that.
WHAT = "ms per scan of prepare_case and restore_case (median of each process), two trees alternating"
_TIMER = """
import json, statistics, sys, time
import numpy as np, torch
from accelerated_seg.inference import prepare_case, restore_case
scans, repeats, save = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
config = {"in_channels": 1, "spacing": [1.0, 1.0, 1.0]}
prepared = [prepare_case(config, [scan]) for scan in scans]
generator = torch.Generator().manual_seed(0)
probabilities = [torch.randn(3, *case.image.shape[1:], generator=generator).softmax(0) for case in prepared]
restored = [restore_case(case, probs, keep_probabilities=False) for case, probs in zip(prepared, probabilities)]
times = {"prepare": [], "restore": []}
for _ in range(repeats):
    for scan, probs in zip(scans, probabilities):
        start = time.perf_counter()
        case = prepare_case(config, [scan])
        times["prepare"].append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        restore_case(case, probs, keep_probabilities=False)
        times["restore"].append((time.perf_counter() - start) * 1000)
if save:
    np.savez(save, **{f"image_{i}": case.image.numpy() for i, case in enumerate(prepared)},
             **{f"classes_{i}": case.classes.numpy() for i, case in enumerate(restored)})
print(json.dumps({stage: round(statistics.median(ms), 1) for stage, ms in times.items()}))
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
    from accelerated_seg.files import check_script_output, write_text_atomically

    check_script_output(parser, args.output, result_key="what", kind=WHAT)
    trees = [str(Path(tree).resolve()) for tree in args.trees]
    stages = ("prepare", "restore")
    medians: dict[str, dict[str, list[float]]] = {stage: {tree: [] for tree in trees} for stage in stages}
    with tempfile.TemporaryDirectory() as folder:
        scans = write_scans(Path(folder), args.scans)
        for round_ in range(args.rounds):
            for index, tree in enumerate(trees):
                env = {**os.environ, "PYTHONPATH": tree}
                save = str(Path(folder) / f"tree_{index}.npz") if round_ == 0 else ""
                done = subprocess.run([sys.executable, "-c", _TIMER, json.dumps(scans), str(args.repeats), save],
                                      cwd=tree, env=env, capture_output=True, text=True, check=True)
                for stage, ms in json.loads(done.stdout.strip().splitlines()[-1]).items():
                    medians[stage][tree].append(ms)
        difference = _difference(Path(folder) / "tree_0.npz", Path(folder) / "tree_1.npz")
    overall = {stage: {tree: statistics.median(medians[stage][tree]) for tree in trees} for stage in stages}
    from accelerated_seg.benchmark import machine_info  # the rule's record, missing before the 73rd session

    result = {"what": WHAT,
              "date": date.today().isoformat(), "machine": machine_info(),
              "command": " ".join(["python", "benchmarks/prepare_case_ab.py",
                                   *(argv if argv is not None else sys.argv[1:])]),
              "scan": "int16 192x192x160 at 0.8x0.8x2.5 mm, resampled to 1 mm; 3 classes restored",
              "torch_threads": _threads(), "trees": trees, "ms_per_round": medians, "ms_median": overall,
              "second_over_first": {stage: round(overall[stage][trees[1]] / overall[stage][trees[0]], 3)
                                    for stage in stages},
              "second_against_first": difference}
    print(json.dumps(result, indent=1))
    if args.output:
        write_text_atomically(args.output, json.dumps(result, indent=1) + "\n")
    return 0


def _difference(first: Path, second: Path) -> dict:
    """How far the second tree's preprocessed images and class maps are from the first's."""
    import numpy as np

    a, b = np.load(first), np.load(second)
    images = [name for name in a.files if name.startswith("image_")]
    maps = [name for name in a.files if name.startswith("classes_")]
    same_shapes = all(a[name].shape == b[name].shape for name in a.files)
    if not same_shapes:
        return {"same_shapes": False}
    return {"same_shapes": True,
            "image_max_abs_difference": float(max(np.abs(a[n] - b[n]).max() for n in images)),
            "class_map_voxels_differing": float(np.mean([(a[n] != b[n]).mean() for n in maps]))}


def _threads() -> int:
    import torch

    return torch.get_num_threads()


if __name__ == "__main__":
    sys.exit(main())
