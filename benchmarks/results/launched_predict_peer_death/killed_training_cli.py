"""``accelerated-seg train`` (cli.main, ended by cli.end_process as the command is), process SIGNAL_RANK SIGKILLing
itself at its loss forward SIGNAL_CALL (0-based), the time written to KILLED_AT first (two_nodes_training.py --cli).
Run with the checkout's tests/ on PYTHONPATH."""
import os
import signal
import sys

from killed_training_worker import signal_on

if __name__ == "__main__":
    from accelerated_seg.collector import importing_without_collection

    with importing_without_collection():
        from monai.losses import DiceCELoss
    from faults import loss_forward_with

    if os.environ.get("RANK") == os.environ["SIGNAL_RANK"]:
        DiceCELoss.forward = loss_forward_with(signal_on(int(os.environ["SIGNAL_CALL"]), signal.SIGKILL))
    from accelerated_seg.cli import end_process, main

    end_process(main(["train", *sys.argv[1:]]))
