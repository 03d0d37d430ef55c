"""Did splitting benchmark_train.py change the JSON a run writes? Compares two results of the same command,
one written before the split and one after: the same keys in the same order at every level, lists of the same
lengths, leaves of the same types, and every leaf equal except the ones a rerun measures anew (times, rates and
what is computed from them, the date, the load average, the commit).

    python same_json.py BEFORE.json AFTER.json

Prints each difference (none: "same"), and exits 1 where there is one.
"""

from __future__ import annotations

import json
import sys

# Leaves a second run of the same code measures anew: timings, what is derived from them, and the provenance.
MEASURED = {"seconds", "data_wait_s", "samples_per_s", "samples_per_s_blocks", "achieved_tflops", "mfu", "epoch_s",
            "cost_per_epoch", "cost_per_1000_samples", "data_wait_pct", "ratio_ours_to_plain", "ratio_per_block",
            "ratio_median_of_blocks", "overhead_ms_per_step", "warmup_s", "plain_step_breakdown_ms", "ms",
            "bus_bandwidth_gb_s", "load_average", "date", "provenance", "peak_allocated_gb",
            "peak_above_block_start_gb", "peak_above_start_gb", "launcher_command", "command",
            "accelerated_seg_commit"}


def differences(before, after, path: str = "") -> list[str]:
    if type(before) is not type(after) and not {type(before), type(after)} <= {int, float}:
        return [f"{path}: {type(before).__name__} before, {type(after).__name__} after"]
    if isinstance(before, dict):
        if list(before) != list(after):
            return [f"{path}: keys {list(before)} before, {list(after)} after"]
        return [found for key in before for found in
                ([] if key in MEASURED else differences(before[key], after[key], f"{path}.{key}"))]
    if isinstance(before, list):
        if len(before) != len(after):
            return [f"{path}: {len(before)} items before, {len(after)} after"]
        return [found for i, (b, a) in enumerate(zip(before, after)) for found in differences(b, a, f"{path}[{i}]")]
    return [] if before == after else [f"{path}: {before!r} before, {after!r} after"]


def shape(value):
    """The keys, lengths and types of a result, with every leaf's value left out (for the measured keys too)."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return type(value).__name__


if __name__ == "__main__":
    before, after = (json.loads(open(path, encoding="utf-8").read()) for path in sys.argv[1:3])
    found = differences(before, after)
    if shape(before) != shape(after):
        found.append("the shapes differ (keys, lengths or leaf types), measured keys included")
    print("\n".join(found) or f"same: {sys.argv[1]} and {sys.argv[2]} (keys, order, lengths, types; "
                                f"every leaf but the measured ones equal)")
    sys.exit(1 if found else 0)
