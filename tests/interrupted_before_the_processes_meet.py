"""``accelerated-seg`` under a launch, run by test_preemption (and benchmarks/results/sigint_one_rank_outside_steps/
sigint_before_the_processes_meet.py): the process whose RANK is SIGNAL_RANK sends itself SIGINT as it calls
SIGNAL_IN (``module:function``, before the process group exists), once every other process is calling OTHERS_AT (on
its way into the rendezvous, where it waits for this one), having written the time (seconds since the epoch) into
the file SIGNALLED_AT (SIGNAL_TO=launcher: to the agent instead, which sends it on to every process; SIGNAL_TO=group:
to the launcher's process group, as a terminal's Ctrl-C, the agent sending it on; SIGNAL_TO=rank0: to rank 0 alone).
The others each leave ``<SIGNALLED_AT>.rank<N>_meeting`` (their pid) as they call OTHERS_AT. AND_RANK0_WAITING=1: the
signal waits, too, until rank 0 certainly waits in the rendezvous, in torch's C++ (``rank0_waits_in_the_rendezvous``).
AFTER_SIGNAL_S: seconds the signalling process waits once it has sent the signal, before it goes on (to the
rendezvous, where rank 0 waits for it: a probe of how late the others may come). SIGNAL_FROM_A_CALLBACK=1: the signal
is sent from inside a weakref callback, which spins there half a second, so that the SIGINT that reaches this process
(its own, or torch's agent's sent on) is handled inside it, as one lands by chance in importlib's module-lock callback
as an import ends, where Python drops it (dropped_interrupts.py; a CI run's, docs/known_issues.md)."""

import importlib
import os
import signal
import sys
import time
import weakref
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
    if os.environ.get("AND_RANK0_WAITING") == "1":
        rank0_waits_in_the_rendezvous()
    signalled.write_text(repr(time.time()))
    if os.environ.get("SIGNAL_FROM_A_CALLBACK") == "1":
        _in_a_weakref_callback(lambda: _signal(signalled))
    else:
        _signal(signalled)
    time.sleep(float(os.environ.get("AFTER_SIGNAL_S", "0")))


def _signal(signalled: Path) -> None:
    """SIGINT to whom SIGNAL_TO names."""
    to = os.environ.get("SIGNAL_TO")
    if to == "rank0":  # rank 0 alone (kill -INT of its pid), as its marker names it
        os.kill(int(signalled.with_name(f"{signalled.name}.rank0_meeting").read_text()), signal.SIGINT)
    elif to == "group":  # the launcher's process group, as a terminal's Ctrl-C: torch's agent sends it on to every rank
        os.killpg(os.getpgid(os.getppid()), signal.SIGINT)
    else:  # SIGNAL_TO=launcher: to its parent, torch's agent, alone
        os.kill(os.getppid() if to == "launcher" else os.getpid(), signal.SIGINT)


def _in_a_weakref_callback(signalling) -> None:
    """``signalling()`` called inside a weakref callback, which then spins half a second: the signal is handled there,
    where Python hands the KeyboardInterrupt to ``sys.unraisablehook`` (its default prints "Exception ignored in:")."""
    class Finalized:
        pass

    def callback(_reference) -> None:
        signalling()
        until = time.monotonic() + 0.5
        while time.monotonic() < until:
            pass

    finalized = Finalized()
    reference = weakref.ref(finalized, callback)
    del finalized  # its callback runs here
    assert reference() is None


#: The key rank 0 sets in the launch's store as gloo joins the ranks, before it waits for each other's (torch 2.13):
#: from then on it waits in C++ until this process comes, which it never does.
RANK0_IN_GLOOS_MESH = "default_pg/0//cpu//0/0"


def rank0_waits_in_the_rendezvous() -> None:
    """Return once rank 0 waits in the rendezvous: its key in the store of torch's agent (TORCHELASTIC_USE_AGENT_STORE:
    every rank a client of it), which this rank, still in its checks, has not joined."""
    from datetime import timedelta

    import torch.distributed as dist

    store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False,
                          wait_for_workers=False, timeout=timedelta(seconds=30))
    deadline = time.monotonic() + 60
    while not store.check([RANK0_IN_GLOOS_MESH]):
        assert time.monotonic() < deadline, f"rank 0 never set {RANK0_IN_GLOOS_MESH} in the rendezvous (torch's key?)"
        time.sleep(0.05)


if __name__ == "__main__":
    rank = os.environ["RANK"]
    if rank == os.environ["SIGNAL_RANK"]:
        patched(os.environ["SIGNAL_IN"], interrupted_once_the_others_meet)
    else:
        marker = Path(f"{os.environ['SIGNALLED_AT']}.rank{rank}_meeting")
        patched(os.environ["OTHERS_AT"], lambda: marker.write_text(str(os.getpid())))  # its pid, for SIGNAL_TO=rank0
    end_process(main(sys.argv[1:]))
