"""Every session's CPU measurements in one table, read from the committed JSON files.

    python benchmarks/cpu_history.py                      # markdown table on stdout
    python benchmarks/cpu_history.py --output benchmarks/results/cpu_history.json

docs/performance.md's CPU section grew one narrative block per session; this is the overview that the
blocks cannot give: the same columns for every session, computed from the files, so a figure in the
table is always one that is in the repository. Per session (a folder ``session_*`` under
``train_2cpu/``, or the first session's files at its top level), from ``record_train_cpu.sh``:

- ``ours/plain``: ``ratio_ours_to_plain`` of unet 64^3 and small 32^3, in 1 and 2 processes (the
  median over repeats where a session made several);
- ``fixed cost``: ``overhead_ms_per_step`` of the tiny 16^3 network, our loop's cost per step where
  the network costs almost nothing;
- ``2-proc eff.``: unet 64^3, 2-process global samples/s over twice the 1-process rate (the figure
  ``scaling_projection.py`` writes), one run minutes after the other;
- ``projection``: what ``scaling_projection.py`` expected of that pair from the measured all-reduce
  (``ddp_scaling_2cpu_unet64_<session>.json``, ``model_check.efficiency_overlap``);

and from ``cpu_contention_control.sh`` (``cpu_contention/<same session>/r*/summary.json``), where a
session ran it: DDP's efficiency against the solo runs that bracket it, and DDP's rate over two
independent jobs sharing the cores, the lowest and highest over the repeats, for our loop.

A file named ``..._r1b.json`` is a re-run of ``..._r1.json`` (the first was disturbed) and replaces it.

The control also tells whether the host held its speed: two independent one-process jobs on the two
cores run little faster than twice one job alone on a steady host (its ``contention_ceiling``: up to
1.25 in single repeats of the sessions before the hundredth, each of which had a repeat at 1.08 or
below). Where every repeat of a session reads above ``UNSTEADY_CEILING`` for both loops, its
one-process runs did not run at the host's speed, and a 2-process efficiency or a DDP/solo figure
made from them measures the host, not DDP: the row is marked ``host_unsteady``, and the docs' ranges
over the sessions leave it out (``steady``) and name it. The hundredth session's host ran a lone
process at a third of the speed it had in the session before on the same CPU, its ceilings 1.29 to 1.71.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accelerated_seg.files import check_script_output, write_text_atomically  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SIZES = ("unet64", "small32", "tiny16")
#: Above this in every repeat of a session, for both loops, the control's ceiling (two jobs' rate over
#: twice the solo runs') says the solo runs were slowed, not the pair sped up: the host was unsteady.
UNSTEADY_CEILING = 1.2


def _first_run(path: Path) -> dict:
    return json.loads(path.read_text())["runs"][0]


def repeats(folder: Path, size: str, processes: int) -> list[Path]:
    """The fp32 files of one size and process count, a re-run (``r1b``) replacing its repeat (``r1``)."""
    by_repeat = {}
    for path in sorted(folder.glob(f"{size}_{processes}proc_r*.json")):
        match = re.fullmatch(rf"{size}_{processes}proc_r(\d+)(b?)\.json", path.name)
        if match and (match.group(2) or match.group(1) not in by_repeat):
            by_repeat[match.group(1)] = path
    return [by_repeat[k] for k in sorted(by_repeat)]


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def record_figures(folder: Path) -> dict | None:
    """One session's ``record_train_cpu.sh`` figures, or None where the folder holds none."""
    files = {(size, n): repeats(folder, size, n) for size in SIZES for n in (1, 2)}
    if not files["unet64", 1]:
        return None
    first = json.loads(files["unet64", 1][0].read_text())
    row = {"session": folder.name if folder.name.startswith("session_") else "first (r1-r3)",
           "date": first.get("date"), "cpu": first["machine"].get("cpu"),
           "cpu_capability": first["machine"].get("cpu_capability"),
           # recorded from the forty-second session on; one model name covered hosts 1.6x apart
           "cpu_family_model": first["machine"].get("cpu_family_model"),
           "repeats": len(files["unet64", 1])}
    for (size, n), paths in files.items():
        runs = [_first_run(p) for p in paths]
        if size == "tiny16":
            row[f"fixed_cost_ms_{n}proc"] = _median([r["overhead_ms_per_step"] for r in runs])
        else:
            row[f"{size}_ratio_{n}proc"] = _median([r["ratio_ours_to_plain"] for r in runs])
    row["efficiency_2proc"] = _median(efficiency_per_pair(folder))
    return row


def efficiency_per_pair(folder: Path) -> list[float]:
    """Weak-scaling efficiency of each repeat pair of unet 64^3 (1-process run r, 2-process run r)."""
    pairs = zip(repeats(folder, "unet64", 1), repeats(folder, "unet64", 2))
    return [_first_run(two)["ours"]["samples_per_s"] / (2 * _first_run(one)["ours"]["samples_per_s"])
            for one, two in pairs]


