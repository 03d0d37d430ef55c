"""A rank's signal for its launcher's death: Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG)``).

torchrun (inside ``accelerate launch``) starts each rank in a session of its own, so a SIGKILL of the
launcher, or of its process group (``kill -9 -- -PGID``, ``timeout -s KILL``), reaches no rank, and
nothing else tells a rank that its launcher is gone. The ranks trained on as orphans, and rank 0 held
the run folder's lock, so the requeued ``--resume latest`` was refused as "in use by another run"
(eighty-fourth session's probe: 239 steps logged five seconds after such a kill). With SIGTERM as the
parent-death signal, the kernel sends each rank the scheduler's stop signal when its launcher dies,
and the ranks save their state and stop as on a preemption (``checkpoint.PreemptionSignals``).

It is asked for in the ranks torchrun's agent started (``TORCHELASTIC_RUN_ID`` set), not wherever
``WORLD_SIZE`` is: some clusters export that to every process, whose parent may be a shell that
exits while a ``nohup`` run goes on (the eighty-fifth session's review stopped one so).

The signal is the kernel's, so no thread polls for it. It is sent when the thread that started the
process ends; torchrun's agent starts its ranks from its main thread, which lives as long as the
launcher. A launcher dead before the signal is set goes unnoticed (Linux's own caveat).
"""

from __future__ import annotations

import ctypes
import sys

_PR_SET_PDEATHSIG, _PR_GET_PDEATHSIG = 1, 2


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
