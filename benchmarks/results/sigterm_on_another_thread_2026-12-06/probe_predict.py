"""tests/one_rank_bug_predict.py (ONE_RANK_ERROR=slow, ONE_RANK_STAGE=case_prediction: process 1 asleep in its share
of the second case) with what PROBE_MODE changes on the processes PROBE_RANKS names (default "1"), for launched.py:

- ``none``: nothing (the test as it is);
- ``slow_publish``: each ask of the publish (``_asked``'s ``publish``) waits 1.5 s before it reaches the store, so
  both of ``_asked``'s tries (ANSWER_S, 1 s, each) are left waiting, then land;
- ``lost_publish``: each waits 300 s: the publish never lands;
- ``tiny_answer``: ANSWER_S 0.001 s: every poll and ask of the process is taken for unanswered;
- ``thread_storm``: once the process is about to sleep, a thread of its own starts and joins threads without pause
  (a watcher's poll starts one each 0.2 s since the hundred-and-fourteenth session).
"""

import os
import sys
import threading
import time
from pathlib import Path

TESTS = Path(os.environ["PROBE_TESTS"])
sys.path.insert(0, str(TESTS))

import one_rank_bug_predict as script  # noqa: E402 - after the tests' folder is on the path
from one_rank_out_of_memory_predict import failing_in_the_second_case, predict_with_process_1_changed  # noqa: E402

import accelerated_seg.ranks_stop_together as rst  # noqa: E402

MODE = os.environ.get("PROBE_MODE", "none")
HERE = os.environ.get("RANK") in os.environ.get("PROBE_RANKS", "1").split(",")


def delayed_publish(delay_s: float) -> None:
    asked = rst._asked

    def _asked(prefix, ask):
        if getattr(ask, "__name__", "") != "publish":
            return asked(prefix, ask)
        return asked(prefix, lambda store: (time.sleep(delay_s), ask(store))[1])

    rst._asked = _asked


def storm() -> None:
    while True:
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()


def an_error() -> None:
    if HERE and MODE == "thread_storm":
        threading.Thread(target=storm, daemon=True).start()
    script.an_error()


if HERE and MODE == "slow_publish":
    delayed_publish(1.5)
if HERE and MODE == "lost_publish":
    delayed_publish(300.0)
if HERE and MODE == "tiny_answer":
    rst.ANSWER_S = 0.001

if __name__ == "__main__":
    predict_with_process_1_changed(lambda: failing_in_the_second_case("case_prediction", an_error))