def runs_outside(low: float, high: float, results: Path = RESULTS) -> list[dict]:
    """Every single unet 64^3 record run whose ours/plain, at the three digits the docs show, lies
    outside [low, high]: docs/performance_cpu_sessions.md, "Single runs outside 0.95–1.10", names each, and a new
    one has to be named there too."""
    outside = []
    for folder in _session_folders(results / "train_2cpu"):
        for processes in (1, 2):
            for path in repeats(folder, "unet64", processes):
                ratio = round(_first_run(path)["ratio_ours_to_plain"], 3)
                if not low <= ratio <= high:
                    outside.append({"session": folder.name, "processes": processes, "file": path.name,
                                    "ratio": ratio})
    return outside


def projected_efficiency(results: Path, session: str | None) -> float | None:
    """scaling_projection.py's expectation for the session's 64^3 pair, where it was written."""
    path = results / f"ddp_scaling_2cpu_unet64{'_' + session if session else ''}.json"
    return json.loads(path.read_text())["model_check"]["efficiency_overlap"] if path.is_file() else None


def contention_figures(results: Path, session: str) -> dict | None:
    """Our loop's figures of ``cpu_contention_control.sh`` for a session, over its repeats."""
    summaries = sorted((results / "cpu_contention" / session).glob("r*/summary.json"))
    if not summaries:
        return None
    loops = [json.loads(p.read_text())["loops"] for p in summaries]
    efficiency = [repeat["ours"]["ddp_efficiency"] for repeat in loops]
    over_pair = [repeat["ours"]["ddp_over_pair"] for repeat in loops]
    lowest_ceiling = min(loop["contention_ceiling"] for repeat in loops for loop in repeat.values())
    return {"control_repeats": len(loops), "control_efficiency": [min(efficiency), max(efficiency)],
            "control_ddp_over_pair": [min(over_pair), max(over_pair)],
            "control_lowest_ceiling": lowest_ceiling, "host_unsteady": lowest_ceiling > UNSTEADY_CEILING}


def steady(rows: list[dict]) -> list[dict]:
    """The sessions whose host held its speed through the control (all that did not run it)."""
    return [row for row in rows if not row.get("host_unsteady")]


def _session_folders(train: Path) -> list[Path]:
    """The first session's folder (``train_2cpu`` itself), then every ``session_*`` in date order."""
    return [train] + sorted(p for p in train.glob("session_*") if p.is_dir())


def history(results: Path = RESULTS) -> list[dict]:
    """One row per session with CPU measurements, oldest first (the folder names sort by date)."""
    train = results / "train_2cpu"
    rows = []
    for folder in _session_folders(train):
        row = record_figures(folder)
        if row is not None:
            row["projection_2proc"] = projected_efficiency(results, folder.name if folder != train else None)
            row.update(contention_figures(results, folder.name) or {})
            rows.append(row)
    return rows


def _cell(value, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        low, high = value
        return f"{low:.2f}" if round(low, 2) == round(high, 2) else f"{low:.2f}–{high:.2f}"
    return f"{value:.{digits}f}"


def markdown(rows: list[dict]) -> str:
    head = ("| session | CPU | unet 64³ ours/plain, 1 / 2 proc | small 32³ ours/plain, 1 / 2 proc "
            "| fixed cost ms/step (tiny 16³), 1 / 2 proc | 2-proc efficiency (record) | projection "
            "| control: DDP / solo runs | control: DDP / two jobs |")
    lines = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for r in rows:
        cpu = (r["cpu"] or "?").replace("Intel(R) Xeon(R) Processor", "Xeon").replace(" @ ", " ")
        details = [r[key] for key in ("cpu_capability", "cpu_family_model") if r.get(key)]
        if r.get("cpu_family_model"):
            details[-1] = "family {} model {}".format(*r["cpu_family_model"].split("/"))
        if details:
            cpu += f" ({', '.join(details)})"
        lines.append(
            f"| {r['session'].removeprefix('session_')} | {cpu} "
            f"| {_cell(r['unet64_ratio_1proc'])} / {_cell(r['unet64_ratio_2proc'])} "
            f"| {_cell(r['small32_ratio_1proc'])} / {_cell(r['small32_ratio_2proc'])} "
            f"| {_cell(r['fixed_cost_ms_1proc'], 1)} / {_cell(r['fixed_cost_ms_2proc'], 1)} "
            f"| {_cell(r['efficiency_2proc'])}{' (host unsteady)' if r.get('host_unsteady') else ''} "
            f"| {_cell(r.get('projection_2proc'))} "
            f"| {_cell(r.get('control_efficiency'))} | {_cell(r.get('control_ddp_over_pair'))} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="the benchmarks/results folder")
    parser.add_argument("--output", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    check_script_output(parser, args.output, result_key="benchmark", kind="cpu_history")
    rows = history(args.results)
    if args.output:  # atomically: a failed write leaves the earlier table
        write_text_atomically(args.output, json.dumps({"benchmark": "cpu_history", "rows": rows}, indent=1) + "\n")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
