"""Running a launched job from a test without leaving processes behind when it times out.

``subprocess.run(..., timeout=...)`` kills only the process it started. For ``accelerate launch``
that is the launcher: torchrun starts every rank in a session of its own, so the ranks (and their
loader workers) would outlive a timed-out test as orphans, holding CPU for the rest of the suite.
The twenty-second session's CI left two such ranks behind (docs/known_issues.md).
"""

from __future__ import annotations

import os
import signal
import subprocess

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
