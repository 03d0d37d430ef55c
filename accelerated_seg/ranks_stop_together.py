"""One rank's error that stops every rank of a launch at once, said in one line by the main process.

A configuration of ``benchmark train`` under several processes can run out of memory on one rank alone (a
device another job shares, a rank's larger share of the data). That rank stopped; the others went on into
the next collective and waited there for it. Under torchrun on one node with gloo, its exit broke their
collective, and rank 0 printed gloo's "Connection closed by peer" traceback under the line; where the
others do not see the rank end (another node's, NCCL's collectives) they waited for the process group's
timeout (30 minutes). The line itself came from the rank that ran out, which writes no results: it said
"no configuration was measured before it" where the main process had kept some (ninety-fifth session).

Inside ``stopping_together``, such an error is published in the process group's store (the launch's
rendezvous store) instead of raised. Every rank has a thread watching that store, because a rank blocked in
a collective runs no Python of its own: the main process's says the line (``say_the_error``, with what the
caller adds, such as where the rows before it are kept) and every other's waits for it (at most
``SAID_WAIT_S``: an exit of theirs first lets torch elastic's agent stop the main process before its
print), leaves it for the launcher's report, and ends its process with status 1 (``os._exit``: the
collective it is blocked in has no other way out); the main process ends once they have read the line (outside
torch elastic the store is its own), ``LEFT_WAIT_S`` at most. Each, once it sees the error, ignores SIGTERM, which
the agent sends to the ranks left when one ends: each ends with its own status (``_deaf_to_sigterm``). The rank
that raised waits for its own watcher to end it, and so does a rank whose collective a rank ended first broke
(gloo's "Connection closed by peer", no traceback).
In one process, or without a process group, nothing changes: the error is raised as it was. ``predict --split
windows`` uses it too: there a process's out of memory arises in a pipeline's stage that would hand it on only after
the case before it, and so after a collective the others are not in; ``stop_every_rank`` publishes it from the
stage itself (ninety-sixth session); since the ninety-seventh, any error of one process's own there does (a bug,
its traceback under the line; a file it reads differently; an interrupt), and ``met_by_every_rank`` tells an error
every rank meets alike as a rule (a case's unusable file, which they all go on from) from one met by one rank alone;
since the ninety-eighth, any of a process's own anywhere in its work. A published KeyboardInterrupt (Ctrl-C, asked
for) is said as its words are, not as an error, and every rank ends with status 130 (143 for SIGTERM's, a launched
predict's stop since the hundred-and-ninth session: ``sigterm.Terminated``; 138 for SIGUSR1's since the
hundred-and-twentieth: ``sigterm.StoppedBySIGUSR1``). A published BrokenPipeError
(stdout's reader gone: ``accelerate launch ... predict ... | head``) is no error either: nothing is said, as a
one-process command says nothing then, its line left for the launcher's table alone, and every rank ends with
SIGPIPE's status, 141 (the hundred-and-second session; "error: process 0: [Errno 32] Broken pipe" and status 1 before).
A stop for a peer gone (``stop_every_rank(..., peer_gone=True)``: a collective's "Connection reset by peer", a process
on another node killed outright) is a roll call too: each rank's watcher answers it as it sees it, and the main
process waits for none that has not answered within 3.4 s, nor for one on its own node seen ended there (in /proc, at
once: ``processes_beside``, the hundred-and-sixteenth session; its line saying "seen ended on its node"), naming each
lost in its line (``lost_processes``; it waited ``SAID_WAIT_S`` and ``LEFT_WAIT_S`` for the dead one, and said gloo's
error, until the hundred-and-fourteenth session). At any other stop a process of its node seen ended is waited for no
more either, and named after the stop (``lost_processes.EndedInTheStop``: killed as a job's stop came, before it
answered it, it held the main process 13 s until the hundred-and-eighteenth session; killed after it answered, until
that session's review). Its keys hold the attempt of a ``--max_restarts`` launch (``TORCHELASTIC_RESTART_COUNT``): the
store outlives it, and the next attempt ended at once with a stop published in the one before, its old line, until the
hundred-and-sixteenth session's review.

The store is the process group's, reached through torch's private ``distributed_c10d._get_default_store``: torch
2.13 has no public way to it (nothing in ``torch.distributed``'s ``__all__``; accelerate 1.16 keeps none), and a
store of our own, a public ``TCPStore`` client of MASTER_ADDR:MASTER_PORT, would hold only where the group met
through ``env://`` over TCP: not a ``file://`` init method, nor accelerate's debug launch (a ``FileStore``).
tests/test_ranks_stop_together.py says so by name if torch removes it (ninety-seventh session).
A network blip to that store is not taken for its host having ended (``_reconnect``): torch's TCPStore client never
reconnects once its connection is reset, so a fresh client of the store takes its place; a host that has ended refuses
a connection, and the watcher gives up at once; one that cannot be reached has its address asked again (not the
broken client, whose every call fails, printing a C++ traceback) for ``GIVE_UP_AFTER_S``. Since the
hundred-and-fourteenth session a poll or ask unanswered for ``ANSWER_S`` is taken for a blip too (``_within``: a network
dropping without a reset held it for the store's timeout), and the fresh client is made to the address that answered,
the name's answer kept from the watcher's poll (``_fresh_client``): a reconnect needs no name server. Since that
session's review a host that takes a connection but does not answer (its process stopped, swapping) is stalled, not
down (``STALLED``): the watcher waits on it however long, one fresh client in the making at a time, where it gave it up
after ``GIVE_UP_AFTER_S``; and a rank whose publish got no answer in time says its error itself, its watcher saying no
second line should the publish land later (``leave_the_line_to_the_caller``). Since the hundred-and-fifteenth
session every other store call of a rank is bounded so too (``an_error_is_published``, ``notes``, a met error's first
record and a watcher's ``_end``, which wait on a stalled store within ``GIVE_UP_AFTER_S``: ``_Asking``), an ask left
waiting that answers as the fresh client is made is taken, not asked again, and ``stop_every_rank`` whose publish got
no answer waits for it to land, as for one answered.
Until the hundred-and-seventh session a watcher's first error ended its watch for good. A process other than the
main one whose end finds the store gone (the main process's node ended, and the store with its agent) before it has
read the main process's line says the stop as its poll read it, once on its node, with that stop's status
(``_Watcher._said_unread``): it ended with status 1 saying nothing, or named the main process lost, until the
hundred-and-twenty-second session.

    with stopping_together((OutOfMemory,), lambda message: f"{message} ({so_far.kept_before_it()})") as writing:
        ...  # measure; ``with writing:`` around what the line names (a results file), so it is written whole
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator

from .connect_within import connect_within, look_up_ahead
from .exit_now import exit_now
from .files import stored_bytes as _stored
from .launch_env import launched_processes
from .launcher_report import leave_for_the_launcher, say_once_on_this_node, say_the_error, say_whole
from .lost_processes import (FOR_A_PEER_GONE, EndedInTheStop, answer, keep_where_this_process_runs, lost_processes,
                              said_ended_in_the_stop, said_lost, where_it_runs, where_this_process_runs)
from .sigterm import raises_a_stop, stop_signal
from .write_progress import WritingLock, ended_by_a_further_signal, progress, under_an_agent

#: How often a watcher looks in the store: the delay before the other ranks stop (a store's blocking wait
#: warns on stderr each time it times out, so it cannot wait for the end of the measurement instead).
POLL_S = 0.2
#: How long a rank waits for the main process to say the line before it ends without it, and the main process for
#: the others to finish the files they write (``LEFT_WAIT_S`` for them to read its line).
SAID_WAIT_S = 10.0
#: How long the main process, its line said, waits for the others to have read it: they need only look (they saw the
#: error already, and finish the rest after its exit: ``_deaf_to_sigterm``), and one killed outright never answers.
LEFT_WAIT_S = 3.0
#: How long a rank that met an error every rank meets alike as a rule waits for the others to meet it too
#: (``met_by_every_rank``): they read the same case at about the same time, a case's collectives keeping them in step.
MET_WAIT_S = 60.0
#: What a busy machine may add to a watcher's look at the store (its round trips) before the rank that published the
#: error stops waiting for its watcher to see it, and to its end's bounds before it stops waiting for the end
#: (``wait_for_the_end``).
BUSY_MACHINE_S = 5.0
#: How long torch elastic's agent gives a process between its SIGTERM and its SIGKILL (its ``shutdown_timeout``, 30 s
#: in torch 2.13). That SIGTERM comes at a stop's earliest: a job's stop reaches the agent with every process, and a
#: process killed outright is reaped and the rest signalled within the agent's poll (0.1 s).
AGENT_KILL_S = 30.0
#: The longest the main process's end, from the moment its watcher saw the stop, waits before it says its line: for its
#: roll call, for the others' files, and above all for a write of its own under the lock (``_Watcher._end``). Past it,
#: under torch elastic, the agent's SIGKILL ended the process saying no line; outside it (srun, mpirun) a write that
#: never finished (a hung network filesystem; a print into a pipe no one reads) held the process for ever, SIGINT and
#: SIGTERM ignored (until the hundred-and-seventeenth session: benchmarks/results/stop_end_bounds_2026-12-06). The
#: agent's 30 s less what a busy machine adds; a write cut short at it is said so, and stays under its hidden name.
#: Outside torch elastic it is waited for past it while it makes progress (``_write_finished``).
LINE_BY_S = AGENT_KILL_S - BUSY_MACHINE_S
#: Outside torch elastic, past ``LINE_BY_S``: how long the main process's write may go without its thread running or
#: writing before it is taken for hung (``write_progress``; a thread that runs shows a clock tick in 10 ms, a busy
#: machine's in a few seconds at most), and the longest the write is waited for from the stop, nine times the 68 s a
#: 512x512x400 probability map takes on 2 cores (benchmarks/results/stop_end_bounds_2026-12-06/map_write_time.txt).
#: It was cut short at ``LINE_BY_S`` there too, a write that used to finish lost (hundred-and-seventeenth session, until
#: its review: benchmarks/results/review_stop_bounds_2026-12-06).
NO_PROGRESS_S = BUSY_MACHINE_S
LONGEST_WRITE_S = 600.0
#: How long a watcher goes on asking a store whose calls keep failing, its host's address not refusing (a network
#: down: connects time out), before it takes the store for gone (``_Watcher.run``). A blip that only reset the connection
#: is over at the first retry (a fresh client answers in 1-12 ms); a host that has ended is known at once, its
#: address refusing (0.16 ms): this bounds only a network that stays down, whose own recoveries (a link's flap, a
#: route's change) take seconds (hundred-and-seventh session: benchmarks/results/store_blip_2026-12-05).
GIVE_UP_AFTER_S = 30.0
#: The longest wait between two retries of a failing store (from twice POLL_S, doubling), and the longest a retry's
#: connect to the store's host waits (a host on a network that is down answers nothing).
RETRY_MAX_S = 2.0
CONNECT_S = 1.0
#: How long a watcher's poll, and a rank's ask of the store, is waited for before its client is taken for broken
#: (``_within``): a call answers in 0.1-20 ms, and torch's first failing call on a reset client waits for a reverse
#: lookup first (10.0 s with one silent name server), where every other rank's error went unseen (until the
#: hundred-and-fourteenth session). One that is only slow costs a fresh client, which answers as well.
ANSWER_S = 1.0
#: How many of its polls a process other than the main one asks where the main process runs (``_Watcher.
#: _read_where_the_main_process_runs``): kept at the main process's first poll, as a rule, it is read at the first or
#: second; 25 polls are 5 s of a launch's start.
PLACE_LOOKS = 25
MESSAGE, SAID, FIRST, LEFT, INTERRUPTED, HELD = "message", "said", "first", "left", "interrupted", "held"
#: Set with INTERRUPTED to the number of the signal whose stop the interrupt was (``sigterm.stop_signal``: a launched
#: predict's SIGTERM since the hundred-and-ninth session, its SIGUSR1 since the hundred-and-twentieth): every rank then
#: ends with that signal's status, 143 or 138, where Ctrl-C's is 130. A flag for SIGTERM alone until then.
STOPPED_BY = "stopped_by"
#: Set with the message where it tells of stdout's reader gone (a BrokenPipeError), as INTERRUPTED is of an interrupt.
READER_GONE = "reader_gone"
#: Set with the message: the rank whose publish is the stop. A stop for a peer gone that the main process published
#: tells a process whose store ended before it read the main process's line that the main process was alive at the
#: stop, naming the processes lost itself (``_Watcher._said_unread``).
PUBLISHED_BY = "published_by"
#: How many ranks other than the main process have written under the lock (``writes_for_the_line``).
WRITERS = "writers"
#: The status of a process Ctrl-C ended, as a shell reports it (cli's EXIT_INTERRUPTED, which imports the commands).
EXIT_INTERRUPTED = 128 + signal.SIGINT
#: SIGPIPE's, for stdout's reader gone (cli's EXIT_READER_WENT_AWAY).
EXIT_READER_WENT_AWAY = 128 + signal.SIGPIPE
# Each use its own keys in the store, which outlives it: the same on every rank, all entering in one order.
_USES = itertools.count()
#: The watchers of the ``stopping_together`` this process is inside, innermost last (``stop_every_rank``).
_INSIDE: list[_Watcher] = []
#: The process group's store and the fresh client of it that stands in since a blip broke its connection
#: (``_reconnect``), shared by every use here; guarded by the lock, the watcher's thread and the caller's both asking.
_STAND_IN: list = []
_STAND_IN_LOCK = threading.Lock()
#: What ``_reconnect`` answers where the store's host takes a connection yet does not answer a fresh client within
#: CONNECT_S: stalled (its process stopped, swapping), not broken, nor a network down. The watcher waits on (its clock
#: for ``GIVE_UP_AFTER_S`` kept reset), where it gave up after 30 s until the hundred-and-fourteenth session's review.
STALLED = "stalled"
#: The fresh client being made (``_reconnect``), at most one at a time: [the client it stands in for, the thread making
#: it, the list its answer goes into]. A stalled host holds a fresh client until it answers, however long: each later
#: reconnect waits on this one, where one was begun per retry until the hundred-and-fourteenth session's review.
_MAKING: list = []
#: The launch's store and the prefixes its keys go under (None: not found), learned while it answers
#: (``_note_while_it_answers``), for a fresh client of it by address after a blip (``_fresh_client``).
_NOTED: list = []
#: The key set through the launch's store to find its prefixes.
_MARK = "accelerated_seg/stopping_together/mark"


@contextlib.contextmanager
def stopping_together(errors: tuple[type[BaseException], ...], in_full: Callable[[str], str],
                      interrupt_said_on: str = "stderr",
                      peer_gone_in_full: Callable[[str], str] | None = None,
                      untold_in_full: Callable[[str], str] | None = None) -> Iterator:
    """Inside, one of ``errors`` on any rank of a launch of several ends every rank with status 1, the main
    process saying ``error: <in_full(str(error))>`` (a KeyboardInterrupt published: status 130, no ``error: ``, its
    line on ``sys.<interrupt_said_on>``: training's on stdout, where one process says it; hundred-and-sixth session).
    Yields a lock to hold while writing what that line names: every rank takes it once a write under it is done (at
    most ``SAID_WAIT_S``). Where another rank has written under it (``writes_for_the_line``: predict --split cases,
    where each process writes), the main process says the line once every other has taken it (since the ninety-ninth
    session); else at once. The process group may start inside (benchmark train's with its first configuration's
    Accelerator). ``peer_gone_in_full``: the line of a stop for a peer gone (the processes lost, or the collective's
    error where every process answered) in full, on whichever process says it: the main process, or, where the main
    process is the one lost, the process that names it (training's adds the newest whole checkpoint to resume from,
    the hundred-and-fifteenth session); None: ``in_full`` on the main process, the line alone on another (predict's
    cases, which the main process alone knew). ``untold_in_full``: the line in full that a process other than the main
    one says itself where the store took nothing of its ``stop_every_rank`` (``_said_untold``): what it knows of what
    is written, and what to do; None: the line alone."""
    if launched_processes() <= 1:
        yield threading.Lock()  # one process: the error is raised, and said by the caller
        return
    # with the attempt (TORCHELASTIC_RESTART_COUNT), as interrupt_in_the_rendezvous and processes_beside key theirs:
    # the agent's store outlives a --max_restarts attempt, whose restarted processes count their uses from 0 again,
    # and the next attempt read a stop published in the one before, ending at once with its old line (r71's review)
    attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    watcher = _Watcher(f"accelerated_seg/stopping_together/{attempt}/{next(_USES)}/", in_full, interrupt_said_on,
                       peer_gone_in_full, untold_in_full)
    watcher.start()
    _INSIDE.append(watcher)
    try:
        yield watcher.writing
    except errors as error:
        # not where a stage's stop of it was said untold (``_said_untold``): the store that took nothing of it was
        # asked again, and its watcher waited for about 11 s more (the hundred-and-seventeenth session, until its
        # review), as ``stop_every_rank``'s second stop did until that session
        if not watcher.untold.is_set():
            _publish(watcher, error)
        raise  # no process group, or its watcher could not end it (the store gone): said by the caller
    except BaseException:
        if watcher.seen.is_set() or _published(watcher.prefix):  # a collective broken by a rank ended first
            watcher.wait_for_the_end()
        raise
    finally:
        _INSIDE.remove(watcher)
        watcher.done.set()


@contextlib.contextmanager
def changing_what_the_line_names() -> Iterator[None]:
    """Inside ``stopping_together``, on the main process: its lock held around a write that changes what the line
    names, so that the line names what is on the disk when every rank has ended. Training's checkpoint taking its
    name, and the oldest rotated away (``keep_last``): with another rank interrupted alone, the main process's
    training went on to its next collective while its watcher said the line, which could name the checkpoint rotated
    away (hundred-and-sixth session's review). Once the line is said, the write waits for the exit. Nothing is held
    outside ``stopping_together``."""
    with _INSIDE[-1].writing if _INSIDE else contextlib.nullcontext():
        yield


def stop_every_rank(error: BaseException, peer_gone: bool = False) -> None:
    """Inside ``stopping_together``, on any thread: end every rank with ``error``'s line now, as the error raised
    in its body would. For an error the body would see only after a collective of the others' (a pipeline hands
    on the next case's failure after the case before it: predict's split by windows). Returns where it cannot
    (one process, no process group, the store gone): the caller raises ``error``. ``peer_gone``: the error is a
    collective's whose peer went away (``peer_death.said_by_a_peer_gone``): a rank that does not answer the stop is
    then lost, not waited for, and named in the line (``lost_processes``). Returns at once where a stop of this
    process's the store took nothing of is said already (``_said_untold``): asked again, the store took nothing of a
    predict's second stop either (its outer scope's, as the error left the work), and the process ended 12 s after its
    line, 24 s after the signal, near the agent's SIGKILL (the hundred-and-seventeenth session's probe)."""
    if _INSIDE and launched_processes() > 1 and not _INSIDE[-1].untold.is_set():
        # not said at once where the publish is left waiting: the error goes on through a pipeline, the main thread
        # perhaps in a collective, as the publish lands and the watcher ends the process: the watcher says the line
        _publish(_INSIDE[-1], error, peer_gone, said_at_once=False)


def an_error_is_published() -> bool:
    """Inside ``stopping_together``, on any thread: whether a rank has published an error (or an interrupt) that
    stops every rank, this one's watcher ending this process with its line. False outside, in one process, and where
    the store cannot be asked. Asked on the thread that decides a SIGTERM (``launched_sigterm``) and in a
    collective's error (``peer_death``), neither of which may raise: ``_INSIDE`` is read once (the main thread may
    leave ``stopping_together`` meanwhile). Asked as a rank's asks are (``_published``): unbounded until the
    hundred-and-fifteenth session, a store that did not answer held the SIGTERM's decision for the store's timeout."""
    inside = _INSIDE[-1:]
    if not (inside and launched_processes() > 1):
        return False
    return inside[0].seen.is_set() or _published(inside[0].prefix)


def met_by_every_rank(name: str, met: bool) -> bool:
    """Inside ``stopping_together``, on any thread: record whether this rank met ``name`` (a case's stage's error
    that every rank meets alike as a rule, and goes on from), and where it did, whether every rank met it too: False
    as soon as one has said it did not, or after ``MET_WAIT_S`` (a rank that passed may be in a collective by then).
    True in one process or without a process group: there is no one to differ. Where the store is gone (its host
    ended: rank 0's process, outside torch elastic), at once what the wait's end gives: no rank is left to say it met
    it, and the store's own error ("Connection reset by peer") was raised in the case's stage in place of this rank's
    (until the hundred-and-fifth session). A bug's error is raised (``_store_gone``). After a blip (the connection
    reset, the store living on) the wait's reads are asked again through a fresh client (``_asked``), not the record:
    a count sent before its answer was lost would count this rank twice, and "every rank met it" be said too soon."""
    if not (_INSIDE and launched_processes() > 1) or _store(prefix := _INSIDE[-1].prefix + "met/") is None:
        return True
    try:
        return _every_rank_met(prefix, name, met)
    except _store_gone():
        return not met


def _read(stored: bytes) -> str:
    """What ``_stored`` kept, as Python holds a path: a byte that is not UTF-8 as its surrogate escape (``.decode()``
    raised UnicodeDecodeError at it). ``_stored`` (files.stored_bytes) gives the store a key or a value holding a
    case named in Latin-1 (a surrogate escape) as its bytes: torch's store takes a str only if it is UTF-8 (pybind's
    "incompatible function arguments"), and a launched predict of such a scan raised TypeError at its stage's count
    (``met_by_every_rank``), at the note of a case written (``note_for_the_line``) and at an error's publication,
    which stopped the launch in tracebacks, until review r107."""
    return stored.decode("utf-8", "surrogateescape")


def _every_rank_met(prefix: str, name: str, met: bool) -> bool:
    """``met_by_every_rank``'s record and wait, under ``prefix``."""
    import torch.distributed as dist

    # once, not asked again after a blip (a count whose answer was lost would count this rank twice), within
    # GIVE_UP_AFTER_S: a store that did not answer held the case's stage for the store's timeout (until the
    # hundred-and-fifteenth session); bounded at ANSWER_S (that session, until its review), a stall of 1 s was taken
    # for the store gone, the error said not met by every rank, the run stopped where every rank goes on
    _Asking(prefix).add(_stored(f"{name}/{'met' if met else 'passed'}"), 1)
    deadline = time.monotonic() + MET_WAIT_S
    while met and time.monotonic() < deadline:
        if int(_asked(prefix, lambda store: store.add(_stored(f"{name}/passed"), 0))):
            return False
        if int(_asked(prefix, lambda store: store.add(_stored(f"{name}/met"), 0))) >= dist.get_world_size():
            return True
        time.sleep(POLL_S)
    return not met


