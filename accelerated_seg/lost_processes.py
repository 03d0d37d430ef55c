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

A process on the roll caller's own node is not waited for once it is seen ended there (``processes_beside``: each
process keeps its pid against its rank as it keeps where it runs, and ``/proc`` tells its end at once): the line says it
was seen ended, not that it did not answer. A process killed on the main process's own node (the OOM killer on a
one-node box) was waited for the whole ``ROLL_CALL_S`` until the hundred-and-sixteenth session, the launch ending
4.0-6.3 s after the kill (benchmarks/results/same_node_death_2026-12-06/). Processes on other nodes are waited for as
before. One seen ended is still waited for until the launch's agent has reaped it (``_reaped_by``), so that its status,
not a survivor's 1, is the first the agent reads.

At any other stop (an interrupt, an error) no roll call is taken, but a process of the node that says the line seen
ended before it answered the stop is lost all the same, and waited for by none of that stop's waits
(``EndedInTheStop``): killed as the stop came (a job's SIGTERM racing the OOM killer's SIGKILL), it left the main
process to wait 10 s for its file and 3 s for it to read the line, the launch ending 13.5-13.6 s after the kill with a
line that did not name it (16.9-18.8 s under load), and where the main process was the one killed, the other process
waited 10 s for its line and ended saying nothing (until the hundred-and-eighteenth session:
benchmarks/results/sigterm_before_a_kill_2026-12-06/). Its line says both the stop and the loss (training's main
process says its own line, which names the newest whole checkpoint, not the loss). One killed after it answered the
stop, finishing its file, was waited for so still, and the main process so killed still said nothing, until that
session's review (r84): a process seen ended is waited for by none of those waits, whether it answered or not.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping, Sequence

from .processes_beside import Process, ended, keep_this_process, kept_beside, reaped, seen_ended

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
    """Keep where this process (``rank``) runs under ``store``'s keys, for a line that may name it lost; and, for a roll
    call on its node to see it ended at once, its pid (``processes_beside.keep_this_process``)."""
    store.set(f"{_WHERE}{rank}", where_this_process_runs())
    keep_this_process(store, rank)


def where_it_runs(store, rank: int) -> str | None:
    """Where ``rank`` runs, as it kept it under ``store``'s keys; None where it has kept nothing yet."""
    key = f"{_WHERE}{rank}"
    return store.get(key).decode() if store.check([key]) else None


def answer(store, rank: int) -> None:
    """Answer a stop's roll call: this process (``rank``) sees the stop."""
    store.set(f"{_ANSWERED}{rank}", "1")


def lost_processes(store, ranks: int, among: Sequence[int] | None = None) -> list[int]:
    """The processes of ``among`` (by default every one but the main process, rank 0, of a launch of ``ranks``) that
    have not answered: those of this node seen ended at once (``processes_beside``), the others once ``ROLL_CALL_S``
    is over; none once every one has (at once, as a rule)."""
    among = list(range(1, ranks) if among is None else among)
    beside = kept_beside(store, among)
    deadline = time.monotonic() + ROLL_CALL_S
    while True:
        gone = [rank for rank in among if rank in beside and ended(beside[rank])]
        waited_for = [rank for rank in among if rank not in gone]
        if not waited_for or store.check([f"{_ANSWERED}{rank}" for rank in waited_for]):
            break
        if time.monotonic() > deadline:
            gone = among
            break
        time.sleep(LOOK_S)
    # one seen ended may have answered first: it saw the stop, and is waited for as before
    lost = [rank for rank in gone if not store.check([f"{_ANSWERED}{rank}"])]
    _reaped_by([beside[rank] for rank in lost if rank in beside], deadline)
    return lost


def _reaped_by(seen: Sequence[Process], deadline: float) -> None:
    """Wait until each process of ``seen`` (seen ended on this node) has been reaped by the launch's agent, or until
    ``deadline`` (the roll call's): the agent reads the first status to reach it as the launch's failure (torch
    2.13's ``ProcessContext.join`` takes the lowest rank of those ended at its poll, every 0.1 s), and the processes
    left end with status 1 once this call returns. Seen ended at once (``processes_beside``: as its exit begins), a
    process killed on this node left the others to end 0.2-1 s after it, and where the agent had not polled since
    (held up 1 s in the review's probe), process 0's status 1 was the launch's failure in place of process 1's
    SIGKILL: the estimator's fit raised torch's ChildFailedError, not ``ProcessLost``, and the launcher's table
    named process 0 first (the hundred-and-sixteenth session's review of h82:
    benchmarks/results/review_process_lost_order_2026-12-06/). The roll call waited ``ROLL_CALL_S`` for it before,
    long enough for any poll."""
    while not all(reaped(process) for process in seen) and time.monotonic() < deadline:
        time.sleep(LOOK_S)


def said_lost(store, lost: list[int], known: Mapping[int, str] | None = None) -> str:
    """The stop's line for the processes ``lost`` (each with where it runs, where it kept it), in place of the
    collective's error. ``known``: where processes run, read earlier (``where_it_runs``), for a store that has ended
    (None) or fails. The main process lost is named by another process, often where the store ended with the main
    process's node before any roll call (torch elastic's agent keeps it there): its line says either, where it said
    "did not answer ... within 3.4 s" alone, a roll call not taken (the hundred-and-fifteenth session's review of its
    training stop: process 1 said it 0.7-2.0 s after the kill). One seen ended on this node (``processes_beside``) is
    said so: no roll call waited for it (since the hundred-and-sixteenth session)."""
    seen = _seen_ended(store, lost)
    silent = [rank for rank in lost if rank not in seen]
    named = _named(store, lost, known)
    if len(lost) == 1:
        return (f"{named} was lost: its connection closed in a collective, and "
                + (f"its process {_seen(1)}" if seen else f"it {_silent(1, main_process=lost == [0])}"))
    lost_words = f"{named} were lost: their connections closed in a collective"
    if not silent:
        return f"{lost_words}, and their processes {_seen(len(seen))}"
    if not seen:
        return f"{lost_words}, and they {_silent(len(silent))}"
    return f"{lost_words}; {_processes(seen)} {_seen(len(seen))}, and {_processes(silent)} {_silent(len(silent))}"


