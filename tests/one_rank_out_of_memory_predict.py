"""``accelerated-seg predict --split windows`` under a launch, run by test_inference_distributed: process 1 runs
out of memory in its share of the second case's windows, 1 s in (the main process has then begun writing the first
case), and waits there as a process stuck in a collective would."""

import os
import sys
import time

import torch

import accelerated_seg.inference as inference
from accelerated_seg.cli import end_process, main

case_prediction = inference.case_prediction
cases = 0


def out_of_memory_in_the_second_case(*args, **kwargs):
    global cases
    cases += 1
    if cases == 2:
        time.sleep(1.0)
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB.")
    return case_prediction(*args, **kwargs)


if __name__ == "__main__":
    if os.environ.get("RANK") == "1":
        inference.case_prediction = out_of_memory_in_the_second_case
    status = main(sys.argv[1:])
    if os.environ.get("RANK") == "1":  # a process that went on would stop no other: only the watcher ends it
        time.sleep(600)
    end_process(status)
