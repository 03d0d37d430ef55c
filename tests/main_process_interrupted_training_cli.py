"""``accelerated-seg train`` as the command runs it, the main process sent SIGINT (Ctrl-C to it alone, a scheduler
signalling one task) at its training loss's forward INTERRUPTED_CALL (0-based); with END_AFTER_THE_STORE set (and
KILLED_RANK=0), the other process's watcher, once it has seen the stop, waits for the launch's store to end before its
end reads the store (killed_at_the_last_wait_predict.py), as a busy machine can hold it (the hundred-and-twenty-second
session: benchmarks/results/stop_store_dies_in_end_2026-12-07/). Run with tests/ on PYTHONPATH (faults.py)."""
import os
import signal
import sys
import time


def interrupted_at(call_at: int):
    def hook(call, loss):
        if call == call_at:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # raised here, by Python's handler
        return loss

    return hook


if __name__ == "__main__":
    from accelerated_seg.collector import importing_without_collection

    with importing_without_collection():  # as the command imports the stack (collector.py says why)
        from monai.losses import DiceCELoss
    from faults import loss_forward_with
    from killed_at_the_last_wait_predict import end_after_the_store_on_the_other_process

    if os.environ.get("RANK") == "0":
        DiceCELoss.forward = loss_forward_with(interrupted_at(int(os.environ["INTERRUPTED_CALL"])))
    end_after_the_store_on_the_other_process()
    from accelerated_seg.cli import end_process, main

    end_process(main(["train", *sys.argv[1:]]))