def said_ended_in_the_stop(store, message: str, lost: list[int], known: Mapping[int, str] | None = None) -> str:
    """A stop's line (``message``, not a peer gone's) where the processes ``lost`` were seen ended on this node before
    they had done their part of it (``EndedInTheStop``): the stop first, then the loss, saying whether each had
    answered the stop (the loss alone where the stop's message is empty: training's Ctrl-C, whose line its caller
    makes, on the main process from its own words alone); a traceback under the line stays under it. ``known`` as for
    ``said_lost``."""
    first, newline, rest = message.partition("\n")
    one, answered = len(lost) == 1, _answered(store, lost)
    when = ("after" if answered else "before") + (" it answered the stop" if one else " they answered the stop")
    if answered and len(answered) < len(lost):
        when = f", {_processes(sorted(set(lost) - set(answered)))} before it answered the stop, the others after it"
    return (f"{first}{'; ' if first else ''}{_named(store, lost, known)} {'was' if one else 'were'} lost: "
            f"{'its process was' if one else 'their processes were'} seen ended on {'its' if one else 'their'} node"
            f"{'' if when.startswith(',') else ' '}{when}{newline}{rest}")


class EndedInTheStop:
    """At a stop not for a peer gone, the processes of ``among`` that run on this node (``kept_beside``) seen ended
    before they had done what the stop's waits wait for (``ranks_stop_together``'s ``_end``: a process's file, its
    reading of the line, the main process's line): they will never do it, and those waits count them as come (module
    docstring). Killed before they answered the stop (``answer``), or after (in their file's write, its memory the
    last straw): the wait was the same 10 s and 3 s either way (the hundred-and-eighteenth session saw the first
    alone, until its review r84). Looked at again at each look of those waits (``look``): one killed as the stop came
    may end after the wait began. None where ``/proc`` cannot tell, nor on another node: those are waited for as
    before."""

    def __init__(self, store, among: Sequence[int]):
        self.store, self.beside, self.ranks = store, kept_beside(store, among) if among else {}, []

    def look(self) -> int:
        """How many have been seen ended, this look included."""
        self.ranks += sorted(rank for rank, process in self.beside.items() if rank not in self.ranks and ended(process))
        return len(self.ranks)

    def reaped(self) -> None:
        """Wait until the launch's agent has reaped those seen ended, ``ROLL_CALL_S`` at most, as the roll call waits
        (``_reaped_by``), for its table to name the killed process first. Not at an interrupt's stop: there the launcher
        was signalled as a rule (a job's stop, a terminal's Ctrl-C), and its agent, shutting down, waits for each of its
        processes in turn, the lowest local rank first, reaping the dead one only once this one has ended (training's
        roll call held 3.4 s so: benchmarks/results/sigterm_before_a_kill_2026-12-06/)."""
        _reaped_by([self.beside[rank] for rank in self.ranks], time.monotonic() + ROLL_CALL_S)


def _answered(store, ranks: list[int]) -> list[int]:
    """Those of ``ranks`` that answered the stop (``answer``); none where the store cannot tell."""
    try:
        return [rank for rank in ranks if store.check([f"{_ANSWERED}{rank}"])]
    except Exception:  # noqa: BLE001 - torch's DistError: said as not answered
        return []


def _named(store, ranks: list[int], known: Mapping[int, str] | None = None) -> str:
    """``process 1 (node 1, gpu-7)``: ``ranks`` grouped by where each runs, where known (``_where``)."""
    where: dict[str, list[int]] = {}
    for rank in ranks:
        where.setdefault(_where(store, rank, known or {}), []).append(rank)
    return "; ".join(_processes(ranks) + (f" ({place})" if place else "") for place, ranks in where.items())


def _seen(count: int) -> str:
    """What is said of ``count`` processes seen ended on this node (``processes_beside``): no roll call waited."""
    return "was seen ended on its node" if count == 1 else "were seen ended on their node"


def _silent(count: int, main_process: bool = False) -> str:
    """What is said of ``count`` processes that did not answer the roll call (or, the ``main_process``, whose store
    may have ended first)."""
    return (f"did not answer in the launch's store within {ROLL_CALL_S:g} s"
            + (", or that store, kept on its node, ended first" if main_process else "")
            + (": its process ended, or its node was cut off" if count == 1
               else ": their processes ended, or their nodes were cut off"))


def _processes(ranks: list[int]) -> str:
    return f"process{'es' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))}"


def _seen_ended(store, ranks: list[int]) -> list[int]:
    """Those of ``ranks`` seen ended on this node (``processes_beside``); none where the store cannot tell (gone,
    failing: the line is said all the same)."""
    try:
        return seen_ended(store, ranks) if store is not None else []
    except Exception:  # noqa: BLE001 - torch's DistError: said as not seen
        return []


def _where(store, rank: int, known: Mapping[int, str]) -> str:
    """Where ``rank`` runs, as it kept it, else as ``known`` has it; empty where neither has it (the store gone, the
    main process lost: its node's agent, which keeps the store, ends with it)."""
    try:
        if store is not None and (place := where_it_runs(store, rank)) is not None:
            return place
    except Exception:  # noqa: BLE001 - torch's DistError: said as known, or without it
        pass
    return known.get(rank, "")
