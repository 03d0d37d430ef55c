"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: the main process's label
maps fail as on a full disk (the other processes write none under ``--split windows``)."""

import os
import sys

import accelerated_seg.inference_cases as inference_cases
from accelerated_seg.cli import end_process, main


def full_disk(*args, **kwargs):
    raise OSError(28, "No space left on device")


if __name__ == "__main__":
    if os.environ.get("RANK") == "0":
        inference_cases.write_case = full_disk  # where segment_cases looks it up
    end_process(main(sys.argv[1:]))
