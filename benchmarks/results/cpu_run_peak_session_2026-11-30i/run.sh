#!/bin/bash
# Whole short CPU runs' peak resident memory against plan's forward/backward estimate (activ + work),
# the bound train's CPU memory check uses (docs/planning.md, "Before a CPU run"): the demo U-Net,
# batch 2, fp32, 2 steps without validation, at 16^3 (the baseline) and 96^3, 160^3.
#   bash benchmarks/results/cpu_run_peak_session_2026-11-30i/run.sh    (from the repository root)
set -e
R=$(dirname "$0"); PY=${PYTHON:-.venv/bin/python}
rm -rf /tmp/cpu_run_peak
for p in 16 96 160; do
  /usr/bin/time -v $PY -m accelerated_seg.cli train --config $R/run.yaml "--data.patch_size=[$p,$p,$p]" \
    --train.output_dir=/tmp/cpu_run_peak/run_$p > /tmp/cpu_run_peak_$p.log 2>&1
  $PY -m accelerated_seg.cli plan --config $R/run.yaml --patch $p $p $p --precision fp32 > /tmp/cpu_run_plan_$p.log
done
$PY - "$R" <<'PY'
import json, re, sys
from datetime import date
from accelerated_seg.benchmark import machine_info
out, rows = sys.argv[1], {}
for p in (16, 96, 160):
    log = open(f"/tmp/cpu_run_peak_{p}.log").read()
    rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log)[1])
    ddp = next(l for l in open(f"/tmp/cpu_run_plan_{p}.log") if l.startswith("ddp "))
    activ, work = (float(x) for x in ddp.split()[4:6])
    rows[p] = {"max_rss_gib": round(rss_kib / 2**20, 3), "plan_activ_plus_work_gib": round(activ + work, 2)}
base = rows[16]["max_rss_gib"]
for p in (96, 160):
    rows[p]["growth_over_16_gib"] = round(rows[p]["max_rss_gib"] - base, 3)
    rows[p]["growth_over_estimate"] = round(rows[p]["growth_over_16_gib"] / rows[p]["plan_activ_plus_work_gib"], 2)
json.dump({"benchmark": "cpu_run_peak", "date": date.today().isoformat(), "machine": machine_info(),
           "command": f"bash {out}/run.sh", "patches": rows}, open(f"{out}/result.json", "w"), indent=1)
print(json.dumps(rows, indent=1))
PY
