"""A launched ``predict``'s collective broken by another process's death: this process ended as the agent ends it.

A process of the launch killed outright (SIGKILL, the OOM killer) while another waits for it in a collective reaches
that one twice: gloo's error in the collective ("Connection reset by peer", "Connection closed by peer"), at once, as
the dead one's sockets close; and torch's agent's SIGTERM, once its poll (every 0.1 s) has reaped the dead one, which
ends the process at once, nothing said, -15 (``launched_sigterm``). Which came first was chance. Where it was gloo's,
the error stopped every process as an error does (``ranks_stop_together``): SIGTERM ignored from then on, the main
process waiting 10 s for the dead one to finish its files and 3 s for it to read the line, then ending 13-14 s after
the kill with status 1 and gloo's traceback (1 of 7 probe runs in the hundred-and-tenth session's review). Since the
hundred-and-eleventh session such an error ends the process as that SIGTERM would, at once; since the
hundred-and-seventeenth, once the agent has reaped the dead one (``_reaped_by_the_agent``), so that the launcher's table
names the killed process first, not this one.

A death is told from an error in two steps, each for a reason of its own:

- the error's words are the transport's for a peer gone (``PEER_GONE``): a collective's other errors (a timeout, a
  mismatch of shapes, a bug of ours) are errors, and are not held up by the look below;
- a process beside this one (same parent, same command line: those torch's agent on this node started) is seen
  ended, as a zombie or reaped, within ``DEATH_SEEN_S``: the agent's SIGTERM is then certain (the agent alone sees that
  death, and it ends the rest on any end but a good one), so waiting for it adds only its poll. The words alone are
  not enough: a network's reset between two nodes says the same, and no SIGTERM follows there.

And not where an error is published already: a process that met one ends, its line said, and breaks the others'
collectives as it goes; they end with that stop's status, as before. Nor once every process has come to the last wait
without an error, where a process gone ended its work (``launched_sigterm``'s rule). A peer on another node, whose
death this node's agent does not see, still stops every process as an error (its words alike, but no process beside
this one ends), published as a peer gone's (``said_by_a_peer_gone``): the main process names each process that does
not answer that stop lost, waiting for none of them (``lost_processes``; it waited 13 s for the dead one, then said
gloo's error, until the hundred-and-fourteenth session). The look costs ``DEATH_SEEN_S`` where other processes of the
launch run on this node, none where none does (it waited that long for nothing until that session). Without ``/proc``
(macOS) nothing changes.

A launched training's collective broken so stops every process as a peer gone's too, since the hundred-and-fifteenth
session (``a_peer_gone_stops_every_process``): the process lost named, its node with it, and the newest whole
checkpoint to resume from, where gloo's traceback was said.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from .lost_processes import ROLL_CALL_S

#: What gloo's TCP transport says where the peer's socket was closed under it (read: "Connection reset by peer",
#: "Connection closed by peer"; write: "Broken pipe"), and NCCL where a peer's process exited.
PEER_GONE = ("Connection reset by peer", "Connection closed by peer", "Broken pipe", "remote process exited")
#: How long a process beside this one has to be seen ended after gloo's error: the dead one's sockets close as it
#: becomes a zombie, so it is as a rule already (a busy machine may take its time).
DEATH_SEEN_S = 1.0
#: How often ``/proc`` is asked meanwhile.
LOOK_S = 0.01
#: How long a process ending at once after a death beside it waits for the launch's agent to reap the dead one
#: (``_reaped_by_the_agent``): as long as training's stop waits for the same reap (within its roll call,
#: ``lost_processes._reaped_by``). The agent looks every 0.1 s (torch's ``monitor_interval``, accelerate's default);
#: past the bound it is held (stopped, its machine swapping) or gone, its zombie left to a parent that may not reap.
REAPED_WITHIN_S = ROLL_CALL_S


def said_by_a_peer_gone(error: BaseException) -> bool:
    """Whether ``error`` is a collective's whose peer went away, by the transport's words (``PEER_GONE``): its death,
    or a network's reset between two nodes."""
    return isinstance(error, RuntimeError) and any(words in str(error) for words in PEER_GONE)


