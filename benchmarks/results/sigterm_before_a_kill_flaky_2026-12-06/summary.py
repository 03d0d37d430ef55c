"""Command: cd /tmp/wt_h102 && /work/main/.venv/bin/python benchmarks/results/sigterm_before_a_kill_flaky_2026-12-06/\
summary.py busy2.txt busy4.txt ... (probe_flaky.py's outputs, in this folder)

Where the time of each launch went, from probe_flaky.py's notes: the death after KILLED_AT (the job's stop decided
and published, and in the "after it answered" cases the killed process's answer), the survivor's exit after the death
(what the stop's waits take: the change of the hundred-and-eighteenth session), and the launch's end after the
survivor's exit (torch's agent and accelerate's launcher ending); min / median / max, and how many launches went over
the test's 5 s bound."""

import re
import statistics
import sys
from pathlib import Path

RUN = re.compile(r"^run \d+ \[(.+?)\]: (.+?); launch ended ([\d.]+) s after KILLED_AT")
STEP = re.compile(r"^\s+([\d.]+) s  process (\S+): (.+)$")


def launches(path: Path):
    launch = None
    for line in path.read_text().splitlines():
        if match := RUN.match(line):
            if launch:
                yield launch
            launch = {"case": match[1], "verdict": match[2], "ended": float(match[3]), "steps": []}
        elif launch and (match := STEP.match(line)):
            launch["steps"].append((float(match[1]), match[2], match[3]))
    if launch:
        yield launch


def spans(launch: dict) -> dict:
    at = {step: seconds for seconds, _, step in launch["steps"]}
    died, exited = at.get("dies (SIGKILL of itself)"), at.get("exits")
    return {"death after KILLED_AT": died,
            "survivor's exit after the death": None if died is None or exited is None else exited - died,
            "launch's end after the survivor's exit": None if exited is None else launch["ended"] - exited,
            "launch's end after KILLED_AT": launch["ended"]}


def said(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}" if values else "-"


for name in sys.argv[1:]:
    found = list(launches(Path(__file__).with_name(name)))
    print(f"{name}: {len(found)} launches, {sum(launch['verdict'] != 'kept' for launch in found)} failed, "
          f"{sum(launch['ended'] >= 5 for launch in found)} at 5 s or more after KILLED_AT")
    for case in sorted({launch["case"] for launch in found}):
        each = [spans(launch) for launch in found if launch["case"] == case]
        print(f"  [{case}] {len(each)}:")
        for span in each[0]:
            print(f"    {span}: {said([one[span] for one in each if one[span] is not None])}")
