"""tests/one_rank_bug_predict.py (ONE_RANK_ERROR=slow, ONE_RANK_STAGE=case_prediction: process 1 asleep in its share
of the second case), with what PROBE_MODE changes on process 1, for launched.py:

- ``none``: nothing (the test as it is);
- ``thread_storm``: once process 1 is about to sleep, a thread of its own starts and joins threads without pause, so
  that the kernel may hand the agent's SIGINT to another thread (a watcher's poll starts one each 0.2 s);
- ``elsewhere``: process 1's main thread blocks SIGINT as it sleeps (the test's ONE_RANK_SIGINT_ELSEWHERE): the
  kernel hands it to another thread, always.
"""

import os
import sys
import threading
from pathlib import Path

TESTS = Path(os.environ["PROBE_TESTS"])
sys.path.insert(0, str(TESTS))

import one_rank_bug_predict as script  # noqa: E402 - after the tests' folder is on the path
from one_rank_out_of_memory_predict import failing_in_the_second_case, predict_with_process_1_changed  # noqa: E402

MODE = os.environ.get("PROBE_MODE", "none")


def storm() -> None:
    while True:
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()


def an_error() -> None:
    if MODE == "thread_storm":
        threading.Thread(target=storm, daemon=True).start()
    script.an_error()


if __name__ == "__main__":
    if "ONE_RANK_STACKS_AFTER_S" in os.environ and hasattr(script, "stacks_dumped_after"):
        script.stacks_dumped_after(float(os.environ["ONE_RANK_STACKS_AFTER_S"]))
    predict_with_process_1_changed(lambda: failing_in_the_second_case("case_prediction", an_error))
