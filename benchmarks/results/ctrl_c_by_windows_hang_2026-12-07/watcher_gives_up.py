"""tests/test_ranks_stop_together.py::test_a_watcher_gives_up_at_once_where_the_stores_host_has_ended, its scenario run
again and again (a watcher polling every 0.02 s through a relay to a TCPStore; the relay refuses new connections, then
resets the open ones, as a store's host that has ended): how long from the reset to the watcher's giving up, how long
the failing poll itself took, and how many reconnects it asked. The test's bound was 1.0 s from the reset; it failed
once by 0.2 ms under load (the hundred-and-twenty-third session's CI).

    cd /tmp && PYTHONPATH=<package> /work/main/.venv/bin/python <this> <worktree>/tests <runs> [<busy loops>]
"""
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(sys.argv[1]).resolve()))
import accelerated_seg.ranks_stop_together as rst  # noqa: E402
from test_ranks_stop_together import _group_through_a_relay  # noqa: E402

rst.POLL_S = 0.02
busy = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(int(sys.argv[3]) if len(sys.argv) > 3
                                                                                    else 0)]
reconnect, poll = rst._reconnect, rst._poll
rows = []
try:
    for run in range(int(sys.argv[2])):
        group = _group_through_a_relay("127.0.0.1")
        relay, _ = next(group)
        answers, polls = [], []

        def _reconnect():
            answers.append(reconnect())
            return answers[-1]

        def _poll(store, stop):
            began = time.monotonic()
            try:
                return poll(store, stop)
            finally:
                polls.append(time.monotonic() - began)

        rst._reconnect, rst._poll = _reconnect, _poll
        watcher = rst._Watcher(f"accelerated_seg/probe/{run}/", str)
        watcher.start()
        time.sleep(0.2)
        relay.refuse()
        relay.reset()
        reset = time.monotonic()
        watcher.join(30)
        gave_up_s = time.monotonic() - reset
        rows.append((gave_up_s, polls[-1], answers))
        print(f"run {run + 1}: gave up {gave_up_s * 1000:.1f} ms after the reset; its last poll took "
              f"{polls[-1] * 1000:.1f} ms; reconnects {answers}", flush=True)
        rst._reconnect, rst._poll = reconnect, poll
        next(group, None)  # the group destroyed
finally:
    for loop in busy:
        loop.kill()
late = [row for row in rows if row[0] >= 1.0]
print(f"# {len(rows)} runs: gave up within {min(r[0] for r in rows) * 1000:.1f}-{max(r[0] for r in rows) * 1000:.1f} ms "
      f"of the reset; {len(late)} at 1.0 s or more (the old bound); reconnects asked per run: "
      f"{sorted({len(r[2]) for r in rows})}; the failing poll at most {max(r[1] for r in rows) * 1000:.1f} ms")
