"""Command: cd /tmp/wt_h140 && benchmarks/results/ci_sigterm_kill_hang_2026-12-07/loaded.sh BUSY RUNS [CASE...]
(h140: ../sigterm_before_a_kill_flaky_2026-12-06/probe_flaky.py with a watchdog: a launch's processes alive 12 s
after KILLED_AT have their /proc signal masks and threads' wait channels written, and a SIGUSR2 for faulthandler's
stacks (noting_worker.py); all of it kept in the failed launch's file.)
(BUSY busy loops beside it; this script run by it as PYTHONPATH=$PWD .venv/bin/python probe_flaky.py RUNS [CASE...]).

The launch of tests/test_inference_distributed.py::test_a_jobs_sigterm_just_before_a_process_is_killed_ends_the_
launch_at_once_naming_both, RUNS times for each CASE ("1", "0", "1 after it answered", "0 after it answered"; all
four by default), its worker run through noting_worker.py (each step of the stop noted, nothing changed). Each launch:
the test's four assertions kept or not (line, status, bound, files), and when each step came, in seconds after the
time the test's bound counts from (KILLED_AT, written as the killed process begins its job's stop: its SIGTERMs to
the agent and the other process, then its wait for the stop to be published, and for its answer where ANSWERED_FIRST,
then its SIGKILL). The launcher's stderr of every launch that fails an assertion is kept whole beside this script
(failed_<time>_<case>.txt)."""

import contextlib
import json
import signal
import threading
import os
import re
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[2] / "tests"
sys.path.insert(0, str(TESTS))

import test_inference_distributed as launched  # noqa: E402 - its data, its launch and its stop lines

CASES = {"1": ("1", ""), "0": ("0", ""), "1 after it answered": ("1", "1"), "0 after it answered": ("0", "1")}
BOUND_S = 5.0  # the test's, from KILLED_AT to the launch's end
AGENT_LINE = re.compile(r"^W(\d{4}) (\d\d:\d\d:\d\d\.\d+) \d+ \S+\] Received 15 death signal", re.M)


def data(root: Path) -> Path:
    """The test module's data fixture, called as its function."""
    factory = type("Factory", (), {"mktemp": staticmethod(lambda name: Path(tempfile.mkdtemp(prefix=name,
                                                                                            dir=root)))})
    return launched.data._get_wrapped_function()(factory)


def one_launch(data_root: Path, case: str, tmp: Path) -> dict:
    killed_rank, answered_first = CASES[case]
    log, killed_at = tmp / "steps.jsonl", tmp / "killed"
    os.environ.update(KILLED_RANK=killed_rank, ANSWERED_FIRST=answered_first, KILLED_AT=str(killed_at),
                      PROBE_LOG=str(log), DIED_AT=str(tmp / "died"), ENDED_AT=str(tmp / "survivor_ended"))  # the
    # last two for the worker since the hundred-and-nineteenth session's change of the test; unread here
    args = launched.predict_two_scans_args(data_root, tmp, "sigterm_before_a_kill_predict.py", "--split", "cases")
    args[0] = str(HERE / "noting_worker.py")
    done = threading.Event()
    dog = threading.Thread(target=watchdog, args=(killed_at, tmp, done), daemon=True)
    dog.start()
    try:
        proc = launched.launch_two(tmp / "x", args, timeout=150)
    finally:
        done.set()
    ended = time.time()
    start = float(killed_at.read_text())
    out = tmp / "out"
    said = launched.said_at_a_sigterm_before_a_kill(out, killed_rank, answered_first)  # since ad99093d's next commit
    kept = {"line": launched.stop_lines(proc.stderr) == [said],
            "status": proc.returncode == 143 and "Traceback" not in proc.stderr,
            "bound": ended - start < BOUND_S,
            "files": sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["small_0.nii.gz",
                                                                                             "small_1.nii.gz"]}
    steps = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    steps += [{"rank": "agent", "step": "agent: received SIGTERM", "at": agent_at(match)}
              for match in AGENT_LINE.finditer(proc.stderr)]
    steps.sort(key=lambda step: step["at"])
    return {"case": case, "kept": kept, "ended_s": round(ended - start, 2), "status": proc.returncode,
            "said": launched.stop_lines(proc.stderr),
            "steps": [(step["rank"], step["step"], round(step["at"] - start, 3)) for step in steps],
            "stderr": proc.stderr}


