"""The launch's processes beside this one, on its node: kept against their ranks in the launch's store as each starts,
and told ended from ``/proc`` at once, where the store tells a death only by a silence (``lost_processes``' roll call,
``ROLL_CALL_S``, 3.4 s).

A process killed outright on the main process's own node (the OOM killer on a one-node 8-GPU box, the common case) was
named lost only once the roll call had waited 3.4 s for its answer, where that node sees the death at once: the launch
ended 4.0-6.3 s after the kill until the hundred-and-sixteenth session, 0.7-1.7 s since (2 CPU processes:
benchmarks/results/same_node_death_2026-12-06/, and review_training_peer_lost_2026-12-06/). The roll call needs to know
which rank a process seen ended was: ``/proc`` knows pids, the store ranks. So each process keeps, under its node's key,
its attempt (torch elastic's restarts: the store outlives them) and its ``LOCAL_RANK``, its rank, its pid and its start
time (``keep_this_process``), once, as its watcher first reaches the store; a roll call reads its own node's
``LOCAL_WORLD_SIZE`` entries (a few store calls, however many nodes the launch has) and asks ``/proc`` about those pids
at each of its looks (``ended``).

A node here is what one pid names one process in: the machine's boot (``/proc/sys/kernel/random/boot_id``, random at
each boot: two machines never share one), its pid namespace (a container's), and the parent (the launch's agent on
that node: two launches on one machine, as the tests' two "nodes", are two nodes, each seeing only its own agent's
processes, as ``launched_sigterm``'s processes beside this one are). The start time (``/proc/<pid>/stat``'s field 22)
tells a pid taken since by another process. A process is ended once gone, a zombie, or exiting (the kernel's
``PF_EXITING``, set as ``do_exit`` begins, before the process's sockets close): so it is seen ended by the time gloo's
error reaches the others, even where its exit takes long (a GPU process's memory and device files torn down).

Nothing is kept, and nothing seen, where ``/proc`` cannot tell (macOS; or a pid namespace entered without its own
``/proc``, whose pids it does not name: ``_this_node``) or outside torch elastic (no ``LOCAL_RANK``,
``LOCAL_WORLD_SIZE``: accelerate's debug launch): the roll call waits for every process as before.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import NamedTuple

#: The kernel's per-task flag for a task in ``do_exit`` (include/linux/sched.h), in ``/proc/<pid>/stat``'s field 9.
PF_EXITING = 0x4
_BESIDE = "beside/"


class Process(NamedTuple):
    """A process as its node knows it: its pid and its start time (clock ticks after the boot)."""

    pid: int
    start: int


def keep_this_process(store, rank: int) -> None:
    """Keep this process (``rank``) in ``store`` under its node's key and its local rank, for a roll call on its node
    to see it ended; nothing where ``/proc`` or torch elastic's environment cannot tell."""
    node, local_rank, start = _this_node(), os.environ.get("LOCAL_RANK"), _start(os.getpid())
    if node is not None and local_rank is not None and start is not None:
        store.set(_key(node, local_rank), f"{rank} {os.getpid()} {start}")


def kept_beside(store, ranks: Iterable[int]) -> dict[int, Process]:
    """The processes of ``ranks`` that run beside this one, on its node, as each kept itself in ``store``; empty where
    ``/proc`` or torch elastic's environment cannot tell. The store's errors are raised."""
    node, local_ranks = _this_node(), os.environ.get("LOCAL_WORLD_SIZE", "")
    if node is None or not local_ranks.isdigit():
        return {}
    ranks, kept = set(ranks), {}
    for local_rank in range(int(local_ranks)):
        key = _key(node, local_rank)
        if store.check([key]):
            rank, pid, start = map(int, store.get(key).decode().split())
            if rank in ranks and pid != os.getpid():
                kept[rank] = Process(pid, start)
    return kept


def ended(process: Process) -> bool:
    """Whether ``process`` has ended, or is ending: gone from ``/proc``, its pid taken by another, a zombie, or
    exiting."""
    fields = stat_fields(process.pid)
    return (fields is None or int(fields[19]) != process.start or fields[0] in ("Z", "X", "x")
            or bool(int(fields[6]) & PF_EXITING))


def reaped(process: Process) -> bool:
    """Whether ``process``'s end has been taken by its parent, the launch's agent on this node: gone from ``/proc``
    (no longer a zombie), or its pid taken by another. The agent reaps a process as its poll reads its status."""
    fields = stat_fields(process.pid)
    return fields is None or int(fields[19]) != process.start


def seen_ended(store, ranks: Iterable[int]) -> list[int]:
    """The processes of ``ranks`` that run beside this one and have ended, as ``/proc`` sees them now."""
    return sorted(rank for rank, process in kept_beside(store, ranks).items() if ended(process))


def stat_fields(pid: int) -> list[str] | None:
    """``/proc/<pid>/stat``'s fields after the command's name (state first, then the parent); None for no process."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()
    except OSError:
        return None


def _key(node: str, local_rank: int | str) -> str:
    """The key a process of ``node`` keeps itself under: with its attempt (``TORCHELASTIC_RESTART_COUNT``), as its
    agent numbers the attempts of its processes. The store outlives them (the static rendezvous's, accelerate's
    default, is the agent's own, kept across ``--max_restarts``), and an earlier attempt's process was read for this
    attempt's under the same agent and local rank until its review (r71): its pid gone, a process alive that had not
    kept itself yet (its watcher not at its first look) was seen ended, and named lost
    (benchmarks/results/review_same_node_death_2026-12-06/restart_before.out)."""
    return f"{_BESIDE}{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}/{node}/{local_rank}"


def _start(pid: int) -> int | None:
    fields = stat_fields(pid)
    return int(fields[19]) if fields else None


def _this_node() -> str | None:
    """What this process's pid is one process in (module docstring): ``<boot>/<pid namespace>/<parent>``; None where
    ``/proc`` cannot tell, or tells another pid namespace's pids than this process's: a pid namespace entered without
    its own ``/proc`` (``unshare --pid --fork`` without ``--mount-proc``, a sandbox that keeps the host's) has
    ``/proc/<pid>`` name the outer namespace's process of that number, another process's start and end read for this
    one's until the review of the hundred-and-sixteenth session (r71;
    benchmarks/results/review_same_node_death_2026-12-06/pid_namespace.txt)."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as boot_id:
            boot = boot_id.read().strip()
        namespace = os.readlink("/proc/self/ns/pid")  # "pid:[4026531836]"
        if os.readlink("/proc/self") != str(os.getpid()):  # /proc's pids are another namespace's
            return None
    except OSError:
        return None
    return f"{boot}/{namespace.removeprefix('pid:[').removesuffix(']')}/{os.getppid()}"
