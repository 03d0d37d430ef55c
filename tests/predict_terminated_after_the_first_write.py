"""``accelerated-seg predict`` in one process, sent SIGTERM (as a time limit sends it, to the process) once its first
case is written, run by test_inference_pipeline: the SIGTERM comes as the next case is read or segmented."""

import itertools
import os
import signal
import sys

import accelerated_seg.inference_cases as inference_cases
from accelerated_seg.cli import end_process, main


def terminated_after_the_first_write() -> None:
    """``inference_cases.write_case`` (on the pipeline's writing thread) sends SIGTERM to this process after the first
    case."""
    write_case, calls = inference_cases.write_case, itertools.count(1)

    def write_case_then_terminated(*args, **kwargs):
        written = write_case(*args, **kwargs)
        if next(calls) == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        return written

    inference_cases.write_case = write_case_then_terminated


if __name__ == "__main__":
    terminated_after_the_first_write()
    end_process(main(sys.argv[1:]))
