"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: the main process stops the launch in
its share of the second case (``--split windows``: the other process waits for it in that case's collective), with a
bug of its own (MAIN_STOP=bug) or a SIGTERM to it alone (sigterm: a job's stop that reached its node only). With
END_AFTER_THE_STORE set (and KILLED_RANK=0), the other process's watcher, once it has seen the stop, waits for the
launch's store to end before its end reads the store (killed_at_the_last_wait_predict.py), as a busy machine can hold
it (the hundred-and-twenty-second session: benchmarks/results/stop_store_dies_in_end_2026-12-07/)."""
import os
import signal
import sys
import time

from killed_at_the_last_wait_predict import end_after_the_store_on_the_other_process  # beside it
from one_rank_out_of_memory_predict import failing_in_the_second_case


def stopped() -> None:
    if os.environ["MAIN_STOP"] == "sigterm":
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(60)  # its stop raised meanwhile, on the main thread; its watcher ends the process
    raise ValueError("a bug in predicting")


if __name__ == "__main__":
    if os.environ.get("RANK") == "0":
        failing_in_the_second_case("case_prediction", stopped)
    end_after_the_store_on_the_other_process()
    from accelerated_seg.cli import end_process, main

    end_process(main(sys.argv[1:]))
