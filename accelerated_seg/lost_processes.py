"""Which processes a stop for a peer gone has lost: a roll call in the launch's store, so that the main process waits
for none of them and its line names each, with its node.

A process on another node killed outright (the OOM killer, its node's failure) while this node's processes wait for it
in a collective reaches them as gloo's "Connection reset by peer" alone: their node's agent sees no death and sends no
SIGTERM (``peer_death``), so the error stopped every process as any error does (``ranks_stop_together``). The main
process then waited 10 s (``SAID_WAIT_S``) for the dead one to finish a file it was writing and 3 s (``LEFT_WAIT_S``)
for it to read the line, after peer_death's 1 s look for a death on its own node, and ended 14.2-14.5 s after the
kill, saying gloo's error (the hundred-and-fourteenth session:
benchmarks/results/launched_predict_peer_death/where_the_time_goes.txt).

The words alone do not tell a death: a reset of the network between two nodes says the same, the peer alive. The
store tells them apart: every process's watcher asks it every ``POLL_S`` (0.2 s), and at a stop every process other
than the main one answers first thing (``answer``). One that has not answered within ``ROLL_CALL_S`` has ended, or its
node is cut off from the store's (node 0's, where torch elastic's agent keeps it): lost to this stop either way, for it
will neither finish a file nor read the line. Where every one answers, the stop goes on as before, gloo's line said: a
network's reset is an error to report. Nothing else tells it sooner: torch's agent writes nothing to the store when its
workers fail (torch 2.13's ``SimpleElasticAgent._invoke_run`` stops them and returns; the static rendezvous's
``shutdown``, accelerate's default, does nothing), a TCPStore's server has no list of its clients to ask, and a
heartbeat key would cost every process a store call at every poll of the whole run, where a roll call costs one call a
process, at a stop.

The roll call is taken only at a stop for a peer gone (the error's words, ``peer_death.PEER_GONE``), where a lost
process is to be expected: at any other, a process slow to answer (a store blip, a busy machine) would be named lost,
and the file it writes not waited for.

Each process keeps where it runs in the store as its watcher first reaches it (``keep_where_this_process_runs``), for
the line to name a lost one's node: torch elastic's node rank (``GROUP_RANK``) and the host's name. Every other
process reads where the main process runs as soon as it is kept (``where_it_runs``) and holds it: the store ends with
the main process's node, often before a process on another node meets the error (one in its validation, its export,
a step's forward when the main process died), whose line named no node, ``process 0 was lost``, until the
hundred-and-fifteenth session's review (benchmarks/results/review_training_peer_lost_2026-12-06/).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping, Sequence

#: How long the main process, at a stop for a peer gone, waits for every other process to answer (and another process
#: for the main one): each looks every 0.2 s (``ranks_stop_together.POLL_S``) and answers as it sees the stop, in a few
#: ms on one machine; but a watcher whose client a blip broke sees it only once its poll has gone unanswered
#: (``ANSWER_S``, 1 s), a fresh client stands in (``CONNECT_S`` twice at most: the address's connect, the client's) and
#: it has looked again (``POLL_S``): 0.2 + 1 + 2 + 0.2 s. At 1 s (the hundred-and-fourteenth session until its review)
#: a process alive and slow was named lost, and it named the main process lost in turn, two lines each saying the other
#: ended: 4 of 4 launches, process 1 held 2 s (SIGSTOP) or its poll unanswered once
#: (benchmarks/results/launched_predict_peer_death/slow_to_answer.txt). One held longer is still named lost.
ROLL_CALL_S = 3.4
#: How often the answers are asked meanwhile.
LOOK_S = 0.02
#: Set with a stop's message where its error is a peer gone's (``ranks_stop_together._publish``).
FOR_A_PEER_GONE = "peer_gone"
_WHERE, _ANSWERED = "where/", "answered/"


def where_this_process_runs() -> str:
    """``node <GROUP_RANK>, <host>``, or the host alone outside torch elastic."""
    node = os.environ.get("GROUP_RANK")
    return f"node {node}, {socket.gethostname()}" if node is not None else socket.gethostname()


def keep_where_this_process_runs(store, rank: int) -> None:
    """Keep where this process (``rank``) runs under ``store``'s keys, for a line that may name it lost."""
    store.set(f"{_WHERE}{rank}", where_this_process_runs())


def where_it_runs(store, rank: int) -> str | None:
    """Where ``rank`` runs, as it kept it under ``store``'s keys; None where it has kept nothing yet."""
    key = f"{_WHERE}{rank}"
    return store.get(key).decode() if store.check([key]) else None


def answer(store, rank: int) -> None:
    """Answer a stop's roll call: this process (``rank``) sees the stop."""
    store.set(f"{_ANSWERED}{rank}", "1")


def lost_processes(store, ranks: int, among: Sequence[int] | None = None) -> list[int]:
    """The processes of ``among`` (by default every one but the main process, rank 0, of a launch of ``ranks``) that
    have not answered within ``ROLL_CALL_S``; none once every one has (at once, as a rule)."""
    among = range(1, ranks) if among is None else among
    deadline = time.monotonic() + ROLL_CALL_S
    while not store.check([f"{_ANSWERED}{rank}" for rank in among]):
        if time.monotonic() > deadline:
            return [rank for rank in among if not store.check([f"{_ANSWERED}{rank}"])]
        time.sleep(LOOK_S)
    return []


def said_lost(store, lost: list[int], known: Mapping[int, str] | None = None) -> str:
    """The stop's line for the processes ``lost`` (each with where it runs, where it kept it), in place of the
    collective's error. ``known``: where processes run, read earlier (``where_it_runs``), for a store that has ended
    (None) or fails. The main process lost is named by another process, often where the store ended with the main
    process's node before any roll call (torch elastic's agent keeps it there): its line says either, where it said
    "did not answer ... within 3.4 s" alone, a roll call not taken (the hundred-and-fifteenth session's review of its
    training stop: process 1 said it 0.7-2.0 s after the kill)."""
    where: dict[str, list[int]] = {}
    for rank in lost:
        where.setdefault(_where(store, rank, known or {}), []).append(rank)
    named = "; ".join(f"process{'es' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))}"
                      + (f" ({place})" if place else "") for place, ranks in where.items())
    if lost == [0]:  # said by another process: the store may have ended with the main process's node, no roll call
        return (f"{named} was lost: its connection closed in a collective, and it did not answer in the launch's "
                f"store within {ROLL_CALL_S:g} s, or that store, kept on its node, ended first: its process ended, or "
                "its node was cut off")
    if len(lost) == 1:
        return (f"{named} was lost: its connection closed in a collective, and it did not answer in the launch's "
                f"store within {ROLL_CALL_S:g} s: its process ended, or its node was cut off")
    return (f"{named} were lost: their connections closed in a collective, and they did not answer in the launch's "
            f"store within {ROLL_CALL_S:g} s: their processes ended, or their nodes were cut off")


def _where(store, rank: int, known: Mapping[int, str]) -> str:
    """Where ``rank`` runs, as it kept it, else as ``known`` has it; empty where neither has it (the store gone, the
    main process lost: its node's agent, which keeps the store, ends with it)."""
    try:
        if store is not None and (place := where_it_runs(store, rank)) is not None:
            return place
    except Exception:  # noqa: BLE001 - torch's DistError: said as known, or without it
        pass
    return known.get(rank, "")
