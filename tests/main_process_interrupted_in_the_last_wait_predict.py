"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: the main process is interrupted (a
SIGINT to it alone) as the last wait for every process returns, every case written or failed by then."""

import os
import sys

from accelerated_seg.cli import end_process, main

from one_rank_bug_predict import interrupted_as_the_last_wait_returns  # beside it

if __name__ == "__main__":
    if os.environ.get("RANK") == "0":
        interrupted_as_the_last_wait_returns()
    end_process(main(sys.argv[1:]))
