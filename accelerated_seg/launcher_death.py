"""A rank's signal for its launcher's death: Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG)``).

torchrun (inside ``accelerate launch``) starts each rank in a session of its own, so a SIGKILL of the
launcher, or of its process group (``kill -9 -- -PGID``, ``timeout -s KILL``), reaches no rank, and
nothing else tells a rank that its launcher is gone. The ranks trained on as orphans, and rank 0 held
the run folder's lock, so the requeued ``--resume latest`` was refused as "in use by another run"
(eighty-fourth session's probe: 239 steps logged five seconds after such a kill). With SIGTERM as the
parent-death signal, the kernel sends each rank the scheduler's stop signal when its launcher dies,
and the ranks save their state and stop as on a preemption (``checkpoint.PreemptionSignals``).

It is asked for in the ranks a launcher started, by the mark it leaves in each (``LAUNCHER_MARKS``):
torchrun's agent ``TORCHELASTIC_RUN_ID``; an MPI launcher the world size accelerate reads the rank's
place from (mpirun, accelerate launch's own path for ``mpirun_hostfile``, and srun with PMI). Not
wherever ``WORLD_SIZE`` is: some clusters export that to every process, whose parent may be a shell
that exits while a ``nohup`` run goes on (the eighty-fifth session's review stopped one so). Until the
ninety-sixth session only torchrun's mark counted, and ranks an MPI launcher started trained on as
orphans after a SIGKILL of it. Under srun the parent is Slurm's step daemon, which outlives a killed
srun: the signal comes when the daemon ends, and what Slurm does with a step whose srun was killed
is Slurm's own.

Until the training loop runs the signal is SIGKILL: there is nothing to save, and a rank waits in
places no Python handler runs in. Ranks whose launcher died as they started waited in the rendezvous
on its dead store, SIGTERM only recorded, for the store's 30-minute timeout; one that was
preprocessing went on to the end of it, holding the run lock (the eighty-sixth session's review).
The loop then asks for SIGTERM (``PreemptionSignals.saving_from_here``).

The signal is the kernel's, so no thread polls for it. It is sent when the thread that started the
process ends; torchrun's agent starts its ranks from its main thread, which lives as long as the
launcher. A launcher dead before the signal is set would go unnoticed (Linux's own caveat): the parent
is read when this module is imported, which ``import accelerated_seg`` does first, and compared
once the signal is set (``launcher_gone``).
"""

from __future__ import annotations

import ctypes
import os
import sys

_PR_SET_PDEATHSIG, _PR_GET_PDEATHSIG = 1, 2

# The process that started this one, as the package was imported (a rank: torchrun's agent), or as
# it was forked: notebook_launcher forks its ranks from a process that imported the package, whose
# own parent they would otherwise compare theirs with, and stop as orphans at once.
PARENT_AT_START = os.getppid()


#: The variable each launcher sets in the processes it starts, and the launcher in words. The MPI ones are the
#: world sizes accelerate reads for a rank (``get_cpu_distributed_information``), set by mpirun before any
#: Python runs, so a rank has them from its start, where it has no ``LOCAL_RANK`` until accelerate sets it.
#: They count above 1 only, as accelerate's do: a shell that ``srun --pty bash`` started under PMI has a
#: world of 1, and a run started from it under ``nohup`` must outlive the shell.
LAUNCHER_MARKS = {"TORCHELASTIC_RUN_ID": "torchrun's agent", "OMPI_COMM_WORLD_SIZE": "Open MPI's mpirun",
                  "PMI_SIZE": "an MPI launcher (Intel MPI's or MPICH's mpirun, srun with PMI)",
                  "MV2_COMM_WORLD_SIZE": "MVAPICH's mpirun"}


def launcher_mark() -> str | None:
    """The variable by which this process shows that a launcher started it (``LAUNCHER_MARKS``), or None."""
    return next((mark for mark in LAUNCHER_MARKS if mark in os.environ and (
        mark == "TORCHELASTIC_RUN_ID" or os.environ[mark].strip().isdigit() and int(os.environ[mark]) > 1)), None)


def _forked() -> None:
    global PARENT_AT_START
    PARENT_AT_START = os.getppid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def launcher_gone() -> bool:
    """Whether the process that started this one has died since the package was imported (its
    orphans are adopted by another: init, or a subreaper)."""
    return os.getppid() != PARENT_AT_START


def set_parent_death_signal(signum: int) -> int | None:
    """Ask the kernel for ``signum`` when this process's parent dies (0 for none); returns the
    signal set before, to restore it with the same call, or None where the platform has none (not
    Linux, or a libc without ``prctl``): nothing was changed then."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    previous, unused = ctypes.c_int(0), ctypes.c_ulong(0)  # the kernel reads each argument as a long
    if prctl(_PR_GET_PDEATHSIG, ctypes.byref(previous), unused, unused, unused) != 0:
        return None
    if prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(int(signum)), unused, unused, unused) != 0:
        return None
    return previous.value
