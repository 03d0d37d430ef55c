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
"""

from __future__ import annotations

import json
import os
import time


def leave_for_the_launcher(message: str) -> None:
    """Write ``error: <message>`` where torch elastic's failure report shows it, if this process
    was started by it; every rank that knows the error should, since the report shows the rank
    that failed first. Best effort: the line has been printed, and a file that cannot be written
    only leaves the launcher's link where the message would be."""
    path = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if not path:
        return
    line = f"error: {message}"
    # The form torch's ErrorHandler.record_exception writes; the report prints "py_callstack".
    report = {"message": {"message": line, "extraInfo": {"py_callstack": line, "timestamp": str(int(time.time()))}}}
    try:
        with open(path, "w") as file:
            json.dump(report, file)
    except OSError:
        pass
