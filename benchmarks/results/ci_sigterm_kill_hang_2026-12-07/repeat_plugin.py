"""A pytest plugin for repeat_loop.sh (h142, the hundred-and-twenty-sixth session): each test selected run REPEAT
times in one pytest process (its module's data fixture made once, where a pytest process a run spent 90 s a run at a
load of 10, most of it in the start and the fixture), none begun after UNTIL (date's HH:MM, UTC: skipped); each run's
outcome, time, the load and the "stood.*" files left in its folder (tests/where_it_stood.py: none where it passed) one
line in OUT. Used as: PYTHONPATH=<this folder>:$PYTHONPATH pytest -p repeat_plugin TEST ..."""

import os
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest


def pytest_collection_modifyitems(items):
    repeated = []
    for item in items:
        for run in range(1, int(os.environ.get("REPEAT", "1")) + 1):
            repeated.append(pytest.Function.from_parent(
                item.parent, name=f"{item.name}#{run}", callspec=item.callspec, callobj=item.obj,
                fixtureinfo=item._fixtureinfo, keywords=item.keywords, originalname=item.originalname))
    items[:] = repeated


def pytest_runtest_setup(item):
    if datetime.now(timezone.utc).strftime("%H:%M") >= os.environ.get("UNTIL", "99:99"):
        pytest.skip("past UNTIL")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call":
        return
    folder = item.funcargs.get("tmp_path")
    left = len(list(Path(folder).glob("stood.*"))) if folder else "?"
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    line = (f"{os.environ.get('LANE', '')} {item.name}: {report.outcome} in {report.duration:.1f} s; load {load}; "
            f"stood files left {left}; ended {time.strftime('%H:%M:%S', time.gmtime())}\n")
    with open(os.environ["OUT"], "a") as out:
        out.write(line)