def ended_at_once_where_a_process_beside_died(error: BaseException) -> None:
    """Where ``error`` is a collective's, broken by the death of a process beside this one (module docstring): end
    this process now, as the agent's SIGTERM after that death ends it (-15, nothing said). Else return, for the
    error to stop every process as before. Called before the error is published (``predict_stop``); from any
    thread."""
    from .last_wait import every_process_came_to_the_last_wait
    from .launched_sigterm import beside_while_a_death_ends_at_once, end_at_once, one_has_ended
    from .ranks_stop_together import an_error_is_published

    if not said_by_a_peer_gone(error):
        return
    # None outside a launched predict's SIGTERM span; empty where this node runs no other process of the launch, whose
    # death could be seen here: the look waited DEATH_SEEN_S for none (until the hundred-and-fourteenth session)
    if not (beside := beside_while_a_death_ends_at_once()):
        return
    deadline = time.monotonic() + DEATH_SEEN_S
    while not one_has_ended(beside):
        if time.monotonic() > deadline:
            return
        time.sleep(LOOK_S)
    if every_process_came_to_the_last_wait() or an_error_is_published():
        return
    _reaped_by_the_agent(beside)
    end_at_once()


def _reaped_by_the_agent(beside: list[int]) -> None:
    """Wait until the launch's agent has reaped the process of ``beside`` that ended (read its status), or
    ``REAPED_WITHIN_S``: the agent takes the first status it reads for the launch's failure, and of those it reads at
    one look, the lowest rank's (torch 2.13's ``SubprocessContext._poll``, its failures in local ranks' order, stamped
    in whole seconds: its table's "Root Cause"). Ending at once on gloo's error, a survivor ended before the agent's
    next look (every 0.1 s) and was named in its place, -15 where the killed process's -9 was meant, in 13 of 40
    launches on 2 CPU cores, and in 38 of 40 with the agent looking 1 s late (until the hundred-and-seventeenth
    session: benchmarks/results/predict_killed_first_failure_2026-12-06/). The agent's SIGTERM, which follows its reap,
    ends this process meanwhile as it comes (``launched_sigterm``)."""
    from .launched_sigterm import one_is_not_reaped

    deadline = time.monotonic() + REAPED_WITHIN_S
    while one_is_not_reaped(beside) and time.monotonic() < deadline:
        time.sleep(LOOK_S)


@contextlib.contextmanager
def a_peer_gone_stops_every_process() -> Iterator[None]:
    """Inside ``stopping_together``, around a launched training (``interrupted_run``): a collective's error whose peer
    went away (``said_by_a_peer_gone``, in the error or in what it was raised from, a failed save's
    ``CheckpointNotSaved``) stops every process as a peer gone's: the main process names each process that does not
    answer lost, its node with it, or, the main process lost, the process that met the error names it
    (``lost_processes``); status 1, no traceback, the caller's ``peer_gone_in_full`` adding the newest whole checkpoint.
    Training published interrupts alone until the hundred-and-fifteenth session: a process killed on another node
    left the others to end 0.6-1.4 s after the kill with gloo's traceback, nothing naming the process lost or the
    checkpoint (benchmarks/results/launched_predict_peer_death/two_nodes_training.txt). Not where a stop is published
    already (an interrupt, whose ending processes break the others' collectives): that stop ends this process as
    before. No look for a death beside this process, as predict's has (``ended_at_once_where_a_process_beside_died``):
    training takes the agent's SIGTERM after that death for a notice to save, not an end, and its line is this one.
    Raised as it came where the store cannot carry it (one process, the store gone)."""
    from .ranks_stop_together import an_error_is_published, stop_every_rank

    try:
        yield
    except Exception as error:
        if (gone := _peer_gone_in(error)) is not None and not an_error_is_published():
            stop_every_rank(RuntimeError(f"process {_this_process()}: {type(gone).__name__}: {gone}"), peer_gone=True)
        raise


def _peer_gone_in(error: BaseException) -> BaseException | None:
    """``error``, or the one it was raised from or during (a few links down), where it is a peer gone's."""
    for _ in range(4):
        if error is None or said_by_a_peer_gone(error):
            return error
        error = error.__cause__ or error.__context__
    return None


def _this_process() -> int | str:
    """This process's rank in the launch's process group (``RANK`` before it has started)."""
    import os

    import torch.distributed as dist

    return dist.get_rank() if dist.is_available() and dist.is_initialized() else os.environ.get("RANK", "?")
