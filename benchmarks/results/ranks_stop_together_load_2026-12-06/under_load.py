"""tests/test_ranks_stop_together.py's tests run again and again beside busy processes, as CI runs them beside other
tests' launches: which fail, how often, and with what? (the hundred-and-sixteenth session: one failed once in a CI run)

    cd <worktree> && PYTHONPATH=<worktree> /work/main/.venv/bin/python \
        benchmarks/results/ranks_stop_together_load_2026-12-06/under_load.py RUNS BUSY [PIN] [-k EXPRESSION] \
        > .../<name>.txt

RUNS pytest runs of the file (or of the tests ``-k`` picks), each beside BUSY processes spinning
(``python -c "while 1: pass"``); PIN "pinned": the tests and the busy processes all on CPU 0 (``taskset -c 0``), else
anywhere. Each run's failures are counted by test, with the assertion's last line; the busy processes are this
script's own children, ended by their ids.
"""

import collections
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree


def main() -> None:
    runs, busy = int(sys.argv[1]), int(sys.argv[2])
    pinned = len(sys.argv) > 3 and sys.argv[3] == "pinned"
    picked = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None
    pin = ["taskset", "-c", "0"] if pinned else []
    spinning = [subprocess.Popen([*pin, sys.executable, "-c", "while 1: pass"]) for _ in range(busy)]
    failures: collections.Counter = collections.Counter()
    said: dict[str, list[str]] = collections.defaultdict(list)
    took: list[float] = []
    print(f"{runs} runs, {busy} busy processes beside, {'all on CPU 0' if pinned else 'unpinned'}, "
          f"{'-k ' + picked if picked else 'the whole file'}; {os.cpu_count()} CPUs", flush=True)
    try:
        for run in range(1, runs + 1):
            with tempfile.TemporaryDirectory() as folder:
                report = os.path.join(folder, "report.xml")
                command = [*pin, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                           "tests/test_ranks_stop_together.py", *(["-k", picked] if picked else [])]
                started = time.monotonic()
                subprocess.run(command, capture_output=True, text=True, timeout=1800)
                took.append(time.monotonic() - started)
                failed = []
                for case in ElementTree.parse(report).getroot().iter("testcase"):
                    for failure in [*case.iter("failure"), *case.iter("error")]:
                        failed.append(case.get("name"))
                        last = [line for line in (failure.get("message") or "").splitlines() if line.strip()]
                        said[case.get("name")].append(re.sub(r"\s+", " ", last[0] if last else "")[:200])
                failures.update(failed)
                print(f"run {run}: {took[-1]:.0f} s, failed: {', '.join(failed) or 'none'}", flush=True)
                for name in failed:
                    print(f"    {name}: {said[name][-1]}", flush=True)
    finally:
        for process in spinning:
            process.kill()
            process.wait()
    print(f"\n{sum(failures.values())} failures in {runs} runs ({min(took):.0f}-{max(took):.0f} s a run)")
    for name, count in failures.most_common():
        print(f"  {count} of {runs}: {name}")
        for message in sorted(set(said[name])):
            print(f"      {message}")


if __name__ == "__main__":
    main()