def workers(killed_at: Path) -> dict[int, str]:
    """The launch's processes (pid: RANK) that have KILLED_AT=killed_at in their environment."""
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                env = Path(f"/proc/{name}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if f"KILLED_AT={killed_at}".encode() in env:
                found.update({int(name): item[5:].decode() for item in env if item.startswith(b"RANK=")})
    return found


def watchdog(killed_at: Path, tmp: Path, done: threading.Event) -> None:
    """Once the launch is 12 s past KILLED_AT: each process's signal state and threads written to tmp/diag.txt, and a
    SIGUSR2 for its stacks."""
    while not done.wait(0.5):
        if killed_at.exists() and time.time() - float(killed_at.read_text()) > 12:
            lines = []
            for pid, rank in workers(killed_at).items():
                with contextlib.suppress(OSError):
                    status = Path(f"/proc/{pid}/status").read_text().splitlines()
                    lines.append(f"process {rank} (pid {pid}): " + "; ".join(
                        line for line in status if line.split(":")[0] in ("State", "SigBlk", "SigIgn", "SigCgt",
                                                                             "SigPnd", "ShdPnd", "Threads")))
                    for task in sorted(os.listdir(f"/proc/{pid}/task")):
                        with contextlib.suppress(OSError):
                            comm = Path(f"/proc/{pid}/task/{task}/comm").read_text().strip()
                            wchan = Path(f"/proc/{pid}/task/{task}/wchan").read_text().strip()
                            tstatus = Path(f"/proc/{pid}/task/{task}/status").read_text().splitlines()
                            state = [line for line in tstatus if line.startswith(("State", "SigBlk"))]
                            lines.append(f"    task {task} {comm}: {wchan}; {'; '.join(state)}")
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGUSR2)
            (tmp / "diag.txt").write_text("\n".join(lines) + "\n")
            return


def agent_at(match: re.Match) -> float:
    """torch's log time (local, this year) as time.time()'s."""
    month_day, clock = match.groups()
    now = datetime.now()
    local = datetime.strptime(f"{now.year}{month_day} {clock}", "%Y%m%d %H:%M:%S.%f")
    return local.timestamp()


def main(runs: int, cases: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="flaky_probe_") as root:
        data_root = data(Path(root))
        print(f"# {runs} run(s) of {cases}; {datetime.now(timezone.utc):%H:%M:%S} UTC, load "
              f"{open('/proc/loadavg').read().split()[:3]}", flush=True)
        failed = 0
        for run in range(1, runs + 1):
            for case in cases:
                tmp = Path(tempfile.mkdtemp(prefix="launch_", dir=root))
                result = one_launch(data_root, case, tmp)
                verdict = "kept" if all(result["kept"].values()) else "FAILED " + ",".join(
                    name for name, kept in result["kept"].items() if not kept)
                load = open("/proc/loadavg").read().split()[0]
                print(f"run {run} [{case}]: {verdict}; launch ended {result['ended_s']} s after KILLED_AT, status "
                      f"{result['status']}, load {load}", flush=True)
                for rank, step, at in result["steps"]:
                    print(f"    {at:7.3f} s  process {rank}: {step}")
                if verdict != "kept":
                    failed += 1
                    print(f"    said: {result['said']}")
                    name = f"failed_{datetime.now(timezone.utc):%H%M%S}_{case.replace(' ', '_')}.txt"
                    extra = "".join(f"\n# {each.name}\n{each.read_text()}" for each in sorted(tmp.glob("*"))
                                    if each.name == "diag.txt" or each.name.endswith(".stacks"))
                    (HERE / name).write_text(f"# {case}: {verdict}; launch ended {result['ended_s']} s after "
                                             f"KILLED_AT\n{result['stderr']}{extra}")
                    print(f"    its stderr: {name}")
        print(f"# {failed} failed of {runs * len(cases)}; {datetime.now(timezone.utc):%H:%M:%S} UTC, load "
              f"{open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:] or list(CASES))
