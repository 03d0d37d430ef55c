"""Did splitting benchmark_train._measure_case change the JSON a run writes? The comparison of
../benchmark_train_split_2026-12-06/same_json.py (same keys in the same order, lists of the same lengths, leaves of
the same types, every leaf equal but those a rerun measures anew), with the timings of the FSDP2 run's third loop
measured anew too (its ratios and step breakdown, which no run of that session had).

    python same_json.py BEFORE.json AFTER.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmark_train_split_2026-12-06"))
import same_json as split_session  # noqa: E402  (that folder's script, on the path just above)

split_session.MEASURED |= {"ratio_ours_to_plain_fsdp2", "ratio_plain_fsdp2_to_plain_ddp",
                           "plain_fsdp2_step_breakdown_ms"}

if __name__ == "__main__":
    before, after = (json.loads(Path(path).read_text(encoding="utf-8")) for path in sys.argv[1:3])
    found = split_session.differences(before, after)
    if split_session.shape(before) != split_session.shape(after):
        found.append("the shapes differ (keys, lengths or leaf types), measured keys included")
    print("\n".join(found) or f"same: {sys.argv[1]} and {sys.argv[2]} (keys, order, lengths, types; "
                                f"every leaf but the measured ones equal)")
    sys.exit(1 if found else 0)
