"""Probe worker (the hundred-and-eleventh session): predict --split windows under a launch, process 1 killing itself
(SIGKILL) in its share of the first case's windows, so the main process waits for it in the case's reduction (a
pipeline stage's collective, not the last wait); the main process's SIGTERM held back SIGTERM_LATE_S after the kill
(tests/killed_at_the_last_wait_predict.py's way), so gloo's error reaches it first. Run by killed_in_a_reduction.py."""

import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, sys.argv.pop(1))  # the checkout's tests/
from killed_at_the_last_wait_predict import sigterm_late_on_the_other_process  # noqa: E402

if __name__ == "__main__":
    sigterm_late_on_the_other_process()  # before the imports below
    import accelerated_seg.inference_distributed as inference_distributed

    share_call = inference_distributed.WindowShare.__call__

    def killed_in_its_share(self, windows):
        if os.environ.get("RANK") == "1" and self.calls == 1:
            at = Path(os.environ["KILLED_AT"])
            at.with_suffix(".part").write_text(repr(time.time()))
            at.with_suffix(".part").rename(at)
            os.kill(os.getpid(), signal.SIGKILL)
        return share_call(self, windows)

    inference_distributed.WindowShare.__call__ = killed_in_its_share
    from accelerated_seg.cli import end_process, main

    end_process(main(sys.argv[1:]))
