"""source env.sh; python /tmp/wt_h145/benchmarks/results/ninth_new_user_walk_2026-12-07/walk_3_fields.py FILE.json ... \
    > /tmp/wt_h145/benchmarks/results/ninth_new_user_walk_2026-12-07/walk_3_fields.txt 2>&1

docs/performance.md "Fields of the JSON" held against the files the walk's runs wrote: every key the table names is in
each row and every key of a row is in the table; the top level's keys against the paragraph; and each figure
recomputed from its definition (samples/s the median of the blocks, each block samples/seconds, the ratios, the
overhead per step, MFU, costs, the epoch's time, the data wait)."""

import json
import os
import re
import statistics
import sys
from pathlib import Path

WALK = Path(os.environ.get("WALK", "/tmp/walk_h145"))
page = (Path(os.environ["PYTHONPATH"]) / "docs/performance.md").read_text()
section = page.split("## Fields of the JSON")[1].split("Peaks used for MFU")[0]
top_paragraph = section.split("**A stopped run**")[0]
table = [line for line in section.splitlines() if line.startswith("| `")]
documented_row_keys, documented_loop_keys = set(), set()
for line in table:
    cell = line.split("|")[1]
    names = re.findall(r"`([\w.]+)`", cell)
    if cell.count("→") == 2:  # `ours` → `skipped_steps`, `plain` → `nonfinite_steps`
        documented_loop_keys |= set(re.findall(r"→ `(\w+)`", cell))
    elif "→" in cell:  # `ours` / `plain` → `a`, `b`
        documented_loop_keys |= set(re.findall(r"`(\w+)`", cell.split("→")[1]))
    else:
        documented_row_keys |= set(names)
documented_top = set(re.findall(r"`(\w+)`", top_paragraph))
print("documented top-level keys:", sorted(documented_top))


def median(xs):
    return float(statistics.median(xs))


def check(path: Path) -> None:
    d = json.loads(path.read_text())
    print(f"\n== {path.name}: {d['command']}")
    print("top level:", sorted(d))
    print("  undocumented at the top:", sorted(set(d) - documented_top))
    print("  machine:", d["machine"])
    print("  launch:", d["launch"])
    print("  settings:", d["settings"])
    print("  load_average:", d["load_average"])
    for run in d["runs"]:
        keys = set(run)
        print(f"-- row {run['model']} {run['lever']} {run['patch']} b{run['batch_per_device']} {run['precision']}"
              f" x{run['processes']}")
        print("  in the row, not in the table:", sorted(keys - documented_row_keys - {"ours", "plain"}))
        print("  in the table, not in the row:", sorted(documented_row_keys - keys))
        for loop in ("ours", "plain"):
            print(f"  {loop} keys not in the table:", sorted(set(run[loop]) - documented_loop_keys),
                  "; in the table, not here:", sorted(documented_loop_keys - set(run[loop])))
        samples_per_block = run["steps_per_block"] * run["batch_per_device"] * run["processes"]
        timeline = run["timeline"]
        order = [(b["block"], b["loop"]) for b in timeline]
        print("  timeline order:", order)
        for loop in ("ours", "plain"):
            blocks = sorted((b for b in timeline if b["loop"] == loop), key=lambda b: b["block"])
            rates = [round(samples_per_block / b["seconds"], 4) for b in blocks]
            figures = run[loop]
            ok_blocks = all(abs(a - b) <= 2e-3 * max(a, b) for a, b in zip(rates, figures["samples_per_s_blocks"]))
            ok_median = abs(median(figures["samples_per_s_blocks"]) - figures["samples_per_s"]) < 1e-3
            wait = 100 * sum(b["data_wait_s"] for b in blocks) / sum(b["seconds"] for b in blocks)
            epoch = d["settings"]["epoch_samples"] / figures["samples_per_s"]
            print(f"  {loop}: blocks samples/seconds {rates} == samples_per_s_blocks {ok_blocks}; samples_per_s the "
                  f"median {ok_median}; data_wait_pct {figures['data_wait_pct']} vs {wait:.3f}; epoch_s "
                  f"{figures['epoch_s']} vs {epoch:.2f}")
            flops = run["flops_per_sample"]
            print(f"    achieved_tflops {figures['achieved_tflops']} vs {flops * figures['samples_per_s'] / 1e12:.4g};"
                  f" mfu {figures['mfu']} vs peak {run['peak_tflops_per_device']}: "
                  + (f"{flops * figures['samples_per_s'] / (run['peak_tflops_per_device'] * 1e12 * run['processes']):.4g}"
                     if run["peak_tflops_per_device"] else "none"))
            price = d["settings"]["price_per_gpu_hour"]
            if price:
                per_s = price * run["processes"] / 3600
                print(f"    cost_per_epoch {figures['cost_per_epoch']} vs {per_s * epoch:.4g}; cost_per_1000_samples "
                      f"{figures['cost_per_1000_samples']} vs {per_s * 1000 / figures['samples_per_s']:.4g}")
            else:
                print(f"    costs {figures['cost_per_epoch']}, {figures['cost_per_1000_samples']} (no price)")
            print(f"    peak memory {figures['peak_allocated_gb']}, {figures['peak_above_block_start_gb']};"
                  f" non-finite: {figures.get('skipped_steps', figures.get('nonfinite_steps'))}")
        ours, plain = run["ours"], run["plain"]
        pairs = [round(a / b, 4) for a, b in zip(ours["samples_per_s_blocks"], plain["samples_per_s_blocks"])]
        step = [1000 * run["batch_per_device"] * run["processes"] / x["samples_per_s"] for x in (ours, plain)]
        print(f"  ratio_ours_to_plain {run['ratio_ours_to_plain']} vs {ours['samples_per_s'] / plain['samples_per_s']:.4f}"
              f"; ratio_per_block {run['ratio_per_block']} vs {pairs}; ratio_median_of_blocks "
              f"{run['ratio_median_of_blocks']} vs {median(pairs):.4f}; overhead_ms_per_step "
              f"{run['overhead_ms_per_step']} vs {step[0] - step[1]:.3f}")
        print(f"  strategy {run['strategy']!r}; distributed_type {run['distributed_type']}; sharding {run['sharding']};"
              f" plain_baseline {run['plain_baseline']!r}")
        print(f"  data {run['data']}, augment_on {run['augment_on']}, num_workers {run['num_workers']}; compile "
              f"{run['compile']}; ddp_options {run['ddp_options']}; cudnn_benchmark {run['cudnn_benchmark']}")
        print(f"  gradient_bytes {run['gradient_bytes']} vs parameters x 4 = {run['parameters'] * 4}; global_batch "
              f"{run['global_batch']}; flops_per_sample {run['flops_per_sample']}; warmup_s {run['warmup_s']}")
        phases = run["plain_step_breakdown_ms"]
        print(f"  plain_step_breakdown_ms {phases} (sum of the phases "
              f"{sum(v for k, v in phases.items() if isinstance(v, (int, float)) and k != 'step'):.2f})")
        print(f"  allreduce {run['allreduce']}")


for name in sys.argv[1:]:
    check(Path(name))
