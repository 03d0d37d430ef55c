"""How often ``accelerated-seg benchmark data`` stopped while batches flow prints a traceback on its way out.

    PYTHONPATH=. python benchmarks/stop_benchmark_data.py --output benchmarks/results/stop_benchmark_data_2cpu.json
    PYTHONPATH=<a copy of the code before> python benchmarks/stop_benchmark_data.py --label before --output <file>

Each repeat runs the benchmark on two tiny phantoms with endless blocks, in a session of its own, waits until both
loaders are in their steady state (a delay drawn in ``--after-s``), and sends the signal: Ctrl-C as a terminal sends
it (SIGINT to the process group), SIGTERM to the process group (SLURM's, ``kill -TERM -- -PGID``), or SIGTERM to the
process alone (``kill PID``). It counts the runs whose stderr holds a traceback, and which: a loader worker's
``resource_sharer`` ConnectionResetError or BrokenPipeError, the rank having broken off a batch's hand-over
(``workers.quiet_a_batch_the_rank_stopped_taking``; 10 SIGTERM runs in 60 until the hundred-and-fourth session).

Each run's set (its command, label and machine) is added to ``--output``'s ``sets`` where that file exists, and its
``totals`` summed over them; what else the file holds (what code ran, said by hand) is kept. Until the
hundred-and-fourth session's review a set named no machine but its CPU count, and sets were merged by hand."""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ["benchmark", "data", "--cases", "2", "--size-mm", "32", "32", "32", "--spacing-mm", "2", "--patch", "12",
           "--batch", "4", "--batches", "100000", "--blocks", "1000"]
STOPS = {"ctrl_c_to_the_group": (signal.SIGINT, True), "sigterm_to_the_group": (signal.SIGTERM, True),
         "sigterm_to_the_process": (signal.SIGTERM, False)}


def _hearing_ctrl_c() -> None:
    """SIGINT's default in the benchmark, whatever this script inherited: a shell starts a background job (``&``,
    nohup) with SIGINT ignored, which the benchmark would keep, and Ctrl-C would not stop it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _one_stop(signum: int, to_group: bool, after_s: float, folder: Path) -> dict:
    """Start the benchmark, send ``signum`` ``after_s`` later, and what it said on its way out."""
    stderr_path = folder / "stderr.txt"
    with open(stderr_path, "w") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "accelerated_seg", *COMMAND, "--output",
                                    str(folder / "out.json")], stdout=subprocess.DEVNULL, stderr=stderr,
                                   start_new_session=True, cwd=folder, preexec_fn=_hearing_ctrl_c)
        time.sleep(after_s)
        if to_group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
        sent = time.monotonic()
        try:
            status = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            status = None
        ended_s = time.monotonic() - sent
        time.sleep(2.0)
        try:  # what the run left in its session 2 s on (workers, the fork server), ended here
            os.killpg(process.pid, signal.SIGKILL)
            left = True
        except ProcessLookupError:
            left = False
    said = stderr_path.read_text()
    return {"after_s": round(after_s, 2), "status": status, "ended_s": round(ended_s, 2),
            "traceback": "Traceback" in said, "resource_sharer": "resource_sharer" in said,
            "connection_reset": "ConnectionResetError" in said, "processes_left_2s_on": left,
            "stderr_tail": said[-1500:] if "Traceback" in said else said[-300:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--after-s", type=float, nargs=2, default=(8.0, 11.0),
                        help="the signal is sent this long after the start, drawn uniformly between the two")
    parser.add_argument("--stops", nargs="+", choices=list(STOPS), default=list(STOPS))
    parser.add_argument("--seed", type=int, default=0, help="of the delays drawn")
    parser.add_argument("--label", default="", help="what code ran (before / after a change)")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    from accelerated_seg.benchmark import machine_info
    from accelerated_seg.files import check_script_output, write_text_atomically

    check_script_output(parser, args.output, result_key="sets")  # before a run: an earlier result of it, or none

    draw = random.Random(args.seed)
    results = {"command": " ".join(sys.argv), "benchmark": "accelerated-seg " + " ".join(COMMAND),
               "label": args.label, "cpu_count": os.cpu_count(), "machine": machine_info(), "stops": {}}
    for name in args.stops:
        signum, to_group = STOPS[name]
        runs = []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as folder:
                runs.append(_one_stop(signum, to_group, draw.uniform(*args.after_s), Path(folder)))
            print(name, {k: v for k, v in runs[-1].items() if k != "stderr_tail"}, flush=True)
        results["stops"][name] = {"runs": len(runs), "with_a_traceback": sum(run["traceback"] for run in runs),
                                  "with_resource_sharer": sum(run["resource_sharer"] for run in runs),
                                  # not in the totals: the sets before the hundred-and-fifth session have no count
                                  "with_processes_left_2s_on": sum(run["processes_left_2s_on"] for run in runs),
                                  "statuses": sorted({str(run["status"]) for run in runs}), "each": runs}
    summary = {name: {k: v for k, v in stop.items() if k != "each"} for name, stop in results["stops"].items()}
    print(json.dumps(summary, indent=1))
    if args.output:
        write_text_atomically(args.output, json.dumps(_with_the_sets_before(args.output, results), indent=1) + "\n")


def _with_the_sets_before(output: Path, results: dict) -> dict:
    """``output``'s sets with ``results`` added, and their totals; what else it holds kept as it is."""
    kept = json.loads(output.read_text()) if output.exists() else {}
    sets = [*kept.get("sets", []), results]
    totals: dict = {}
    for one_set in sets:
        for name, stop in one_set["stops"].items():
            total = totals.setdefault(name, {"runs": 0, "with_a_traceback": 0, "with_resource_sharer": 0})
            for key in total:
                total[key] += stop[key]
    return {**kept, "totals": totals, "sets": sets}


if __name__ == "__main__":
    main()
