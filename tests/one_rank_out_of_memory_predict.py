"""``accelerated-seg predict --split windows`` under a launch, run by test_inference_distributed: process 1 runs
out of memory in its share of the second case's windows, 1 s in (the main process has then begun writing the first
case), and waits there as a process stuck in a collective would."""

import itertools
import os
import sys
import time
from collections.abc import Callable

from accelerated_seg.cli import end_process, main
from accelerated_seg.collector import importing_without_collection

with importing_without_collection():  # as predict imports the stack (collector.py says why): 0.6 CPU-s less a rank
    import torch

    import accelerated_seg.inference_cases as inference_cases


def failing_in_the_second_case(stage: str, fail: Callable[[], None]) -> None:
    """``inference_cases.<stage>`` (where segment_cases looks it up) calls ``fail()`` (which raises) for the second
    case, instead of its work."""
    work, calls = getattr(inference_cases, stage), itertools.count(1)

    def changed(*args, **kwargs):
        if next(calls) == 2:
            fail()
        return work(*args, **kwargs)

    setattr(inference_cases, stage, changed)


def predict_with_process_1_changed(change: Callable[[], None], stays: bool = True) -> None:
    """``accelerated-seg predict`` with ``sys.argv``, ``change()`` made on process 1 first; process 1 then stays
    as a process stuck in a collective would (one_rank_bug_predict.py too), unless not ``stays``."""
    if os.environ.get("RANK") == "1":
        change()
    status = main(sys.argv[1:])
    if os.environ.get("RANK") == "1" and stays:  # a process that went on would stop no other: only the watcher ends it
        time.sleep(600)
    end_process(status)


def out_of_memory() -> None:
    time.sleep(1.0)
    raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB.")


if __name__ == "__main__":
    predict_with_process_1_changed(lambda: failing_in_the_second_case("case_prediction", out_of_memory))