def writes_for_the_line() -> bool:
    """Inside ``stopping_together``, on a rank other than the main process, under the lock it yields, as it begins
    a write the main process's line names: the main process then waits for every rank to take the lock (finishing
    its write) before it says the line. Where no other rank writes (predict --split windows, benchmark train), it
    says the line at once: until the hundredth session it waited for them all the same, up to ``SAID_WAIT_S``, and
    a rank killed outright let the launcher stop the main process (SIGTERM) before its line.

    Returns whether the write may begin: False once an error is published, since the main process may have counted
    the writers before this one and be saying the line without it. Counted first, then asked, so that one of the two
    sees the other: a write begun after the count went unnamed in the line, said to begin none after (found in the
    hundredth session's review).

    True where the store is gone (its host ended): its watcher has given up (``gave_up``) and ends no process, and a
    refused write waits for that end (predict_stop's ``writing``), for ever; the store's own error ("Connection reset
    by peer") was raised instead until the hundred-and-fifth session. After a blip, asked again through a fresh client
    (``_asked``): a writer counted twice changes nothing, the main process asking only whether any has written."""
    if not (_INSIDE and launched_processes() > 1) or _store(_INSIDE[-1].prefix) is None:
        return True
    try:
        _asked(_INSIDE[-1].prefix, lambda store: store.add(WRITERS, 1))
        return not _asked(_INSIDE[-1].prefix, lambda store: store.check([MESSAGE]))
    except _store_gone():
        return True


