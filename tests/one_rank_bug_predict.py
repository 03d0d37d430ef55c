"""``accelerated-seg predict`` under a launch (``--split windows``, or ``cases``), run by test_inference_distributed:
process 1 fails in the second case it reads (by cases: of four, its second, once its first is written), once the main
process has written those before it, and waits there as a process stuck in a collective would. The error
(ONE_RANK_ERROR): a bug; ``data``, a file that process alone finds unusable; ``slow``, none, but a sleep to be
interrupted in; ``interrupt``, a KeyboardInterrupt (a SIGINT to it alone). Where (ONE_RANK_STAGE): the case's reading
(``prepare_case``, the default), its network (``case_prediction``), or before any case: ``setup`` (the windows'
share being set up), ``left_to_predict`` (--continue's reading, before the split), ``checked_outputs`` (the last
of the checks before the work), ``refusals`` (as the gather of the checks' errors returns); or after every case:
``failures`` (as the gather of the cases' failures returns, before the last wait for every process), ``last_wait``
(a SIGINT to process 1 alone as that last wait returns; that process then ends as its command does).
ONE_RANK_STARTED, when given, is made as it raises or sleeps. ONE_RANK_KILLED_AFTER, when given: process 1 is killed
outright (SIGKILL) that many seconds after it sees its error published, before it answers the main process.
ONE_RANK_MAIN_POLL_S, when given: the main process's watcher looks in the store that often (ranks_stop_together's
POLL_S), so that process 1, killed as its own watcher sees its error, is dead before the main process has seen it.
ONE_RANK_SIGINT_ELSEWHERE, when given: process 1's main thread blocks SIGINT as it sleeps, so that the kernel hands a
SIGINT sent to the process to another of its threads, as it may at any time (launched_sigterm's
``_a_wake_for_the_main_thread``). ONE_RANK_STACKS_AFTER_S, when given: every process dumps its threads' stacks on stderr
that many seconds after ONE_RANK_STARTED is made (``stacks_dumped_after``)."""

import itertools
import os
import signal
import sys
import time
from pathlib import Path

from accelerated_seg.collector import importing_without_collection
from accelerated_seg.data.errors import DataError

with importing_without_collection():  # as predict imports the stack (collector.py says why): 0.6 CPU-s less a rank
    import accelerated_seg.inference_distributed as inference_distributed

from one_rank_out_of_memory_predict import failing_in_the_second_case, predict_with_process_1_changed  # beside it


def an_error() -> None:
    output = Path(sys.argv[sys.argv.index("--output") + 1])
    # the line then names them written whole (each under a lock)
    while not all((output / name).exists() for name in MAIN_PROCESS_WRITES) and STAGE not in BEFORE_ANY_CASE:
        time.sleep(0.05)
    if os.environ.get("ONE_RANK_SIGINT_ELSEWHERE"):  # a process-directed SIGINT is then handed to another thread
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    Path(os.environ.get("ONE_RANK_STARTED", os.devnull)).write_text(str(time.time()))  # when it raises
    if "ONE_RANK_KILLED_AFTER" in os.environ:
        killed_when_it_sees_the_stop(float(os.environ["ONE_RANK_KILLED_AFTER"]))
    if os.environ.get("ONE_RANK_ERROR") == "slow":
        time.sleep(300)
    if os.environ.get("ONE_RANK_ERROR") == "interrupt":
        raise KeyboardInterrupt
    if os.environ.get("ONE_RANK_ERROR") == "data":
        raise DataError("small_1.nii.gz: cannot be read (a truncated file)")
    raise ValueError(f"a bug in {IN_WORDS.get(STAGE, 'reading')}")


def stacks_dumped_after(after_s: float) -> None:
    """Every thread's Python stack dumped on stderr ``after_s`` after ONE_RANK_STARTED is made (by process 1, as it
    raises or sleeps), by faulthandler's own thread, whatever the main thread is in: a process still there then (torch's
    agent SIGKILLs 30 s after it sends the stop on) shows where each of its threads waits."""
    import faulthandler
    import threading

    def armed() -> None:
        started = Path(os.environ["ONE_RANK_STARTED"])
        while not started.exists():
            time.sleep(0.1)
        faulthandler.dump_traceback_later(after_s, file=sys.stderr)

    threading.Thread(target=armed, name="stacks-dumped-after", daemon=True).start()


