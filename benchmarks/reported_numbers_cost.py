"""The cost of how evaluate reports its numbers, beside what it reports on: ``float32_as_decimal`` (each HD95
and surface Dice as the shortest decimal of MONAI's float32) against ``case_metrics`` of a 128^3 pair of
balls on 0.7 x 0.7 x 1.5 mm voxels, and ``summarise`` of 10,000 rows (1000 cases x 10 classes) with its
exact statistics of the decimals written against numpy's float64 ones, as they were before the
ninety-fourth session. Median of --repeats, one process. Writes
benchmarks/results/reported_numbers_cost_<cores>cpu.json; docs/inference.md quotes it."""
import argparse
import json
import os
import statistics
import timeit
import warnings
from pathlib import Path

import numpy as np

from accelerated_seg import evaluate
from accelerated_seg.benchmark import provenance, script_command
from accelerated_seg.files import write_text_atomically


def _median_seconds(work, repeats: int) -> tuple[float, list[float]]:
    runs = [round(run, 4) for run in timeit.repeat(work, number=1, repeat=repeats)]  # timeit's clock, one call each
    return statistics.median(runs), runs


def _numpy_statistics(values) -> dict:
    """evaluate.statistics as it was until the ninety-fourth session: numpy's float64 running sums."""
    array = np.asarray(values, dtype=float)
    finite = array[np.isfinite(array)]

    def stat(fn):
        return float(fn(finite)) if finite.size else None

    return {"mean": stat(np.mean), "std": stat(np.std), "median": stat(np.median), "min": stat(np.min),
            "max": stat(np.max), "n": int(finite.size), "n_inf": int(np.isinf(array).sum()),
            "n_nan": int(np.isnan(array).sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*always_return_as_numpy.*", category=FutureWarning)
    spacing = (0.7, 0.7, 1.5)
    grid = np.stack(np.meshgrid(*[np.arange(128) * s for s in spacing], indexing="ij"), -1)
    label = (np.linalg.norm(grid - [45, 45, 96], axis=-1) <= 30).astype(np.uint8)
    pred = (np.linalg.norm(grid - [47, 44, 97], axis=-1) <= 29).astype(np.uint8)
    measured = evaluate.case_metrics(pred, label, 2, spacing)[1]
    case, case_runs = _median_seconds(lambda: evaluate.case_metrics(pred, label, 2, spacing), args.repeats)
    per_value = min(timeit.repeat(lambda: evaluate.float32_as_decimal(0.699999988079071), number=10000,
                                  repeat=args.repeats)) / 10000

    rng = np.random.default_rng(0)
    rows = [{"case": f"c{i}", "class": c, "dice": float(rng.random()), "hd95_mm": float(np.float32(rng.random() * 20)),
             "surface_dice": float(np.float32(rng.random())), "label_voxels": 5, "pred_voxels": 5}
            for i in range(1000) for c in range(1, 11)]
    names = {c: f"class_{c}" for c in range(1, 11)}
    exact, exact_runs = _median_seconds(lambda: evaluate.summarise(rows, names), args.repeats)
    ours = evaluate.statistics
    evaluate.statistics = _numpy_statistics
    try:
        numpy, numpy_runs = _median_seconds(lambda: evaluate.summarise(rows, names), args.repeats)
    finally:
        evaluate.statistics = ours
    result = {
        **provenance(script_command()),
        "case_metrics_128cubed_s": case, "case_metrics_runs_s": case_runs, "case_scores": measured,
        "float32_as_decimal_us": round(per_value * 1e6, 2), "float32_as_decimal_per_case_class": 2,
        "summarise_10000_rows_exact_s": exact, "summarise_exact_runs_s": exact_runs,
        "summarise_10000_rows_numpy_s": numpy, "summarise_numpy_runs_s": numpy_runs,
    }
    out = Path(__file__).parent / "results" / f"reported_numbers_cost_{os.cpu_count()}cpu.json"
    write_text_atomically(out, json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
