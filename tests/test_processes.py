"""tests/processes.py: a launched job that hangs is stopped whole, ranks and their children included."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

import pytest

from processes import run_bounded

# Each rank writes its pid and its forked child's (as a DataLoader worker would be), then hangs.
HANGING_RANK = """
import os, sys, time
child = os.fork()
if child == 0:
    time.sleep(3600)
    os._exit(0)
rank = os.environ["RANK"]
with open(os.path.join(sys.argv[1], f"rank{rank}.pids"), "w") as f:
    f.write(f"{os.getpid()} {child}")
time.sleep(3600)
"""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")  # a zombie has stopped; only its exit status is left to collect


@pytest.mark.distributed
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_timed_out_launch_leaves_no_rank_or_worker_behind(tmp_path):
    script = tmp_path / "hang.py"
    script.write_text(HANGING_RANK)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(port),
           str(script), str(tmp_path)]
    env = {**os.environ, "ACCELERATE_USE_CPU": "true"}
    with pytest.raises(pytest.fail.Exception, match="timed out after 20 s"):
        run_bounded(cmd, timeout=20, env=env)
    pids = [int(p) for rank in (0, 1) for p in (tmp_path / f"rank{rank}.pids").read_text().split()]
    deadline = time.monotonic() + 10  # the orphaned children are reaped by whoever adopted them
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in pids if _running(pid)]
