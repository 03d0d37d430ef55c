"""Run by tests/test_launched_sigterm.py as two processes of one parent, as torch's agent starts a node's processes:
once both have started (each leaves <READY>.started_<pid>, as the processes of a launch meet), each takes SIGTERM as a
launched predict does (``launched_sigterm.sigterm_as_an_interrupt_unless_one_has_ended``), leaves <READY>_<pid>, and
waits in one C call that goes on through signals (``system("sleep $SLEEP_S")``, as a collective's C++ wait does),
during which Python runs no handler. It ends with status 143 where SIGTERM was raised as a stop, once that call
returns (138 where SIGUSR1 was, the hundred-and-twentieth session's review); 0 where none came. With
BEFORE_THE_MEETING set, the span is the one before the processes meet
(``launched_sigterm.said_once_until_the_processes_meet``, LOCAL_WORLD_SIZE 2): its thread ends the process as a
stop comes, once its line is "said" (<READY>.said, the signal's number)."""

import ctypes
import os
import sys
import time
from pathlib import Path

from accelerated_seg.launched_sigterm import (said_once_until_the_processes_meet,
                                              sigterm_as_an_interrupt_unless_one_has_ended)
from accelerated_seg.sigterm import exit_status

if __name__ == "__main__":
    ready, sleep_s = Path(sys.argv[1]), os.environ["SLEEP_S"]
    Path(f"{ready}.started_{os.getpid()}").touch()
    while len(list(ready.parent.glob(f"{ready.name}.started_*"))) < 2:
        time.sleep(0.01)
    if os.environ.get("BEFORE_THE_MEETING"):
        os.environ["LOCAL_WORLD_SIZE"] = "2"
        with said_once_until_the_processes_meet(lambda signum: Path(f"{ready}.said").write_text(str(signum))):
            Path(f"{ready}_{os.getpid()}").touch()
            ctypes.CDLL(None).system(f"sleep {sleep_s}".encode())
        os._exit(0)
    try:
        with sigterm_as_an_interrupt_unless_one_has_ended():
            Path(f"{ready}_{os.getpid()}").touch()
            ctypes.CDLL(None).system(f"sleep {sleep_s}".encode())
    except KeyboardInterrupt as stop:  # Terminated, StoppedBySIGUSR1: 143, 138
        os._exit(exit_status(stop))
    os._exit(0)
