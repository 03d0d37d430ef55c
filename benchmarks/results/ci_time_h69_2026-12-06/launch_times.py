"""pytest plugin (-p launch_times, this folder on PYTHONPATH): each launch a test makes through
tests/processes.run_bounded, its wall and CPU seconds (user+sys of the launch and all it waited for),
appended as one JSON line to $LAUNCH_TIMES with the test that made it."""
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
import processes  # noqa: E402

_original = processes.run_bounded


def run_bounded(cmd, **kwargs):
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    try:
        return _original(cmd, **kwargs)
    finally:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        script = next((a for a in cmd if a.endswith(".py") or a.startswith("accelerated_seg")), cmd[-1])
        config = next((a for a in cmd if a.endswith(".yaml")), "")
        with open(os.environ["LAUNCH_TIMES"], "a") as f:
            f.write(json.dumps({"test": os.environ.get("PYTEST_CURRENT_TEST", ""), "script": Path(script).name,
                                "profile": Path(config).name, "wall_s": round(time.time() - start, 2),
                                "cpu_s": round(cpu, 2), "load": open("/proc/loadavg").read().split()[:3]}) + "\n")


processes.run_bounded = run_bounded
