"""``accelerated-seg`` under a launch, run by test_launcher_report: a refusal every process reaches, the main
process 0.5 s after the others, as when it has more to read first. The launcher's agent stops it as soon as
another process has refused and exited."""

import os
import sys
import time

from accelerated_seg.cli import end_process, main

if __name__ == "__main__":
    if os.environ.get("RANK") == "0":
        time.sleep(0.5)
    end_process(main(sys.argv[1:]))