def note_for_the_line(note: str) -> None:
    """Inside ``stopping_together``, on a rank other than the main process, under the lock it yields: keep ``note``
    for the main process's line (``notes``), as predict --split cases keeps each case a process wrote whole. Nothing
    in one process or without a process group: there is no other rank's line to say it; nor where the store is gone
    (its host, the main process that would say it, ended), whose error was raised after the write until the
    hundred-and-fifth session. After a blip, asked again through a fresh client (``_asked``): a count taken twice
    leaves a number with no note, which ``notes`` passes over."""
    if _INSIDE and launched_processes() > 1 and _store(_INSIDE[-1].prefix + "notes/") is not None:
        with contextlib.suppress(_store_gone()):
            number = _asked(_INSIDE[-1].prefix + "notes/", lambda store: store.add("count", 1))
            _asked(_INSIDE[-1].prefix + "notes/", lambda store: store.set(str(number), _stored(note)))


def notes() -> list[str]:
    """On the main process, in the line's ``in_full``: the notes the other ranks kept (``note_for_the_line``), in
    the order kept; none where there is no store. Each read asked as a rank's asks are (``_asked``), the notes read
    before the store failed kept: unbounded until the hundred-and-fifteenth session, a store that did not answer held
    the main process's line, its watcher deaf to SIGTERM, for the store's timeout."""
    if not _INSIDE or _store(prefix := _INSIDE[-1].prefix + "notes/") is None:
        return []
    kept: list[str] = []
    with contextlib.suppress(_store_gone()):
        for number in range(1, int(_asked(prefix, lambda store: store.add("count", 0))) + 1):
            key = str(number)
            note = _asked(prefix, lambda store, key=key: store.get(key) if store.check([key]) else None)
            kept += [_read(note)] if note is not None else []  # none: a rank ended between its two calls
    return kept


def _publish(watcher: _Watcher, error: BaseException, peer_gone: bool = False, said_at_once: bool = True) -> None:
    """Publish ``error`` for every rank's watcher (``peer_gone``: as a peer gone's, ``stop_every_rank``), and wait for
    this one's to end the process. Returns where the store is gone (its host ended: rank 0's process, outside torch
    elastic), for the caller to raise ``error``: the store's own error ("Connection reset by peer") was raised in its
    place until the hundred-and-fourth session's review. ``said_at_once``: where the publish gets no answer, the caller
    raises ``error`` out of ``stopping_together`` at once, ending its watch, and says it; the watcher then says no
    second line should the publish land later (``leave_the_line_to_the_caller``). Not ``stop_every_rank``'s, whose
    error a pipeline hands on later: its watcher, ending the process as the publish lands, said no line, nor the
    caller, not yet there (hundred-and-fourteenth session's second review)."""
    # The first error is the one said: the first mark set is this call's own. A count (until the hundred-and-seventh
    # session's review) asked again after a blip that lost its answer read 2, and nothing was published.
    mine, started = uuid.uuid4().hex, time.monotonic()

    def publish(store) -> None:
        import torch.distributed as dist

        # the line, should the store end before this rank's watcher ends it (here, or in ``_end``): made while the
        # store lives, which may end with the main process's node; kept where this publish is the stop, not where
        # another's came first: the main process's own error, its end breaking this process's collective, was said as
        # the main process lost, which had said its line (until the hundred-and-twenty-second session)
        lost = said_lost(store, [0], watcher.places) if peer_gone and not watcher.main_process_lost else ""
        if store.compare_set(FIRST, "", mine).decode() == mine:
            watcher.main_process_lost = watcher.main_process_lost or lost
            if isinstance(error, KeyboardInterrupt):  # before the message the watchers wait for
                if (signum := stop_signal(error)) is not None:
                    store.set(STOPPED_BY, str(signum))
                store.set(INTERRUPTED, "1")
            elif isinstance(error, BrokenPipeError):
                store.set(READER_GONE, "1")
            if peer_gone:
                store.set(FOR_A_PEER_GONE, "1")
            if dist.is_initialized():  # as a rule where there is a store; not a stand-in's
                store.set(PUBLISHED_BY, str(dist.get_rank()))
            store.set(MESSAGE, _stored(str(error)))

    if _store(watcher.prefix) is None:
        return
    try:
        # asked again once through a fresh client where a blip broke the connection (``_asked``); a host that has
        # ended, a network still down or a host stalled is not waited for: the error is raised here, said by the
        # caller, at once
        _asked(watcher.prefix, publish)
    except Exception:  # noqa: BLE001 - whatever the store raises, its watcher gives up too (``gave_up``)
        # A stalled store may yet take the publish from the thread left waiting: its watcher then ends the process
        # without its line, said here; where it is saying it already, it ends the process (said twice until the
        # hundred-and-fourteenth session's review: the caller's at 2.0 s, the watcher's at 3.2 s after a 3 s stall).
        # stop_every_rank's caller says no line (a pipeline's stage; on a process other than the main one, none at
        # all): it waits, as long as for a publish that answered, for the publish to land and the watcher to end the
        # process with its line. It went on at once until the hundred-and-fifteenth session, and such a process ended
        # quietly where the publish landed after its end: none said the line (a launched predict's SIGTERM).
        if not said_at_once or not watcher.leave_the_line_to_the_caller():
            watcher.wait_for_the_end()
        _ended_where_the_main_process_was_lost(watcher, peer_gone)
        if not said_at_once:  # and the publish has not landed by now: none says the line but this process
            _said_untold(watcher, error, time.monotonic() - started)
        return
    watcher.wait_for_the_end()
    _ended_where_the_main_process_was_lost(watcher, peer_gone)


def _ended_where_the_main_process_was_lost(watcher: _Watcher, peer_gone: bool) -> None:
    """On a rank other than the main process, at a stop for a peer gone whose store failed before this rank's watcher
    ended the process (it returns only then, ``wait_for_the_end``): say the main process lost (``lost_processes``), and
    end as that watcher would have. The store's host ends with the main process: torch elastic's agent on its node
    once its processes have ended (0.3-1.3 s after its death, here), or the main process itself outside torch elastic.
    The line, with where the main process ran, is made while the store lives (``_publish``). Before the
    hundred-and-fourteenth session gloo's error was said, as it still is in one process or where the error is
    another."""
    import torch.distributed as dist

    if not peer_gone or not (dist.is_available() and dist.is_initialized()) or dist.get_rank() == 0:
        return
    watcher.say_the_main_process_lost()
    _flushed_if_read()
    exit_now(1)


def _said_untold(watcher: _Watcher, error: BaseException, waited_s: float) -> None:
    """On a process other than the main one, whose ``stop_every_rank`` the store took nothing of (not within the
    ``waited_s`` its publish and the wait for it took: a store stalled that long, its host gone): say the stop's line
    here, once (``says_it_untold``), with what the caller knows of what is written and what to do
    (``untold_in_full``). No other process learns of the stop from this one: the main process, which says every other
    line, ends as the launcher or a collective this process's end breaks ends it (a process beside it seen ended:
    ``peer_death``, nothing said). This process ended saying nothing, as a process other than the main one says no
    line, until the hundred-and-seventeenth session (benchmarks/results/stop_end_bounds_2026-12-06/lost_publish*). Said
    as the main process's watcher says a line (``_say``): an interrupt's on ``interrupt_said_on`` and in the launcher's
    table, a reader gone's in that table alone, an error's once on this node. Not where its watcher saw the stop (the
    publish landed: it ends the process with the main process's line), nor on the main process, whose caller says its
    own error."""
    import torch.distributed as dist

    if watcher.seen.is_set() or not (dist.is_available() and dist.is_initialized()) or dist.get_rank() == 0:
        return
    if not watcher.says_it_untold():
        return
    first, newline, rest = str(error).partition("\n")  # a traceback under the line stays under it
    line = (f"{first}; the launch's store took nothing of this stop in {waited_s:.0f} s (stalled, or its host gone), "
            f"so no other process learns of it from this one{newline}{rest}")
    with contextlib.suppress(Exception):  # noqa: BLE001 - a bug in the caller's untold_in_full: the line as it is
        line = watcher.untold_in_full(line) if watcher.untold_in_full is not None else line
    watcher.untold.set()
    watcher._say(line, isinstance(error, KeyboardInterrupt), isinstance(error, BrokenPipeError))


