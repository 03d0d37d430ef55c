"""Running a launched job from a test without leaving processes behind when it times out.

``subprocess.run(..., timeout=...)`` kills only the process it started. For ``accelerate launch``
that is the launcher: torchrun starts every rank in a session of its own, so the ranks (and their
loader workers) would outlive a timed-out test as orphans, holding CPU for the rest of the suite.
The twenty-second session's CI left two such ranks behind (docs/known_issues.md).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

# How long torchrun's agent gets to stop its ranks after SIGTERM; it waits up to 30 s for them
# before it sends SIGKILL itself.
_GRACE_S = 45


def said_alone(proc: subprocess.CompletedProcess) -> list[str]:
    """The ``error: ...`` lines of a launch's stderr, once no rank's traceback (``[rank0]: ...``) is under them:
    one rank's error that stops every rank (ranks_stop_together.py) is said in one line."""
    assert "[rank0]" not in proc.stderr and "[rank1]" not in proc.stderr, proc.stderr[-3000:]
    return [line for line in proc.stderr.splitlines() if line.startswith("error: ")]


def run_bounded(cmd: list[str], *, timeout: float, **popen_kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)``, but on a timeout
    everything the command started is stopped, and the test fails with the tail of its output.

    The command runs in a new session. On a timeout its process group gets SIGTERM, which torchrun's
    agent (inside ``accelerate launch``) answers by stopping each rank's process group, loader
    workers included; whatever is still running after the grace period gets SIGKILL.
    """
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                          **popen_kwargs) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stdout, stderr = stop_group(proc)
            pytest.fail(f"timed out after {timeout} s, and its processes were stopped: {' '.join(cmd)}\n"
                        f"stdout:\n{stdout[-3000:]}\nstderr:\n{stderr[-3000:]}")
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def stop_group(proc: subprocess.Popen):
    """Stop a command started with ``start_new_session=True`` and everything it launched: SIGTERM to
    its process group, SIGKILL to whatever is left after the grace period. Returns what
    ``proc.communicate()`` collected (None for a stream that was not a pipe)."""
    _signal_group(proc.pid, signal.SIGTERM)
    try:
        return proc.communicate(timeout=_GRACE_S)
    except subprocess.TimeoutExpired:  # retrying communicate() loses no output
        _signal_group(proc.pid, signal.SIGKILL)
        return proc.communicate()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:  # the group has already exited
        pass


# --------------------------------------------------------------------------------------------------
# A signal to the launcher, and the time its processes took to end
# --------------------------------------------------------------------------------------------------

#: torch's agent stopped by a signal waits up to 30 s for its processes after its SIGTERM and 30 s more after its
#: SIGKILL (``shutdown_timeout``, twice). It waits all of it, whatever its processes do, where the signal came as it
#: polled one of them (CPython's ``Popen.poll`` then keeps that process's lock: docs/known_issues.md, "A signal to
#: accelerate launch as its agent polls a process"): a test waits for the launcher that long, and times what our
#: processes do, not the launcher's teardown.
AGENT_TEARDOWN_S = 2 * 30

#: torch's agent's log records (``W1207 00:01:02.345000 123 .../api.py:753] ...``), which name SIGTERM and SIGKILL
#: in words of their own: not lines of ours.
_TORCH_RECORD = re.compile(r"^[DIWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\] ")


@dataclass
class LaunchEnd:
    """What a signalled launch said, its status, and the seconds from the signal to the end of every process it had
    launched (each gone, or dead and not yet reaped) and to the launcher's own end."""

    stdout: str
    stderr: str
    returncode: int
    processes_ended_s: float
    launcher_ended_s: float



def without_torch_records(output: str) -> list[str]:
    """``output``'s lines, torch's agent's log records left out."""
    return [line for line in output.splitlines() if not _TORCH_RECORD.match(line)]


def agent_abandoned_a_process(stderr: str) -> bool:
    """Whether torch's agent, stopped by a signal, gave up waiting for a process it had SIGKILLed ("... abandoning and
    continuing teardown"), as it does for one whose ``Popen`` lock a signal left held: its launcher then ended
    ``AGENT_TEARDOWN_S`` after the signal, whatever the process did."""
    return "abandoning and continuing teardown" in stderr


def launched_processes(launcher: int) -> list[int]:
    """The processes a launcher has started (``accelerate launch`` runs torch's agent in its own process: its
    children are the launch's processes)."""
    return [int(child) for child in Path(f"/proc/{launcher}/task/{launcher}/children").read_text().split()]


def has_ended(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def signal_the_launch(launch: subprocess.Popen, signum: int, *, to_group: bool = True) -> LaunchEnd:
    """``signum`` to the launch's process group (a job's stop, a terminal's Ctrl-C) or to the launcher alone, once
    its processes have started; its output and how long its processes and the launcher took to end."""
    processes = launched_processes(launch.pid)
    assert processes, "the launch has no process yet"
    (os.killpg if to_group else os.kill)(launch.pid, signum)
    return launch_end(launch, processes, time.monotonic())


def launch_end(launch: subprocess.Popen, processes: list[int], since: float) -> LaunchEnd:
    """``launch``'s output (read on a thread of its own, so that no pipe fills while its processes are watched) once
    it has ended, and the seconds from ``since`` (``time.monotonic()``) to the end of ``processes`` and of the launch.
    Waits for the launcher ``AGENT_TEARDOWN_S`` and 30 s more at most."""
    output: dict = {}
    reader = threading.Thread(target=lambda: output.update(zip(("stdout", "stderr"), launch.communicate())),
                              daemon=True)
    reader.start()
    deadline = since + AGENT_TEARDOWN_S + 30
    processes_ended_s = None
    while reader.is_alive() and time.monotonic() < deadline:
        if processes_ended_s is None and all(has_ended(pid) for pid in processes):
            processes_ended_s = time.monotonic() - since
        time.sleep(0.02)
    reader.join(max(0.0, deadline - time.monotonic()))
    assert not reader.is_alive(), f"the launch had not ended {AGENT_TEARDOWN_S + 30} s after the signal"
    launcher_ended_s = time.monotonic() - since
    if processes_ended_s is None:  # ended together with the launcher, between two looks
        assert all(has_ended(pid) for pid in processes), f"processes {processes} outlived their launcher"
        processes_ended_s = launcher_ended_s
    return LaunchEnd(output["stdout"], output["stderr"], launch.returncode, processes_ended_s, launcher_ended_s)
