"""How tests start processes: tests/processes.py stops a launched job that hangs whole, ranks and
their children included; tests/startup/sitecustomize.py starts each without transformers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from processes import run_bounded, stop_group

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


def test_a_command_past_its_timeout_fails_the_test_with_everything_it_started_stopped(tmp_path):
    """run_bounded's timeout: the test fails saying so, and the command's process group is stopped, a forked
    child included (the launch below is stopped as soon as its ranks run, by the same stop_group)."""
    script = tmp_path / "hang.py"
    script.write_text(HANGING_RANK)
    with pytest.raises(pytest.fail.Exception, match="timed out after 3 s"):
        run_bounded([sys.executable, str(script), str(tmp_path)], timeout=3, env={**os.environ, "RANK": "0"})
    _assert_stopped([int(p) for p in (tmp_path / "rank0.pids").read_text().split()])


@pytest.mark.distributed
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_timed_out_launch_leaves_no_rank_or_worker_behind(tmp_path):
    """Stopped once both ranks and their children run, as run_bounded stops it on a timeout (the test above): a
    fixed 20 s timeout spent most of this test's time waiting (until the ninety-sixth session)."""
    script = tmp_path / "hang.py"
    script.write_text(HANGING_RANK)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(port),
           str(script), str(tmp_path)]
    env = {**os.environ, "ACCELERATE_USE_CPU": "true"}
    written = [tmp_path / f"rank{rank}.pids" for rank in (0, 1)]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                          env=env) as proc:
        try:
            deadline = time.monotonic() + 120
            while not all(path.exists() for path in written) and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(0.2)  # a file exists from its open on: its pids are written a moment later
        finally:
            stop_group(proc)
    assert all(path.exists() for path in written), f"no ranks within 120 s (exit {proc.returncode})"
    _assert_stopped([int(p) for path in written for p in path.read_text().split()])


def _assert_stopped(pids: list[int]) -> None:
    deadline = time.monotonic() + 10  # the orphaned children are reaped by whoever adopted them
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in pids if _running(pid)]


def test_a_test_process_starts_as_a_default_install_without_transformers():
    """conftest.py hides transformers from the processes tests start (tests/startup/sitecustomize.py):
    they import the package, MONAI's networks and accelerate's command line (which asks whether
    transformers is there) as a default install does. If the hiding stopped working, nothing else
    would fail; the suite would only be minutes slower."""
    code = ("import importlib.util, sys, accelerate.commands.accelerate_cli, accelerated_seg.models\n"
            "import monai.networks.nets as nets\n"
            "print(importlib.util.find_spec('transformers'), nets.UNet.__name__, 'transformers' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.split() == ["None", "UNet", "False"], proc.stderr[-2000:]
