"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: the main process, its work done, its
last line said and every process past the last wait, writes its pid to AFTER_THE_WORK and sleeps AFTER_THE_WORK_S
seconds as it ends its process group (a busy machine): process 1, done, ends meanwhile with status 0, and the test
stops the launch there, in a run's last moments."""

import os
import sys
import time
from pathlib import Path

from accelerate import PartialState

from accelerated_seg.cli import end_process, main


def main_process_slow_after_the_work() -> None:
    destroy = PartialState.destroy_process_group

    def destroy_process_group(self, *args, **kwargs):
        if os.environ.get("RANK") == "0":
            done = Path(os.environ["AFTER_THE_WORK"])  # whole before the test reads it
            done.with_suffix(".part").write_text(str(os.getpid()))
            done.with_suffix(".part").rename(done)
            time.sleep(float(os.environ.get("AFTER_THE_WORK_S", "60")))
        return destroy(self, *args, **kwargs)

    PartialState.destroy_process_group = destroy_process_group


if __name__ == "__main__":
    main_process_slow_after_the_work()
    end_process(main(sys.argv[1:]))
