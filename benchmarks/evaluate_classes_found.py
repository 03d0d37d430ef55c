"""Evaluate where the files give the classes (no --num-classes, no --labels), before against after the
hundredth session: before, every label and prediction was read in full to find the classes, then again to score
them; after, scoring's own read finds them (``evaluate_classes.ClassesFound``), each map read once. Both are this
tree's own ``evaluate_folders``: "before" is the path it still takes for a tolerance per class in order (every
map read first, then the scoring with every class), here forced for one tolerance by making ``_one_for_all``
answer None, which is the code before. Timed in one process, alternating, over --cases pairs of --size^3 uint8
label maps (``evaluate_inputs_digest_cost``'s two classes), gzipped and uncompressed, with the files dropped
from the page cache before each run (``cold``) and with them in it (``warm``), as ``evaluate_single_read``
times its two ways (its ``timed``, the bytes left in the cache counted), after one evaluation untimed (torch's
and MONAI's imports). The whole evaluation is timed, metrics included, and its summary.json and metrics.csv compared
between the two ways (``same_files``); and the read taken out alone (``first_read``: ``classes_to_score`` finding
the classes, cold and warm).

    PYTHONPATH=. python benchmarks/evaluate_classes_found.py --repeats 3 --work /var/tmp \\
        --output benchmarks/results/evaluate_classes_found_2cpu.json
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
import warnings
from pathlib import Path

from evaluate_inputs_digest_cost import write_cases  # benchmarks/ is sys.path[0] for a script run from there
from evaluate_single_read import dropped_from_the_cache, fsynced, timed

from accelerated_seg import evaluate
from accelerated_seg.benchmark import script_command, write_result
from accelerated_seg.evaluate import SettingNames, match_cases
from accelerated_seg.evaluate_classes import classes_to_score
from accelerated_seg.files import check_script_output


@contextlib.contextmanager
def _classes_found_first():
    """``evaluate_folders`` as before the hundredth session: every map read to find the classes, then scored."""
    kept = evaluate._one_for_all
    evaluate._one_for_all = lambda tolerance_mm: None
    try:
        yield
    finally:
        evaluate._one_for_all = kept


def _ways(root: Path) -> dict:
    """Both ways, each as ``evaluate_single_read.timed`` takes them: given the pairs, returning the digests
    recorded, which it compares with the files' own (the same record either way)."""
    def before(pairs) -> dict:
        with _classes_found_first():
            return _after(pairs, root / "before")

    return {"before": before, "after": lambda pairs: _after(pairs, root / "after")}


def _after(pairs, out: Path) -> dict:
    """evaluate_folders of the pairs' folders into ``out``; the digests summary.json records."""
    _, pred, label = pairs[0]
    return evaluate.evaluate_folders(pred.parent, label.parent, output_dir=out, overwrite=True)["inputs_sha256"]


def _first_read(pairs, paths: list[Path], repeats: int) -> dict:
    """Seconds (medians) of the read that the change takes out, ``classes_to_score`` finding the classes from the
    files alone, with the files dropped from the page cache first and with them in it."""
    runs = {"cold": [], "warm": []}
    for _ in range(repeats):
        for name in runs:
            if name == "cold":
                dropped_from_the_cache(paths)
            start = time.perf_counter()
            classes_to_score(pairs, None, None, {}, False, SettingNames())
            runs[name].append(round(time.perf_counter() - start, 4))
    return {f"{name}_s": round(statistics.median(times), 4) for name, times in runs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--size", type=int, default=160)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work", default=None, help="folder to write the files under (a disk, not a tmpfs)")
    parser.add_argument("--output", help="the result's file (default: benchmarks/results/evaluate_classes_found_"
                                         "<cores>cpu.json, or _2, _3, ... beside one there)")
    args = parser.parse_args()
    check_script_output(parser, args.output, result_key="benchmark", kind="evaluate_classes_found")
    warnings.filterwarnings("ignore", message=".*always_return_as_numpy.*", category=FutureWarning)
    result = {"cases": args.cases, "size": args.size, "repeats": args.repeats,
              "load_average_at_start": [round(load, 2) for load in os.getloadavg()]}
    for ending in (".nii.gz", ".nii"):
        with tempfile.TemporaryDirectory(dir=args.work) as folder:
            root = Path(folder)
            write_cases(root, args.cases, args.size, ending)
            pairs, _ = match_cases(root / "pred", root / "labels")
            paths = [path for _, pred, label in pairs for path in (pred, label)]
            fsynced(paths)
            _after(pairs, root / "warm_up")  # torch's and MONAI's imports, untimed
            result[ending] = {"file_megabytes": round(sum(path.stat().st_size for path in paths) / 2**20, 2),
                              "cold": timed(_ways(root), pairs, paths, args.repeats, cold=True),
                              "warm": timed(_ways(root), pairs, paths, args.repeats, cold=False),
                              "first_read": _first_read(pairs, paths, args.repeats),
                              "same_files": all((root / "before" / name).read_bytes()
                                                == (root / "after" / name).read_bytes()
                                                for name in ("summary.json", "metrics.csv"))}
            print(ending, result[ending], flush=True)
    result["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    path = write_result(f"evaluate_classes_found_{os.cpu_count()}cpu", result, args.output, command=script_command())
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
