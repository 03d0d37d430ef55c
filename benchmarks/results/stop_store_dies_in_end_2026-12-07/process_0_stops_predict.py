"""``accelerated-seg predict`` under a launch, for probe.py: process 0 stops the launch in its share of the second case
(``--split windows``: process 1 waits for it in that case's collective). PROBE_STOP=bug: a ValueError of its own;
sigterm: a SIGTERM to it alone (a job's stop that reached node 0 only), which its handler raises as the stop (143)."""
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))  # one_rank_out_of_memory_predict
from one_rank_out_of_memory_predict import failing_in_the_second_case  # noqa: E402


def stopped() -> None:
    if os.environ["PROBE_STOP"] == "sigterm":
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(60)  # its stop raised meanwhile (on the main thread), its watcher ending the process
    raise ValueError("a bug in predicting")


if __name__ == "__main__":
    if os.environ.get("RANK") == "0":
        failing_in_the_second_case("case_prediction", stopped)
    from accelerated_seg.cli import end_process, main

    end_process(main(sys.argv[1:]))
