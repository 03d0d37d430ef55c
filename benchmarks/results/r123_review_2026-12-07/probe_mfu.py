# cd /tmp/wt_r123 && PYTHONPATH=. /work/main/.venv/bin/python benchmarks/results/r123_review_2026-12-07/probe_mfu.py > benchmarks/results/r123_review_2026-12-07/probe_mfu.txt 2>&1
"""The printed table's MFU cell for a GPU's 0.163, a CPU's 0.00084, a slower CPU's 4.2e-05 and None, against the
column's header, from a committed result (the JSON itself is not touched)."""
import copy
import json
from pathlib import Path

from accelerated_seg.benchmark_train_results import format_table

result = json.loads(Path("benchmarks/results/train_2cpu/session_2026-12-07g/unet64_1proc_r1.json").read_text())
before = copy.deepcopy(result)
header = format_table(result).splitlines()[0]
end = header.index("MFU") + len("MFU")
for mfu in (0.163, 0.00084, 0.0008406, 4.2e-05, 1.0, None):
    run = copy.deepcopy(result)
    run["runs"][0]["ours"]["mfu"] = mfu
    row = format_table(run).splitlines()[1]
    print(f"{mfu!r:>10} -> {row[end - 9:end]!r} (header {header[end - 9:end]!r}; row as long as header: "
          f"{len(row) == len(header)})")
format_table(result)
print("result unchanged by printing:", result == before)
