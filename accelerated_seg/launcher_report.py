"""Our one-line error in the failure report of the launcher, not only above it.

Under ``accelerate launch`` with several processes (torchrun's elastic agent), a rank that ends
with a non-zero status makes the launcher raise ``ChildFailedError``: a 20-line traceback of the
launcher itself and a table of the failed ranks whose ``traceback`` rows say only "To enable
traceback see: https://pytorch.org/docs/stable/elastic/errors.html". It is printed after our
``error: <message>`` line and buries it, at the end of the log where a user looks first.

torch elastic gives each rank a file to leave its error in (``TORCHELASTIC_ERROR_FILE``, the file
its ``@record`` decorator writes an uncaught exception to) and prints that text in the table, in
the place of the link. Our errors are not uncaught exceptions (they end the process with a status
and one line), so this writes the file in the same JSON form with the line itself. Outside such a
launcher nothing is written. The launcher still ends with status 1 whatever the ranks' status (2
for bad input): it reports that the job failed, not how.

The line itself, on stderr, is said once per node by ``say_the_error``, whichever rank refuses first.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from typing import TextIO

from .files import write_text_atomically


def leave_for_the_launcher(message: str, error: bool = True) -> None:
    """Write ``error: <message>`` where torch elastic's failure report shows it, if this process
    was started by it; every rank that knows the error should, since the report shows the rank
    that failed first. ``error=False``: ``message`` says no error, and is written as it is, without
    ``error: ``: an interrupt (Ctrl-C, a scheduler's SIGINT, asked for; the ninety-ninth session's),
    or stdout's reader gone (``| head``; the hundred-and-second session's), each ending every rank
    (``ranks_stop_together``). Best effort: the line has been printed, and a file that cannot be
    written only leaves the launcher's link where the message would be.

    Written whole or not at all (beside it, then renamed over it; since the hundred-and-fourth session): a rank's
    thread and its watcher may each write it as the process ends, and torch's launcher answers a file cut short with
    a traceback of its own ("Failed to parse reply file") in the place of its table."""
    path = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if not path:
        return
    line = f"error: {message}" if error else message
    # The form torch's ErrorHandler.record_exception writes; the report prints "py_callstack".
    report = {"message": {"message": line, "extraInfo": {"py_callstack": line, "timestamp": str(int(time.time()))}}}
    with contextlib.suppress(OSError):
        write_text_atomically(path, json.dumps(report))


#: How long a rank that does not say the line waits for the one saying it: a print takes microseconds, and
#: a rank stopped between its claim and its print (killed from outside) must not hold the others long.
SAYING_WAIT_S = 2.0


def say_the_error(message: str) -> None:
    """``error: <message>`` once on this node's stderr, by whichever of its ranks refuses first, and in the
    launcher's report (``leave_for_the_launcher``) by every rank.

    Every rank reaches the same refusal, but not at the same instant. When the main rank alone printed
    it, torch elastic's agent stopped that rank (SIGTERM) as soon as another rank had refused and
    exited, often before its print: the line was missing from stderr in 5 of 5 launches where the main
    rank refused 0.3 s later (ninety-third session), left only in the failure table. So under torch
    elastic the first rank to refuse says it, whatever its rank: it claims a file in the folder the
    agent made for this attempt's ranks on this node, and the others, finding it claimed, wait (2 s at
    most) for its line before they exit, since their exit is what lets the agent stop it. Outside
    torch elastic (one process, srun, mpirun) nothing stops a rank early: each node's first rank says
    it, as before.
    """
    say_once_on_this_node(f"error: {message}", sys.stderr, message)


def say_once_on_this_node(line: str, file: TextIO, for_the_launcher: str, error: bool = True) -> None:
    """``line`` once on this node's ``file``, by whichever of its ranks says it first (``say_the_error``), and
    ``for_the_launcher`` in the launcher's report (``leave_for_the_launcher``, ``error`` as there) by every rank.
    Also an interrupt's line where a launch's ranks cannot reach one another yet (interrupted_run.py): SIGINT to one
    rank alone ends that rank, which then says it, whatever its rank; a terminal's Ctrl-C reaches every rank, and
    the first says it."""
    claim = _claim_file()
    says = _claimed(claim) if claim else None
    if says is None:  # outside torch elastic, or its folder takes no file
        claim, says = None, os.environ.get("LOCAL_RANK", os.environ.get("RANK", "0")) == "0"
    if says:
        say_whole(line, file)
        if claim:
            _mark_said(claim)
    leave_for_the_launcher(for_the_launcher, error=error)
    if claim and not says:
        _wait_until_said(claim)


def say_whole(line: str, file: TextIO) -> None:
    """``line`` and its newline in one write: a launch's processes and its agent share the terminal, and stderr
    written through (as Python writes it to a pipe) took ``print``'s line and newline as two writes, between which
    the agent's log line could land: "... run the same command againW1206 ... Sending process ... closing signal"
    (a CI run of the hundred-and-nineteenth session)."""
    file.write(line + "\n")
    file.flush()


def _claim_file() -> str | None:
    """``<log_dir>/<run>/attempt_<n>/error_said`` beside the ranks' ``<local_rank>/error.json``: one folder
    for the ranks of one node and attempt (torch makes a run's folder with mkdtemp on each node, even
    under a shared --log_dir). None outside torch elastic, or where the error file is elsewhere."""
    path = os.environ.get("TORCHELASTIC_ERROR_FILE")
    ranks_folder = os.path.dirname(path or "")
    if not path or os.path.basename(ranks_folder) != os.environ.get("LOCAL_RANK"):
        return None
    return os.path.join(os.path.dirname(ranks_folder), "error_said")


def _claimed(claim: str) -> bool | None:
    """Whether this rank is the first to refuse (it made ``claim``); None where no file can be made there."""
    try:
        with open(claim, "x"):
            return True
    except FileExistsError:
        return False
    except OSError:
        return None


def _mark_said(claim: str) -> None:
    try:
        with open(claim, "w") as file:
            file.write("said\n")
    except OSError:  # the others wait their 2 s
        pass


def _wait_until_said(claim: str) -> None:
    deadline = time.monotonic() + SAYING_WAIT_S
    while time.monotonic() < deadline:
        try:
            if os.path.getsize(claim) > 0:
                return
        except OSError:
            return
        time.sleep(0.01)
