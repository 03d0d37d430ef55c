"""``accelerated-seg train`` under a launch, for probe.py: process 0 is sent SIGINT (Ctrl-C to it alone, a scheduler
signalling one task) at its third step's forward (training's stop: an interrupt on any process ends every process,
status 130, the main process saying the line naming the newest whole checkpoint)."""
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))  # faults


def interrupted_at(call_at: int):
    def hook(call, loss):
        if call == call_at:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # raised here
        return loss

    return hook


if __name__ == "__main__":
    from accelerated_seg.collector import importing_without_collection

    with importing_without_collection():  # as the command imports the stack
        from monai.losses import DiceCELoss
    from faults import loss_forward_with

    if os.environ.get("RANK") == "0":
        DiceCELoss.forward = loss_forward_with(interrupted_at(2))
    from accelerated_seg.cli import end_process, main

    end_process(main(["train", *sys.argv[1:]]))