def _asked(prefix: str, ask: Callable):
    """``ask(store)`` of the keys under ``prefix``, asked once more through a fresh client where a blip broke the
    connection (``_reconnect``); the store's error raised where its host has ended or cannot be reached. Once, not
    ``GIVE_UP_AFTER_S`` as the watcher does: these are asked in a rank's work, case after case, which a network down
    would hold that long at each (a refusing host costs 0.1 ms, an unreachable one ``CONNECT_S``). Each ask waited
    for ``ANSWER_S`` at most (``_within``): the first on a reset client waits for torch's reverse lookup. A first ask
    left waiting that has answered by the time the fresh client is made (a store slow, not broken: its host stalled
    less than ``CONNECT_S`` more) is taken, not asked again: asked again, an ``add`` of 1 counted twice (30 of 30
    through stalls of 1.5 s, until the hundred-and-fifteenth session)."""
    asking, answer = _asking(lambda: ask(_store(prefix)))
    try:
        return _answered(asking, answer, ANSWER_S)
    except _store_gone():
        if _reconnect() is not True:  # ended, unreachable, or stalled: the rank's work goes on without it
            raise
    if answer and answer[0][0]:  # answered as the fresh client was made
        return answer[0][1]
    return _within(lambda: ask(_store(prefix)), ANSWER_S)


