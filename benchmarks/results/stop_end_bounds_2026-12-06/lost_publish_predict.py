"""tests/one_rank_bug_predict.py (ONE_RANK_ERROR=slow, ONE_RANK_STAGE=case_prediction: process 1 asleep in its share
of the second case) with process 1's publish of its stop held 300 s (each of ``_asked``'s tries of it waits that long
before it reaches the store: the store takes nothing of it, answering all else), for lost_publish.py. PROBE_STAYS=1:
process 1 stays 600 s after its command returns, as the tests' script keeps it (sigterm_on_another_thread_2026-12-06's
``lost_publish``); else it ends as its command does, as a real predict's process."""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(os.environ["PROBE_TESTS"])))

import one_rank_bug_predict as script  # noqa: E402 - after the tests' folder is on the path
from one_rank_out_of_memory_predict import failing_in_the_second_case, predict_with_process_1_changed  # noqa: E402

import accelerated_seg.ranks_stop_together as rst  # noqa: E402

if os.environ.get("RANK") == "1":
    asked = rst._asked

    def _asked(prefix, ask):
        if getattr(ask, "__name__", "") != "publish":
            return asked(prefix, ask)
        return asked(prefix, lambda store: (time.sleep(300), ask(store))[1])

    rst._asked = _asked

if __name__ == "__main__":
    predict_with_process_1_changed(lambda: failing_in_the_second_case("case_prediction", script.an_error),
                                   stays=os.environ.get("PROBE_STAYS") == "1")
