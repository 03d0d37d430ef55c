"""``accelerated-seg train`` as the command runs it (``cli.main``, ended by ``cli.end_process``), process KILLED_RANK
killing itself outright (SIGKILL, as the OOM killer or its node's failure would) at its training loss's forward
KILLED_CALL (0-based), the time written to KILLED_AT first; ROLL_CALL_S, where given, the roll call's wait
(``lost_processes``). Run with tests/ on PYTHONPATH (faults.py); for test_training_process_lost.py and
benchmarks/results/training_peer_lost_2026-12-06/two_nodes.py."""
import os
import signal
import sys
import time
from pathlib import Path


def killed_at(call_at: int):
    def hook(call, loss):
        if call == call_at:
            Path(os.environ["KILLED_AT"]).write_text(repr(time.time()))
            os.kill(os.getpid(), signal.SIGKILL)
        return loss

    return hook


if __name__ == "__main__":
    from accelerated_seg.collector import importing_without_collection

    with importing_without_collection():  # as the command imports the stack (collector.py says why)
        from monai.losses import DiceCELoss
    from faults import loss_forward_with

    if "ROLL_CALL_S" in os.environ:  # a roll call's wait longer than any slowness of a loaded machine's
        from accelerated_seg import lost_processes

        lost_processes.ROLL_CALL_S = float(os.environ["ROLL_CALL_S"])
    if os.environ.get("RANK") == os.environ["KILLED_RANK"]:
        DiceCELoss.forward = loss_forward_with(killed_at(int(os.environ["KILLED_CALL"])))
    from accelerated_seg.cli import end_process, main

    end_process(main(["train", *sys.argv[1:]]))