class _Asking:
    """The keys under ``prefix`` as a watcher's ``_end`` asks them (SIGTERM ignored by then: ``_deaf_to_sigterm``),
    and a met error's first record (``met_by_every_rank``), every call together waited for at most
    ``GIVE_UP_AFTER_S``: ended within it, where it waited for the store's timeout (30 min) until the
    hundred-and-fifteenth session. A store whose host takes a connection but does not answer (stalled: stopped,
    swapping) is waited on within that bound, as a watcher's poll waits on it: each call bounded at ``ANSWER_S`` (that
    session, until its review) failed ``_end`` after a stall of 2 s, which ended the main process saying no line,
    status 1 (benchmarks/results/review_end_stall_2026-12-06), and a met error's record after 1 s, the error then
    said not met by every rank. After a blip a call is
    asked again through the fresh client, a count (an ``add`` of more than 0) not: its answer lost once the store had
    made it would count a rank twice as holding the lock (the line said before another had written whole); one left
    waiting is waited on, and taken where it answers."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.until = time.monotonic() + GIVE_UP_AFTER_S

    def _asked(self, ask: Callable, again: bool = True):
        asking, answer = _asking(lambda: ask(_store(self.prefix)))
        while True:
            try:
                return _answered(asking, answer, ANSWER_S)
            except _store_gone():
                reconnected = _reconnect()  # a stalled host's fresh client is waited on, one in the making
                if reconnected is False or time.monotonic() > self.until or (answer and not again):
                    raise  # its host ended, the bound past, or a count that failed: not asked again
            if answer and answer[0][0]:  # answered as the fresh client was made
                return answer[0][1]
            if again and reconnected is True:  # through the fresh client; else the ask left waiting is waited on
                asking, answer = _asking(lambda: ask(_store(self.prefix)))
            elif answer:  # its error, no fresh client yet: a network unreachable answers a connect at once
                time.sleep(POLL_S)

    def add(self, key: str, amount: int) -> int:
        return self._asked(lambda store: store.add(key, amount), again=not amount)

    def check(self, keys: list[str]) -> bool:
        return self._asked(lambda store: store.check(keys))

    def get(self, key: str) -> bytes:
        return self._asked(lambda store: store.get(key))

    def set(self, key: str, value: str) -> None:
        self._asked(lambda store: store.set(key, value))


def _store_gone() -> type[Exception]:
    """What a store raises where its host has ended: torch's DistError (a DistNetworkError, "Broken pipe" or
    "Connection reset by peer"; a DistStoreError where it times out). Taken alone for the store gone where a rank goes
    on without it (``met_by_every_rank``, ``writes_for_the_line``, ``note_for_the_line``): any Exception was, in the
    hundred-and-fifth session until its review, and a bug in their code then passed for it, unraised (a met error
    said "not on every process")."""
    import torch.distributed as dist

    return dist.DistError


def _store(prefix: str):
    """The keys under ``prefix`` in the store the process group met in (the launch's rendezvous store); None
    before the group has started. Through torch's private API: there is no public one (module docstring)."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return None
    return dist.PrefixStore(prefix, _launch_store())


def _launch_store():
    """The process group's store, or the fresh client of it that stands in since a blip (``_reconnect``)."""
    import torch.distributed as dist

    default = dist.distributed_c10d._get_default_store()
    with _STAND_IN_LOCK:
        return _STAND_IN[1] if _STAND_IN and _STAND_IN[0] is default else default


def _reconnect() -> bool | str | None:
    """After a store call raised the store's own error: True where a fresh client of it now stands in (a blip reset
    the connection; torch 2.13's TCPStore client never reconnects, every later call failing "Broken pipe" while the
    store lives on), False where there is none to reach (its host has ended, its address refusing a connection; or a
    store with no address, such as a FileStore, which has no connection to lose), None where it cannot tell yet (a
    network down: the connect timed out), ``STALLED`` where the address takes a connection but the fresh client gets
    no answer within CONNECT_S (the host's process stopped or swapping: the kernel accepts for it). A stalled host
    holds the fresh client until it answers: one is made at a time (``_made_within``), a later reconnect waiting on it.

    The address is asked with a plain socket first: torch's own connect to an ended host retries until the store's
    timeout (30 min in a launch), then prints a C++ traceback (one per timeout: 40 lines after a 5 s one, nothing
    in the 40 s before with a 30 min one, measured in the review of the hundred-and-seventh session), where a refusal
    comes in 0.1 ms, silently (benchmarks/results/store_blip_2026-12-05). The whole ask, the lookup of the host's
    name included, waits at most CONNECT_S (``connect_within``): ``socket.create_connection``'s timeout bounds the
    connect alone (until the hundred-and-thirteenth session: benchmarks/results/store_name_lookup_2026-12-06). The
    fresh client is made to the address that answered (``_fresh_client``), not by name."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return None
    failed = _launch_store()
    if (address := _address(failed)) is None:
        return False
    # the name's lookup bounded too: a host named (MASTER_ADDR on several nodes) whose name server the outage took
    # held this call for the resolver's timeouts (10.0 s with one silent name server at glibc's defaults, measured),
    # publishing rank included; its answer kept from the watcher's first poll (``_note_while_it_answers``)
    if not (reached := connect_within(*address, within_s=CONNECT_S)):
        return reached
    try:
        if (fresh := _made_within(failed, reached, CONNECT_S)) is None:
            return STALLED
    except Exception:  # noqa: BLE001 - the store's error (its host ended meanwhile: the next connect is refused)
        return None
    with _STAND_IN_LOCK:
        _STAND_IN[:] = [dist.distributed_c10d._get_default_store(), fresh]
    return True


def _made_within(failed, at: str, wait_s: float):
    """A fresh client of the store whose client ``failed`` (``_fresh_client``), waited for ``wait_s``: the one in the
    making for it where there is one, else one begun now; None where it is still being made (left making, for the
    next call); the store's error where the making failed. One at a time, as ``connect_within`` looks a name up: a host
    stalled 35 s held one thread and socket per retry, each answered as it resumed (until the hundred-and-fourteenth
    session's review)."""
    with _STAND_IN_LOCK:
        if not (_MAKING and _MAKING[0] is failed):
            _MAKING[:] = [failed, *_asking(lambda: _fresh_client(failed, at))]
        _, making, answer = _MAKING
    making.join(wait_s)
    if not answer:
        return None
    with _STAND_IN_LOCK:
        if _MAKING and _MAKING[1] is making:  # taken: a client that fails next has one made for it
            _MAKING.clear()
    made, value = answer[0]
    if not made:
        raise value
    return value


def _fresh_client(failed, at: str):
    """A new client of the launch's store (the same keys, its prefixes kept, over a new connection) whose client
    ``failed``, at the address ``at`` that answered (``connect_within``). Where the prefixes of its keys were learned
    (``_note_while_it_answers``), a TCPStore of that address, as ``failed``'s own (its timeout, its backend): torch's
    ``clone()`` looks the host's name up again, which a name server the outage took holds for the resolver's timeouts,
    the fresh client lost (until the hundred-and-fourteenth session); ``clone()`` where they were not."""
    import torch.distributed as dist

    if not (_NOTED and _NOTED[0] is dist.distributed_c10d._get_default_store() and _NOTED[1] is not None):
        return failed.clone()
    bottom = _layers(failed)[1]
    fresh = dist.TCPStore(at, bottom.port, is_master=False, wait_for_workers=False, timeout=bottom.timeout,
                          use_libuv=bottom.libuvBackend)
    return _prefixed(fresh, _NOTED[1])


def _note_while_it_answers() -> None:
    """Once for the launch's store, while it answers (a watcher's poll), what a fresh client of it needs after a blip
    that took the name server too (``_fresh_client``): its host's name looked up ahead (``look_up_ahead``, the answer
    kept for ``connect_within``), and the prefixes its keys go under, which torch does not expose: a mark set through
    the store is looked for under torch's own, "<the group's name>/" over ``init_process_group``'s "default_pg" over a
    rendezvous' store (a launch's), or over a store given to it. Neither (prefixes of another torch): ``clone()``, as
    before. Through the client that stands in, where one does: the default's own is broken then."""
    import torch.distributed as dist

    if not dist.is_initialized() or (_NOTED and _NOTED[0] is dist.distributed_c10d._get_default_store()):
        return
    default, answering = dist.distributed_c10d._get_default_store(), _launch_store()
    layers, bottom = _layers(answering)
    if isinstance(bottom, dist.TCPStore):
        look_up_ahead(bottom.host, bottom.port)
        answering.set(_MARK, "1")
        group = f"{dist.group.WORLD.group_name}/"
        for prefixes in ((group, "default_pg"), (group,)):
            if len(prefixes) == layers and _prefixed(bottom, prefixes).check([_MARK]):
                _NOTED[:] = [default, prefixes]
                return
    _NOTED[:] = [default, None]  # no address (a FileStore), or prefixes not found: not asked again at each poll


def _prefixed(store, prefixes: tuple[str, ...]):
    """``store`` under ``prefixes``, the outermost first."""
    import torch.distributed as dist

    for prefix in reversed(prefixes):
        store = dist.PrefixStore(prefix, store)
    return store


def _layers(store) -> tuple[int, object]:
    """How many PrefixStores wrap the store under ``store``, and that store."""
    import torch.distributed as dist

    layers = 0
    while isinstance(store, dist.PrefixStore):
        layers, store = layers + 1, store.underlying_store
    return layers, store


def _address(store) -> tuple[str, int] | None:
    """The host and port of the TCPStore under ``store``'s prefixes; None for a store of another kind."""
    import torch.distributed as dist

    store = _layers(store)[1]
    return (store.host, store.port) if isinstance(store, dist.TCPStore) else None


def _poll(store, stop: dict) -> str | None:
    """A watcher's poll: the error published in ``store`` (``_polled``), None where none is, waited for ``ANSWER_S`` at
    most (``_within``: the first failing call on a reset client waits for torch's reverse lookup of its host, 10.0 s
    with a name server silent, before it raises). Where there is one, what its publish set before it, into ``stop``
    (``_read_the_stop``), within ``ANSWER_S`` of its own, as far as the store answers: ``_end`` reads the rest. Read
    under the message's bound (the hundred-and-twenty-second session, until its review), the five to seven calls took
    a store answering each in 0.15 s past it: the message read was dropped, the store taken for broken and a fresh
    client asked again, at every poll for as long as the store was that slow, no process ending for the stop (two
    calls, 0.3 s, before that session: benchmarks/results/review_stop_read_2026-12-07/poll_calls_*.txt)."""
    message = _within(lambda: _polled(store), ANSWER_S)
    if message is not None:
        with contextlib.suppress(_store_gone()):
            _within(lambda: _read_the_stop(store, stop), ANSWER_S)
    return message


def _polled(store) -> str | None:
    """The error published in ``store``, None where none is; what a reconnect needs noted first, while the store
    answers (``_note_while_it_answers``)."""
    _note_while_it_answers()
    return _read(store.get(MESSAGE)) if store.check([MESSAGE]) else None


def _read_the_stop(store, stop: dict) -> None:
    """What a stop's publish sets before its message (``_publish``), into ``stop``: whether it is an interrupt and the
    signal it was, a reader gone, a peer gone. One key at a time, each kept before the next call, the store's error
    raised: an interrupt read together with the rest, and the store failing at the rest, was said as an error, status
    1. Read by the poll that sees the message, where the store answers (``_poll``), else by ``_end``: the store may
    end before ``_end`` reads it (the main process's node gone), and a process other than the main one then ended with
    status 1 saying nothing, where the stop was another's (until the hundred-and-twenty-second session:
    benchmarks/results/stop_store_dies_in_end_2026-12-07)."""
    stop[INTERRUPTED] = bool(store.check([INTERRUPTED]))
    stop[STOPPED_BY] = int(store.get(STOPPED_BY)) if stop[INTERRUPTED] and store.check([STOPPED_BY]) else 0
    stop[READER_GONE] = bool(store.check([READER_GONE]))
    stop[PUBLISHED_BY] = int(store.get(PUBLISHED_BY)) if store.check([PUBLISHED_BY]) else None
    stop[FOR_A_PEER_GONE] = bool(store.check([FOR_A_PEER_GONE]))  # the last: read, the rest were


def _within(call: Callable, wait_s: float):
    """``call()``'s answer, waited for at most ``wait_s`` in a daemon thread, left waiting after it: the store's own
    error (a DistNetworkError) where none came in time. torch's first call on a client whose connection was reset
    waits for a reverse lookup of the client socket's host before it raises ("The hostname of the client socket
    cannot be retrieved", torch 2.13's socket.cpp: 10.0 s with one silent name server); a call on a network that drops
    what comes without a reset waits for the store's timeout (the process group's, 30 min by default: still waiting
    after 45 s, benchmarks/results/store_name_lookup_2026-12-06/name_lookup_h75.txt); and a connect to an address that
    accepts yet serves nothing (a host stopped, SIGSTOP) waits past any store timeout (still waiting after 120 s with
    a 30 s one, measured)."""
    return _answered(*_asking(call), wait_s)


def _answered(asking: threading.Thread, answer: list, wait_s: float):
    """The answer of ``asking`` (``_asking``), waited for at most ``wait_s``: returned, or its error raised; the
    store's own error where none came in time, the thread left waiting (``_within``)."""
    import torch.distributed as dist

    asking.join(wait_s)
    if not answer:
        raise dist.DistNetworkError(f"the launch's store did not answer within {wait_s} s")
    answered, value = answer[0]
    if not answered:
        raise value
    return value


def _asking(call: Callable) -> tuple[threading.Thread, list]:
    """A started daemon thread asking ``call()``, and the list its answer goes into: (True, the value) or (False, the
    error), for the thread that waits on it to return or raise."""
    answer: list = []

    def ask() -> None:
        try:
            answer.append((True, call()))
        except BaseException as error:  # noqa: BLE001 - raised in the caller's thread
            answer.append((False, error))

    asking = threading.Thread(target=ask, name="stopping-together-store-call", daemon=True)
    asking.start()
    return asking, answer


class _Watcher(threading.Thread):
    """Watches the store for a published error and ends this process with its line (``stopping_together``)."""

    def __init__(self, prefix: str, in_full: Callable[[str], str], interrupt_said_on: str = "stderr",
                 peer_gone_in_full: Callable[[str], str] | None = None,
                 untold_in_full: Callable[[str], str] | None = None):
        super().__init__(name="stopping-together", daemon=True)
        self.prefix, self.in_full, self.interrupt_said_on = prefix, in_full, interrupt_said_on
        self.peer_gone_in_full = peer_gone_in_full  # a stop for a peer gone's line in full (``said_in_full``)
        self.untold_in_full = untold_in_full  # the line of a stop the store took nothing of (``_said_untold``)
        self.untold = threading.Event()  # that line is said: this process publishes no more (``stop_every_rank``)
        self.done = threading.Event()  # the measurement ended without a published error
        self.writing = WritingLock()  # held while the caller writes what the line names; knows its thread
        # the main process's end waits past LINE_BY_S for a write making progress (``_write_finished``): the caller's
        # wait for the end waits on with it (``wait_for_the_end``), for as long as it went on
        self.waiting_past_line_by = threading.Event()
        self.waited_past_line_by_s = 0.0
        self.cut_short_after = ""  # when and why the write under the lock was cut short (``_write_finished``)
        self.gave_up = threading.Event()  # the store failed: the error is said where it was raised
        self.seen = threading.Event()  # a published error was seen: this process is about to end
        self.kept_where = False  # where this process runs is kept in the store (``lost_processes``)
        # where the main process runs, read from the store as soon as it is kept there, on every other process: for a
        # line naming it lost once the store has ended with its node (``_read_where_the_main_process_runs``)
        self.places: dict[int, str] = {}
        # the line naming the main process lost, made by this process's own publish of a stop for a peer gone while the
        # store lived (``_publish``): said where the store ends before this process has read which stop it is
        self.main_process_lost = ""
        self.main_process_placed = False  # read (or this is the main process, or given up): not asked again
        # what the stop's publish set before its message (``_read_the_stop``), read by the poll that saw the message
        # while the store answered: for ``_end`` to say the stop as it is, and end with its status, should the store end
        # before it has read them
        self.stop: dict[str, object] = {}
        self.place_looks = 0  # how many polls have asked for it
        self._saying = threading.Lock()
        # who says this process's line: "watcher", "caller" (``_publish``) or "untold" (``_said_untold``)
        self._says: str | None = None

    def said_in_full(self, line: str, peer_gone: bool, main_process: bool = True) -> str:
        """``line`` as this process says it: a stop for a peer gone's through the caller's ``peer_gone_in_full``
        where it gave one (``stopping_together``); any other through ``in_full`` on the main process, as it is on
        another."""
        if peer_gone and self.peer_gone_in_full is not None:
            return self.peer_gone_in_full(line)
        return self.in_full(line) if main_process else line

    def said_for_the_main_process(self, line: str) -> str:
        """``line``, on a process other than the main one, where the main process ended before it answered a stop: in
        full as a stop for a peer gone's is (``peer_gone_in_full``: training's step and checkpoint), else as a line of
        this process's own is (``untold_in_full``: predict's cases this process wrote whole), else as it is. A bug in
        either: the line as it is."""
        full = self.peer_gone_in_full or self.untold_in_full
        try:
            return full(line) if full is not None else line
        except Exception:  # noqa: BLE001 - the caller's: the line is said all the same
            return line

    def say_the_main_process_lost(self) -> None:
        """On a process other than the main one, at a stop for a peer gone whose store ended with the main process's
        node before this process read the main process's answer: say it lost, once on this node (``say_the_error``),
        from the line its publish made while the store lived, else from where the main process ran, read at this
        watcher's polls (``places``); in full as the caller has it (``said_in_full``: training's with the newest whole
        checkpoint); as it is where that raises (a bug, a checkpoints folder that cannot be read), as the main process
        says its own then (``_said_though_the_store_failed``): nothing was said until the hundred-and-twenty-second
        session's review."""
        say_the_error(self.lost_in_full(self.main_process_lost or said_lost(None, [0], self.places)))

    def lost_in_full(self, line: str) -> str:
        """On a process other than the main one, ``line`` naming the main process lost in full as the caller has it
        (``said_in_full``), as it is where the caller's completion raises."""
        try:
            return self.said_in_full(line, peer_gone=True, main_process=False)
        except Exception:  # noqa: BLE001 - the caller's: the line is said all the same
            return line

    def says_the_line(self) -> bool:
        """Whether this watcher says the line in this process: not where its rank's caller says it already, its
        publish left waiting in a stalled store (``leave_the_line_to_the_caller``); the first of the two decides."""
        with self._saying:
            self._says = self._says or "watcher"
            return self._says == "watcher"

    def says_it_untold(self) -> bool:
        """Whether this process, a stop of its own taken by no store, says that stop's line itself (``_said_untold``):
        once, the first of its stops, and not where its watcher or its caller says a line already."""
        with self._saying:
            first, self._says = self._says is None, self._says or "untold"
            return first

    def leave_the_line_to_the_caller(self) -> bool:
        """Whether the rank's caller, whose publish got no answer (``_publish``), says its error: its publish may land
        yet from the thread left waiting (a store stalled), and this watcher end the process for it, its line said
        once, by the caller (the watcher said it too until the hundred-and-fourteenth session's review). False where
        this watcher says it already: the caller then waits for it to end the process."""
        with self._saying:
            self._says = self._says or "caller"
            return self._says == "caller"

    def run(self) -> None:
        # the first look at once: where this process runs is kept before a short work can lose it (``lost_processes``)
        store, broken, failing_since, wait_s = None, False, None, 0.0
        try:
            while not self.done.wait(wait_s):
                wait_s = max(wait_s, POLL_S)  # each look after the first POLL_S after the one before, or more
                if not broken:
                    try:
                        if store is None:  # until the process group has started, and after a reconnection
                            store = _store(self.prefix)
                            self._keep_where_this_process_runs(store)
                        # waited for ANSWER_S at most: the first failing call on a reset client waits for torch's
                        # reverse lookup of its host (10.0 s, a name server silent) before it raises
                        message = _poll(store, self.stop) if store is not None else None
                        if message is None and store is not None:
                            self._read_where_the_main_process_runs(store)
                        elif message is not None:
                            self._read_where_the_main_process_runs_at_the_stop(store)
                    except _store_gone():
                        # A blip or the store's host ended (rank 0's, outside torch elastic): the first error ended the
                        # watch for good until the hundred-and-seventh session, one rank's error then stopping no other.
                        broken, failing_since = True, failing_since or time.monotonic()
                if broken:
                    # torch's client never reconnects, and each call it fails prints a C++ traceback: the broken one is
                    # not asked again (it was at each retry, in the hundred-and-seventh session until its review). A
                    # fresh client where the host still listens, polled as before; given up at once where the address
                    # refuses (ended), or after GIVE_UP_AFTER_S of failing (a network that stays down), backing off.
                    # A host that takes the connection but does not answer is stalled, not down: waited on however
                    # long, as a poll waited on it before ANSWER_S, its fresh client's making waited on at each retry
                    # (given up after 30 s, an error published after it unseen, in the hundred-and-fourteenth session
                    # until its review).
                    reconnected = _reconnect()
                    if reconnected is False or (reconnected is None
                                                and time.monotonic() - failing_since > GIVE_UP_AFTER_S):
                        self.gave_up.set()
                        return
                    if reconnected is True:  # a fresh client failing again keeps the clock: only an answer resets it
                        store, broken, wait_s = None, False, POLL_S
                    elif reconnected == STALLED:  # it answers the connect: a network down is timed from its next
                        failing_since, wait_s = time.monotonic(), POLL_S
                    else:
                        wait_s = min(2 * wait_s, RETRY_MAX_S)
                    continue
                failing_since = None
                if message is not None:
                    import torch.distributed as dist

                    self.seen.set()
                    self._end(_Asking(self.prefix), message, dist.get_rank(), dist.get_world_size())
        except Exception:  # a bug, or the store failing as the process ends (``_end``): nothing to watch
            self.gave_up.set()

    def _keep_where_this_process_runs(self, store) -> None:
        """Once, as the store is first reached: for the main process's line, should this process be lost
        (``lost_processes``). One store call a process; where it fails, the watch goes on (its next call tells a store
        gone), and it is tried again with the next client."""
        if store is not None and not self.kept_where:
            import torch.distributed as dist

            with contextlib.suppress(Exception):  # noqa: BLE001 - a line's detail: never the watch's end
                rank = dist.get_rank()
                _within(lambda: keep_where_this_process_runs(store, rank), ANSWER_S)  # as a poll is (``_within``)
                self.kept_where = True

    def _read_where_the_main_process_runs(self, store) -> None:
        """On a process other than the main one, after each poll that answered until it is read: where the main process
        runs (``lost_processes.where_it_runs``; kept at its own first poll, as a rule), for a line naming it lost once
        the store has ended with its node. Its node's agent ends with it, and the store with the agent, often before
        this process meets the collective's error (in its validation, its export, a step's forward when the main
        process died): the line said no node then, "process 0 was lost", until the hundred-and-fifteenth session's
        review. One store call a poll until read, ``PLACE_LOOKS`` at most (a main process whose own keep failed would
        have every process ask at each poll for the whole run); the store's own error raised, as the poll's is, for the
        broken client to be asked no more; any other left unsaid (a line's detail: never the watch's end)."""
        if self.main_process_placed:
            return
        import torch.distributed as dist

        self.place_looks += 1
        try:
            if dist.get_rank() == 0 or self.place_looks > PLACE_LOOKS:  # the main process names only the others
                self.main_process_placed = True
            elif (place := _within(lambda: where_it_runs(store, 0), ANSWER_S)) is not None:
                self.places[0], self.main_process_placed = place, True
        except _store_gone():
            raise
        except Exception:  # noqa: BLE001 - not asked again
            self.main_process_placed = True

    def _read_where_the_main_process_runs_at_the_stop(self, store) -> None:
        """On a process other than the main one, at the poll that saw a stop, where its earlier polls have not read
        where the main process runs (``_read_where_the_main_process_runs``: ``PLACE_LOOKS`` at most, a launch's first
        5 s, which a loaded host can outlast before the main process keeps it; or each look failed): once more, within
        ``ANSWER_S``, for a line that names its node should the store end first (``_said_unread``,
        ``say_the_main_process_lost``). That line said no node in 1 of 3 runs of the hundred-and-twenty-second
        session's test of it on a loaded machine (its review: benchmarks/results/review_stop_read_2026-12-07/).
        Never raises: the stop is this poll's answer."""
        import torch.distributed as dist

        with contextlib.suppress(Exception):  # noqa: BLE001 - a line's detail: never the stop's end
            if 0 not in self.places and dist.get_rank() != 0:
                if (place := _within(lambda: where_it_runs(store, 0), ANSWER_S)) is not None:
                    self.places[0] = place

    def _end(self, store, message: str, rank: int, ranks: int) -> None:
        # An interrupt is asked for, not an error: its line is said as it is, and every rank ends with status 130.
        # A reader gone is none either: its line is left for the launcher alone, and every rank ends with 141.
        # held: the main process's lock taken; line_said: its line said, or on another process a line said or left for
        # the launcher (else the finally says what it can: ``_said_though_the_store_failed``, ``_said_unread``)
        held = line_said = False
        line_by = time.monotonic() + LINE_BY_S  # the main process's line said by then, whatever write it waits for
        try:
            _deaf_to_sigterm()  # here, where the finally's os._exit follows, whatever fails
            # what the publish set before the message (an interrupt and its signal, a reader gone, a peer gone): as
            # the poll read it, else here, each answer kept should the store fail at the next (``_read_the_stop``)
            if FOR_A_PEER_GONE not in self.stop:
                _read_the_stop(store, self.stop)
            interrupted, reader_gone, stopped_by, peer_gone = _how_it_stops(self.stop)
            answer(store, rank)  # first: another rank may be taking a roll call (``lost_processes``)
            if rank == 0:
                # At a stop for a peer gone, a rank that has not answered within ROLL_CALL_S (3.4 s) is lost (ended, or
                # its node cut off), and one on this node seen ended in /proc at once ("seen ended on its node":
                # processes_beside): no wait below is for it, and the line names it in place of gloo's error; the main
                # process waited 13 s for it, then said gloo's, until the hundred-and-fourteenth session
                # (``lost_processes``). Where every rank answers (a network's reset between nodes), as before.
                lost = lost_processes(store, ranks) if peer_gone else []
                if lost:
                    message = said_lost(store, lost)
                # At any other stop, a rank of this node seen ended before it has done what the waits below wait for
                # (killed as the stop came: a job's SIGTERM racing the OOM killer; or as it finishes its file, whose
                # memory is the last straw) is no more waited for than a lost one, and named after the stop: the waits
                # held the main process 13 s for it, its line naming neither, until the hundred-and-eighteenth session
                # (before it answered) and its review r84 (after: ``lost_processes.EndedInTheStop``). Looked at again
                # at each of their looks: it may end after they begin. Each rank's step is its own key, not a count: a
                # rank seen ended after it had counted was subtracted twice, and one still writing not waited for.
                others = [other for other in range(1, ranks) if other not in lost]
                ended_first = EndedInTheStop(store, [] if peer_gone else others)

                def every_other_rank_has(step: str) -> bool:
                    ended_first.look()
                    keys = [f"{step}/{other}" for other in others if other not in ended_first.ranks]
                    return not keys or store.check(keys)

                # every other rank's file being written is written whole first, and named (``note_for_the_line``);
                # no wait where none writes (a rank killed outright never answers)
                if int(store.add(WRITERS, 0)):
                    _wait_for(lambda: every_other_rank_has(HELD), SAID_WAIT_S)
                if ended_first.look():
                    message = said_ended_in_the_stop(store, message, ended_first.ranks)
                    if not interrupted:  # before the line, whose wait for this process's write keeps its bound
                        ended_first.reaped()
                # A results file being written is written whole, and named; the lock is kept to the exit, so that
                # nothing the line names changes after it is said: training's main thread, which goes on where
                # another rank was interrupted alone, renames a checkpoint under it and rotates the one named away
                # (changing_what_the_line_names; released after the print until the hundred-and-sixth session).
                # Not past LINE_BY_S under torch elastic, nor past its progress outside it (``_write_finished``): a
                # write cut short (a hung filesystem) is said so (``_held_or_cut_short``); waited for with no bound
                # until the hundred-and-seventeenth session.
                held = self._write_finished(line_by)
                line = _held_or_cut_short(self.said_in_full(message, peer_gone), held, self.cut_short_after)
                line_said = True  # before the print: one that failed half way is not tried again
                if self.says_the_line():  # not where the caller said it (``_publish``); the others read it all the same
                    self._say(line, interrupted, reader_gone)
                store.set(SAID, _stored(line))
                # outside torch elastic the store is this process's: the others read the line from it first
                _wait_for(lambda: every_other_rank_has(LEFT), LEFT_WAIT_S)
            else:
                # At a stop for a peer gone, the main process lost (not answering within ROLL_CALL_S; killed, its node's
                # agent ends, and the store it keeps with it) says no line: this rank says it, once on its node
                # (``say_the_error``). It ended saying nothing, the store gone as it waited for the line, since the
                # first commit of the hundred-and-fourteenth session, and said gloo's error before.
                if peer_gone:
                    # first: the store may end with the main process's node
                    line = self.lost_in_full(said_lost(store, [0], self.places))
                    if _the_main_process_lost(store, ranks):
                        line_said = True
                        if self.says_the_line():
                            say_the_error(line)
                        return
                # a file this rank is writing (predict --split cases: each writes its own) is finished first, and
                # none begun after; not for ever: the writing thread may be the one that published, waiting for this
                self.writing.acquire(timeout=SAID_WAIT_S)
                store.set(f"{HELD}/{rank}", "1")
                # the main process seen ended on this node before it said the line (killed as the stop came, or as it
                # waited for the others' files) never says it: this rank says it, naming it lost, where it waited
                # SAID_WAIT_S and said nothing until the hundred-and-eighteenth session (before it answered the stop)
                # and its review r84 (after it: ``lost_processes.EndedInTheStop``)
                main_process = EndedInTheStop(store, [0])
                said = _wait_for(lambda: store.check([SAID]) or main_process.look(), SAID_WAIT_S)
                if main_process.ranks and not store.check([SAID]):
                    line = self.said_for_the_main_process(said_ended_in_the_stop(store, message, [0], self.places))
                    line_said = True
                    if self.says_the_line():
                        self._say_once_on_this_node(line, interrupted, reader_gone)
                    if not interrupted:
                        main_process.reaped()
                    return
                # an interrupt as the main process says it, not "error: predict interrupted ..." (until the
                # ninety-ninth session)
                leave_for_the_launcher(_read(store.get(SAID)) if said else message,
                                       error=not (interrupted or reader_gone))
                line_said = True
                store.set(f"{LEFT}/{rank}", "1")
        finally:  # whatever failed above, this rank must not stay in its collective
            interrupted, reader_gone, stopped_by, peer_gone = _how_it_stops(self.stop)  # as far as read
            if rank == 0 and not line_said:
                self._said_though_the_store_failed(message, held, line_by, peer_gone, interrupted, reader_gone)
            elif rank != 0 and not line_said:
                self._said_unread(message)
            _flushed_if_read()
            exit_now(128 + stopped_by if stopped_by else EXIT_INTERRUPTED if interrupted
                    else EXIT_READER_WENT_AWAY if reader_gone else 1)

    def _said_though_the_store_failed(self, message: str, held: bool, line_by: float, peer_gone: bool,
                                      interrupted: bool, reader_gone: bool) -> None:
        """The main process's line where its ``_end`` failed before it, as ``_end`` says it, under the lock (waited for
        until ``line_by`` at most, as there): the store stalled past ``GIVE_UP_AFTER_S`` (``_Asking``) or its host
        ended, or the caller's ``in_full`` raised (then the message as it came). Said from the message the watcher's
        poll read, with what the store told before it failed (an interrupt, a reader gone, a peer gone and the
        processes lost: where it failed before them, the line is an error's, status 1). The process ended saying no
        line until the hundred-and-sixteenth session, its main thread held in a collective
        (benchmarks/results/long_end_stall_2026-12-06: a stall of 35 s). Never raises: the exit follows."""
        with contextlib.suppress(Exception):  # noqa: BLE001 - the process's exit follows, whatever fails here
            held = held or self._write_finished(line_by)
            try:
                line = self.said_in_full(message, peer_gone)
            except Exception:  # noqa: BLE001 - a bug in the caller's in_full: its message, not none
                line = message
            line = _held_or_cut_short(line, held, self.cut_short_after)
            if self.says_the_line():
                self._say(line, interrupted, reader_gone)

    def _said_unread(self, message: str) -> None:
        """On a process other than the main one, where its ``_end`` failed before this process said or left any line:
        the store ended (with the main process's node, whose agent keeps it: a loaded host held this process's end
        past the main process's line, its ``LEFT_WAIT_S`` and its exit), or stalled past ``GIVE_UP_AFTER_S``, before
        this process read the main process's line. What it read of the stop (``stop``, the poll's as a rule) is said:

        - a stop for a peer gone (read; or, unread, this process's own publish of one, ``main_process_lost``): the main
          process named lost (``say_the_main_process_lost``; the hundred-and-twenty-first session's, for its publish);
          not where the main process published it (``PUBLISHED_BY``): alive at the stop, it named the processes lost
          and said that line, and this process named it lost in its place (the hundred-and-twenty-second session,
          until its review: benchmarks/results/review_stop_read_2026-12-07/main_published_peer_gone_*.txt), said as
          any other stop below;
        - any other, the main process running on this node: left for the launcher's table, as this process leaves the
          main process's line, which that process says (``_said_though_the_store_failed`` where its store failed too);
        - else once on this node: the stop's message and why this process says it (``_unread_line``), in full as this
          process has it (``said_for_the_main_process``), as an interrupt's or a reader gone's where it is one.

        Until the hundred-and-twenty-second session it ended with status 1 whatever the stop (an interrupt's 130 or
        143 included), saying nothing, its launcher's table naming no error file (a training's Ctrl-C to the main
        process), or naming the main process lost, which had said its own line (a predict's error or SIGTERM there,
        whose collective broken as that process ended this one published as a peer gone, second):
        benchmarks/results/stop_store_dies_in_end_2026-12-07. Never raises: the exit follows."""
        interrupted, reader_gone, _, peer_gone = _how_it_stops(self.stop)
        with contextlib.suppress(Exception):  # noqa: BLE001 - the process's exit follows, whatever fails here
            if (peer_gone and self.stop.get(PUBLISHED_BY) != 0) or (FOR_A_PEER_GONE not in self.stop
                                                                     and self.main_process_lost):
                if self.says_the_line():
                    self.say_the_main_process_lost()
            elif self.places.get(0) == where_this_process_runs():
                leave_for_the_launcher(message, error=not (interrupted or reader_gone))
            elif self.says_the_line():
                line = self.said_for_the_main_process(_unread_line(message, interrupted, self.places))
                self._say_once_on_this_node(line, interrupted, reader_gone)

    def _write_finished(self, line_by: float) -> bool:
        """Whether the write under the lock finished, the lock then taken (at once where none is under way): waited for
        until ``line_by`` (``LINE_BY_S`` after the stop). Past it, outside torch elastic (no agent's SIGKILL), for as
        long as the write's thread makes progress, running or writing within each ``NO_PROGRESS_S``, until
        ``LONGEST_WRITE_S`` after the stop, a further SIGINT or SIGTERM ending the process at once
        (``write_progress``): a write that was only long, a large probability map's 68 s, was cut short at 25 s there
        as well (the hundred-and-seventeenth session, until its review), and one that hangs is still cut short. Where
        it is cut short, ``cut_short_after`` says when and why, for the line (``_held_or_cut_short``)."""
        if _held_by(self.writing, line_by):
            return True
        if under_an_agent():  # its SIGKILL 30 s after its SIGTERM, which comes at the stop's earliest
            self.cut_short_after = f"{LINE_BY_S:.0f} s after the stop, the longest torch elastic's agent leaves it"
            return False
        stop, longest_by = line_by - LINE_BY_S, line_by - LINE_BY_S + LONGEST_WRITE_S
        if (before := progress(self.writing.holder)) is None:  # no /proc (macOS): no progress to tell it by
            self.cut_short_after = f"{LINE_BY_S:.0f} s after the stop, its progress unknown here"
            return self.writing.acquire(blocking=False)  # finished as its holder was read
        self.waiting_past_line_by.set()
        try:
            with ended_by_a_further_signal():
                while before is not None and time.monotonic() < longest_by:
                    if self.writing.acquire(timeout=max(0.0, min(NO_PROGRESS_S, longest_by - time.monotonic()))):
                        return True
                    now = progress(self.writing.holder)
                    before = now if now != before else None
                    self.waited_past_line_by_s = time.monotonic() - line_by
        finally:
            self.waited_past_line_by_s = time.monotonic() - line_by
            self.waiting_past_line_by.clear()
        if self.writing.acquire(blocking=False):  # finished as its progress was read: its thread's gone from /proc
            return True
        if before is not None:
            self.cut_short_after = f"{LONGEST_WRITE_S:.0f} s after the stop, the longest it is waited for"
        else:  # hung
            self.cut_short_after = (f"{time.monotonic() - stop:.0f} s after the stop, making no progress (its file "
                                    f"system, or a pipe it writes to, not answering)")
        return False

    def _say(self, line: str, interrupted: bool, reader_gone: bool) -> None:
        """The main process's line, as ``_end`` says it."""
        if interrupted:  # looked up now: the stream may have been replaced since (closed_output)
            say_whole(line, getattr(sys, self.interrupt_said_on))
        if interrupted or reader_gone:  # in the launcher's table, whose row for this rank gave its link
            leave_for_the_launcher(line, error=False)
        else:
            say_the_error(line)

    def _say_once_on_this_node(self, line: str, interrupted: bool, reader_gone: bool) -> None:
        """The line of a process other than the main one where the main process ended before it said the stop's line:
        every such process of the node says it, so the first to say it does (``say_once_on_this_node``), each leaving
        its own for the launcher's table, as an error's line is said (``_say``). An interrupt's was said by each, 7
        lines on a node of 8 (the hundred-and-eighteenth session, until its review r84). Outside torch elastic's agent
        each says it as before: the fallback there is the node's local rank 0, the main process killed."""
        if interrupted and under_an_agent():
            say_once_on_this_node(line, getattr(sys, self.interrupt_said_on), line, error=False)
        else:
            self._say(line, interrupted, reader_gone)

    def wait_for_the_end(self) -> None:
        """Wait for this watcher to end the process; return where it cannot: its store failed before it saw the error
        (``gave_up``), or it does not see it in the time a look takes. Once it has seen it, its ``_end`` ends the
        process, the line said by it alone (``os._exit`` in its ``finally``, whatever fails; the main process's line
        said even where the store failed first: ``_said_though_the_store_failed``): waited for as long as its end may
        take through a store that stalls, every bound of the end together (``longest_end_through_a_stall_s() +
        BUSY_MACHINE_S``, 68.2 s; 63.6 s before the main process's lock was waited for within ``LINE_BY_S``, in the
        hundred-and-seventeenth session), and as long again as the main process's end waits past ``LINE_BY_S`` for a
        write making progress (outside torch elastic, ``_write_finished``; since that session's review). A bound
        shorter than the end returned to the caller, who then said a line of its own beside the watcher's, or before
        the watcher's exit cut it short: a fixed 15.2 s until the hundred-and-fourth session, shorter than another
        rank's 20 s of waits; ``longest_end_s() + BUSY_MACHINE_S`` (28.4 s) until the hundred-and-sixteenth, shorter
        than a main process's end through a store stalled 26 s (two lines,
        benchmarks/results/long_end_stall_2026-12-06). No bound (that session, until its review) left a process whose
        end another thread's hung write held deaf to SIGINT and SIGTERM for as long as it hung; since the
        hundred-and-seventeenth the end itself cuts such a write short (``LINE_BY_S``). Deaf to a second Ctrl-C
        meanwhile (``_deaf_to_sigint``), and to a SIGUSR1 that would raise a stop (``_deaf_to_a_sigusr1_stop``)."""
        with _deaf_to_sigint(), _deaf_to_a_sigusr1_stop():
            # it looks again within POLL_S, or a poll unanswered, RETRY_MAX_S and a reconnection (two connects) where a
            # blip has it retrying
            seeing_by = time.monotonic() + ANSWER_S + RETRY_MAX_S + 2 * CONNECT_S + BUSY_MACHINE_S
            while not self.seen.wait(POLL_S):
                if not self.is_alive() or time.monotonic() > seeing_by:  # its store failed (``gave_up``)
                    return
            # Bounded past every bound of the end, its stalls included: an end held past them is held by no store but
            # by what nothing here bounds (the caller's in_full reading a hung filesystem, a print of the line into a
            # pipe no one reads; until the hundred-and-seventeenth session another thread's write under the lock),
            # and waiting on it for ever, SIGINT and SIGTERM ignored, left a process that only SIGKILL ended (the
            # hundred-and-sixteenth session, until its review:
            # benchmarks/results/review_stop_end_2026-12-06/held_lock_*.txt); the caller then says its own line. Plus
            # however long the main process's end waited past LINE_BY_S for a write making progress (outside torch
            # elastic: ``_write_finished``), as long as it waits: a fixed bound returned at 68.2 s where a map took 68 s
            # more, and the caller said its line beside the watcher's.
            ending_by = time.monotonic() + longest_end_through_a_stall_s() + BUSY_MACHINE_S
            while self.is_alive() and (self.waiting_past_line_by.is_set()
                                       or time.monotonic() < ending_by + self.waited_past_line_by_s):
                self.join(POLL_S)


@contextlib.contextmanager
def _deaf_to_sigint() -> Iterator[None]:
    """SIGINT ignored inside, where the main thread waits for its watcher to end the process: a second Ctrl-C there
    (a terminal's second press, as the ranks end) raised KeyboardInterrupt out of the wait, and training's main process
    said its line a second time, as its watcher said it (hundred-and-sixth session's review). Put back on the way out,
    where the watcher could not end the process (its store failed) and the caller raises. Another thread (predict's
    pipeline stages) cannot set it, and no SIGINT reaches it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)


@contextlib.contextmanager
def _deaf_to_a_sigusr1_stop() -> Iterator[None]:
    """SIGUSR1 ignored inside, where its handler raises a stop (``sigterm.raises_a_stop``: a launched predict's, since
    the hundred-and-twentieth session) and the main thread waits for its watcher to end the process: after a Ctrl-C
    or an error of its own, a job's SIGUSR1 there was raised out of the wait as a stop of its own (that session's
    review): the command said its line beside the watcher's, or ended with 138 in place of the stop's status. The stop
    under way is the one said; a SIGTERM there is ignored once the watcher has seen it (``_deaf_to_sigterm``), and
    training's handler, which notes a save, is left as it is. Put back on the way out, as ``_deaf_to_sigint``'s."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGUSR1"):
        yield
        return
    handler = signal.getsignal(signal.SIGUSR1)
    if not raises_a_stop(handler):
        yield
        return
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGUSR1, handler)


