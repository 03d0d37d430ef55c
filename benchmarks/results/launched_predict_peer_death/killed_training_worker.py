"""tests/dist_worker.py, its rank SIGNAL_RANK's SIGNAL sent at forward call SIGNAL_CALL as there, the time written to
KILLED_AT first (two_nodes_training.py). Run with the checkout's tests/ on PYTHONPATH."""
import os
import time
from pathlib import Path

import faults


def signal_on(call_at: int, signum: int):
    def hook(call, loss):
        if call == call_at:
            Path(os.environ["KILLED_AT"]).write_text(repr(time.time()))
            os.kill(os.getpid(), signum)
        return loss

    return hook


faults.signal_on = signal_on  # before dist_worker imports it

if __name__ == "__main__":
    import dist_worker

    dist_worker.main()
