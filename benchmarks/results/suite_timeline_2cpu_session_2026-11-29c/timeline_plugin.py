"""pytest plugin: records each test's start and end per xdist worker into $TIMELINE_OUT (JSON lines).
Used for summary.json here; not part of the suite."""
import json, os, time
_out = os.environ.get("TIMELINE_OUT", "/tmp/timeline.jsonl")
_t = {}
def pytest_runtest_logstart(nodeid, location):
    _t[nodeid] = time.time()
def pytest_runtest_logfinish(nodeid, location):
    with open(_out, "a") as f:
        f.write(json.dumps({"w": os.environ.get("PYTEST_XDIST_WORKER", "main"), "id": nodeid,
                            "start": _t.get(nodeid), "end": time.time()}) + "\n")