def longest_end_s() -> float:
    """The longest a watcher's ``_end`` waits before it ends the process, whichever its role. The main process's: a roll
    call at a stop for a peer gone (``ROLL_CALL_S``) and ``SAID_WAIT_S`` for the others to finish their files, the
    lock its own thread holds as it writes one waited for until ``LINE_BY_S`` after the stop, then ``LEFT_WAIT_S`` for
    the others to read its line; 28 s. Another's: ``SAID_WAIT_S`` for the lock its own thread holds as it writes a
    file, then ``SAID_WAIT_S`` for the main process's line, which one killed outright never says, after that roll call
    (``ROLL_CALL_S``; left out until the hundred-and-fourteenth session's review, another process's 21 s then past
    this bound's 20). The main process's own lock had no bound until the hundred-and-seventeenth session, nor any
    count here."""
    from .lost_processes import ROLL_CALL_S

    return max(LINE_BY_S + LEFT_WAIT_S, ROLL_CALL_S + SAID_WAIT_S + LEFT_WAIT_S, ROLL_CALL_S + 2 * SAID_WAIT_S)


def longest_end_through_a_stall_s() -> float:
    """The longest a watcher's ``_end`` takes, its store stalling as it ends: its waits (``longest_end_s``), each of
    which a stalled call may hold past its own bound, every store call together waited on within ``GIVE_UP_AFTER_S``
    (``_Asking``) and its last try past that (an ask, a reconnect's two connects and a pause), and the line's claim on
    its node (``SAYING_WAIT_S``, where another process said it first). 63.2 s at the module's values (58.6 s until
    the hundred-and-seventeenth session bounded the main process's wait for its lock, ``LINE_BY_S``)."""
    from .launcher_report import SAYING_WAIT_S

    return longest_end_s() + GIVE_UP_AFTER_S + ANSWER_S + 2 * CONNECT_S + POLL_S + SAYING_WAIT_S


