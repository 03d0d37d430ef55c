"""Summary of benchmarks/cpu_contention_control.sh: how much of 2-process DDP's lost efficiency on
the CPU is two processes sharing the cores, and how much is DDP itself.

    python benchmarks/contention_summary.py benchmarks/results/cpu_contention/session_X

Per loop (ours, plain), with solo = the mean of the solo runs before and after:

- ceiling = (pair A + pair B) / (2 x solo): the weak-scaling efficiency that contention alone
  allows, two independent jobs with no communication;
- ddp efficiency = DDP's global rate / (2 x solo), as scaling_projection.py computes it;
- ddp / pair = DDP's global rate over the pair's summed rate: what gradient synchronisation costs
  at equal contention (1.0: nothing).

Rates are each run's median over its timed blocks, so the blocks at either end of the pair, where
one job may still be importing or already done, weigh little. Writes summary.json next to the runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accelerated_seg.benchmark import machine_info  # noqa: E402
from accelerated_seg.files import write_text_atomically  # noqa: E402


def main(folder: Path) -> dict:
    runs = {name: json.loads((folder / f"{name}.json").read_text())["runs"][0]
            for name in ("solo_before", "pair_a", "pair_b", "ddp_2proc", "solo_after")}
    summary = {"benchmark": "cpu_contention_control", "date": date.today().isoformat(), "machine": machine_info(),
               "command": f"bash benchmarks/cpu_contention_control.sh (OUT={folder})",
               "case": {key: runs["solo_before"][key] for key in ("model", "patch", "batch_per_device", "precision")},
               "loops": {}}
    for loop in ("ours", "plain"):
        rate = {name: run[loop]["samples_per_s"] for name, run in runs.items()}
        solo = statistics.mean([rate["solo_before"], rate["solo_after"]])
        pair = rate["pair_a"] + rate["pair_b"]
        summary["loops"][loop] = {
            "samples_per_s": rate, "solo_mean": round(solo, 4), "pair_sum": round(pair, 4),
            "contention_ceiling": round(pair / (2 * solo), 4),
            "ddp_efficiency": round(rate["ddp_2proc"] / (2 * solo), 4),
            "ddp_over_pair": round(rate["ddp_2proc"] / pair, 4)}
    # Where the time goes: the plain loop's phases alone, next to an independent job, and under DDP.
    summary["plain_phases_ms"] = {name: {phase: run["plain_step_breakdown_ms"][phase]
                                         for phase in ("forward_loss", "backward", "optimizer")}
                                  for name, run in runs.items()}
    write_text_atomically(folder / "summary.json", json.dumps(summary, indent=2) + "\n")
    for loop, s in summary["loops"].items():
        print(f"{loop:6} solo {s['solo_mean']:.3f}/s  pair {s['pair_sum']:.3f}/s  ceiling {s['contention_ceiling']:.1%}  "
              f"DDP {s['samples_per_s']['ddp_2proc']:.3f}/s = {s['ddp_efficiency']:.1%}  DDP/pair {s['ddp_over_pair']:.3f}")
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="the OUT folder of cpu_contention_control.sh (its five runs' JSON)")
    main(parser.parse_args().folder)  # --help was read as the folder: a traceback before the seventy-third session
