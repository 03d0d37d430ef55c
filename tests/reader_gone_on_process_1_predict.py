"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: process 1's stdout is a pipe whose
reader has gone (as ``| head`` leaves it), the main process's is read, so that process 1's first line (``--split
cases``: its "wrote" line) is the one that meets it, whatever the timing. READER_GONE_MET, when given, is made as it
meets it (the time)."""

import io
import os
import sys
import time

from accelerated_seg.cli import end_process, main


class _SaysWhenItMeetsIt(io.TextIOWrapper):
    def write(self, text: str) -> int:
        try:
            return super().write(text)
        except BrokenPipeError:
            with open(os.environ.get("READER_GONE_MET", os.devnull), "w") as met:
                met.write(str(time.time()))
            raise


if __name__ == "__main__":
    if os.environ.get("RANK") == "1":
        reader, writer = os.pipe()
        os.close(reader)
        os.dup2(writer, sys.stdout.fileno())
        os.close(writer)
        sys.stdout = _SaysWhenItMeetsIt(open(sys.stdout.fileno(), "wb", closefd=False), line_buffering=True)
    end_process(main(sys.argv[1:]))