def _deaf_to_sigterm() -> None:
    """SIGTERM ignored for what is left of this process, which ends with its own status within its bounded waits
    (the main process's: ``SAID_WAIT_S`` for the others to hold the lock, then ``LEFT_WAIT_S`` for them to read its
    line), inside the 30 s torch elastic's agent waits before it sends SIGKILL. The agent stops the ranks still
    running once one has ended, with SIGTERM: the main process, which ends last, was killed in its last wait on a
    busy machine, its row in the launcher's table reading -15 where the others read 141 or 130 (a CI run of the
    hundred-and-third session). The others, deaf from the moment they see the error, finish the same way where the
    main process ends first. Called in ``_end``'s ``try`` alone: a watcher whose store failed as it read the
    message (``gave_up``) left its process deaf to SIGTERM as it went on (found in the hundred-and-third session's
    review). Through libc: Python's ``signal.signal`` works in the main thread alone, and this is the watcher's; the
    Python handlers left behind are never run, the process ending with ``os._exit``."""
    with contextlib.suppress(Exception):  # no C library to ask (Windows, no agent's SIGTERM): nothing to do
        libc = ctypes.CDLL(None)
        libc.signal.argtypes, libc.signal.restype = [ctypes.c_int, ctypes.c_void_p], ctypes.c_void_p
        libc.signal(signal.SIGTERM, 1)  # SIG_IGN, (void (*)(int)) 1 in Linux's and macOS's signal.h