def killed_when_it_sees_the_stop(after_s: float) -> None:
    """This process's watcher, seeing the published error, is killed ``after_s`` later instead of answering the main
    process (as the OOM killer or a node's failure ends a process): the launcher then stops every other process."""
    import accelerated_seg.ranks_stop_together as ranks_stop_together

    def killed(*args):
        time.sleep(after_s)
        os.kill(os.getpid(), signal.SIGKILL)

    ranks_stop_together._Watcher._end = killed


def failing_in_the_setup() -> None:
    def output_channels(config):
        an_error()

    inference_distributed.output_channels = output_channels


def failing_before_the_split() -> None:
    def left_to_predict(*args, **kwargs):
        an_error()

    inference_distributed.left_to_predict = left_to_predict


def failing_in_the_checks() -> None:
    def checked_outputs(*args, **kwargs):
        an_error()

    inference_distributed.checked_outputs = checked_outputs


def failing_as_a_gather_returns(number: int) -> None:
    """accelerate's ``gather_object`` fails on its ``number``-th call, once every process has passed it (where an
    interrupt that came in the collective is raised)."""
    import accelerate.utils

    gather, calls = accelerate.utils.gather_object, itertools.count(1)

    def gather_object(objects):
        gathered = gather(objects)
        if next(calls) == number:
            an_error()
        return gathered

    accelerate.utils.gather_object = gather_object


def interrupted_as_the_last_wait_returns() -> None:
    """A SIGINT to this process as the last wait for every process returns: held there, as one that came in the
    wait, and raised once it is left."""
    wait, calls = inference_distributed.wait_for_every_process, itertools.count(1)

    def wait_for_every_process(accelerator):
        wait(accelerator)
        if next(calls) == LAST_WAIT:
            Path(os.environ.get("ONE_RANK_STARTED", os.devnull)).write_text(str(time.time()))
            os.kill(os.getpid(), signal.SIGINT)

    inference_distributed.wait_for_every_process = wait_for_every_process


STAGE = os.environ.get("ONE_RANK_STAGE", "prepare_case")
#: What a bug says it was in, by stage outside a case's.
IN_WORDS = {"setup": "setting up", "left_to_predict": "continuing", "checked_outputs": "checking the outputs",
            "refusals": "checking", "failures": "gathering"}
#: The stages before any case.
BEFORE_ANY_CASE = ("setup", "left_to_predict", "checked_outputs", "refusals")
#: predict_distributed's waits for every process (``wait_for_every_process``), in the order called: before the
#: gather of the cases' failures, then the last wait.
LAST_WAIT = 2
#: The gathers of predict_distributed, in the order called: the checks' errors, the cases' failures.
GATHERS = {"refusals": 1, "failures": 2}
#: The label maps the main process writes before process 1 fails (by cases, of four scans: small_1 and small_3 are
#: process 1's).
MAIN_PROCESS_WRITES = ("small_0.nii.gz", "small_2.nii.gz") if "cases" in sys.argv else ("small_0.nii.gz",)

if __name__ == "__main__":
    if "ONE_RANK_STACKS_AFTER_S" in os.environ and "ONE_RANK_STARTED" in os.environ:  # every process
        stacks_dumped_after(float(os.environ["ONE_RANK_STACKS_AFTER_S"]))
    if os.environ.get("RANK") == "0" and "ONE_RANK_MAIN_POLL_S" in os.environ:  # before any watcher starts
        import accelerated_seg.ranks_stop_together as ranks_stop_together

        ranks_stop_together.POLL_S = float(os.environ["ONE_RANK_MAIN_POLL_S"])
    predict_with_process_1_changed(
        interrupted_as_the_last_wait_returns if STAGE == "last_wait"
        else failing_in_the_setup if STAGE == "setup" else failing_before_the_split if STAGE == "left_to_predict"
        else failing_in_the_checks if STAGE == "checked_outputs"
        else (lambda: failing_as_a_gather_returns(GATHERS[STAGE])) if STAGE in GATHERS
        else lambda: failing_in_the_second_case(STAGE, an_error), stays=STAGE != "last_wait")
