"""``accelerated-seg`` under a launch, run by test_preemption (and benchmarks/results/sigint_one_rank_outside_steps/
sigint_before_the_processes_meet.py): the process whose RANK is SIGNAL_RANK sends itself SIGINT as it calls
SIGNAL_IN (``module:function``, before the process group exists), once every other process is calling OTHERS_AT (on
its way into the rendezvous, where it waits for this one), having written the time (seconds since the epoch) into
the file SIGNALLED_AT (SIGNAL_TO=launcher: to the agent instead, which sends it on to every process). The others each
leave ``<SIGNALLED_AT>.rank<N>_meeting`` as they call OTHERS_AT."""

import importlib
import os
import signal
import sys
import time
from pathlib import Path

from accelerated_seg.cli import end_process, main
from accelerated_seg.collector import importing_without_collection


def patched(where: str, before_the_call) -> None:
    """``module:function`` made to call ``before_the_call()`` first."""
    module_name, name = where.split(":")
    with importing_without_collection():  # as examples/train.py imports the stack (collector.py says why)
        module = importlib.import_module(module_name)
    original = getattr(module, name)

    def calling(*args, **kwargs):
        before_the_call()
        return original(*args, **kwargs)

    setattr(module, name, calling)


def interrupted_once_the_others_meet() -> None:
    signalled, others = Path(os.environ["SIGNALLED_AT"]), int(os.environ["WORLD_SIZE"]) - 1
    deadline = time.monotonic() + 60
    while len(list(signalled.parent.glob(f"{signalled.name}.rank*_meeting"))) < others:
        assert time.monotonic() < deadline, "the other processes never came to OTHERS_AT"
        time.sleep(0.05)
    signalled.write_text(repr(time.time()))
    # SIGNAL_TO=launcher: to its parent, torch's agent, which sends it on to every rank, as a terminal's Ctrl-C
    os.kill(os.getppid() if os.environ.get("SIGNAL_TO") == "launcher" else os.getpid(), signal.SIGINT)


if __name__ == "__main__":
    rank = os.environ["RANK"]
    if rank == os.environ["SIGNAL_RANK"]:
        patched(os.environ["SIGNAL_IN"], interrupted_once_the_others_meet)
    else:
        patched(os.environ["OTHERS_AT"], Path(f"{os.environ['SIGNALLED_AT']}.rank{rank}_meeting").touch)
    end_process(main(sys.argv[1:]))