def _how_it_stops(stop: dict) -> tuple[bool, bool, int, bool]:
    """Whether ``stop`` (``_read_the_stop``) is an interrupt, a reader gone, the signal the interrupt was (0: Ctrl-C's),
    whether a peer gone's: each False (0) where unread, an error's."""
    return (bool(stop.get(INTERRUPTED)), bool(stop.get(READER_GONE)), int(stop.get(STOPPED_BY, 0)),
            bool(stop.get(FOR_A_PEER_GONE)))


def _unread_line(message: str, interrupted: bool, places: dict[int, str]) -> str:
    """A stop's ``message`` as a process other than the main one says it where the store ended before it read the main
    process's line (``_Watcher._said_unread``): the stop (``interrupted`` where it published no words: training's
    Ctrl-C, whose line the main process makes), then why this process says it, naming the main process's node where
    ``places`` has it; a traceback under the line stays under it."""
    first, newline, rest = message.partition("\n")
    where = f" ({places[0]})" if 0 in places else ""
    return (f"{first or ('interrupted' if interrupted else 'stopped')}; the launch's store, kept on the main process's "
            f"node{where}, ended or stopped answering before this process read that process's line{newline}{rest}")


def _the_main_process_lost(store, ranks: int) -> bool:
    """Whether the main process has not answered a stop within ROLL_CALL_S, or the store failed first: its host, torch
    elastic's agent on the main process's node, ends once that process has ended before any line (``_end``)."""
    try:
        return bool(lost_processes(store, ranks, among=[0]))
    except _store_gone():
        return True


def _flushed_if_read() -> None:
    """stdout and stderr flushed before ``os._exit``, where a reader is still there: where it is gone, the flush
    raises BrokenPipeError again, which skipped the exit (until the hundred-and-second session), leaving the rank in
    its collective; what it held is for no one."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError):
            stream.flush()


def _held_by(lock: threading.Lock, deadline: float) -> bool:
    """Whether ``lock`` was taken by ``deadline`` (``time.monotonic``'s): at once where it is free, however late."""
    return lock.acquire(timeout=max(0.0, deadline - time.monotonic()))


def _held_or_cut_short(line: str, held: bool, after: str) -> str:
    """The main process's ``line`` as it is where its lock was ``held``; else with the write under that lock said cut
    short, ``after`` saying when and why (``_Watcher._write_finished``). Every write under the lock goes to a hidden
    name and is renamed into place (predict's maps, ``write_nifti``; training's checkpoint, renamed from its hidden
    ``.step_N.partial``; a benchmark's results, ``write_text_atomically``): the exit leaves it there, and the line, made
    from what is whole (predict's cases once written, the newest checkpoint on the disk), names nothing of it. Said
    "its file system, or a pipe it writes to, not answering" for every write until the hundred-and-seventeenth session's
    review, a large map's that was only long, cut at 25 s by torch elastic's bound, too."""
    if held:
        return line
    first, newline, rest = line.partition("\n")  # a traceback under the line stays under it
    return (f"{first}; a write of the main process was still under way {after}: it is cut short, under its hidden "
            f"name, and nothing named whole here is in it{newline}{rest}")


def _wait_for(condition: Callable[[], bool], wait_s: float) -> bool:
    """Whether ``condition`` came true within ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _published(prefix: str) -> bool:
    """Whether a rank has published its error under ``prefix``; False where there is no store, or it cannot be asked
    (``_asked``: within ``ANSWER_S``, once more through a fresh client after a blip; torch raises in making the
    store's prefix once the group is destroyed)."""
    try:
        return _store(prefix) is not None and bool(_asked(prefix, lambda store: store.check([MESSAGE])))
    except Exception:  # noqa: BLE001 - a question that may not raise (``an_error_is_published``)
        return False
