"""What the fork server of the loader workers sets up once it has imported their modules: a worker
whose rank stopped while starting it ends without a traceback, and a process that is not one of
the rank's loader workers hears the stop signals the server was started deaf to.

A rank starts a worker by sending the fork server a request, then writing the worker's pickled
``Process`` (for our loaders: the dataset, and the queues it talks through) into a pipe that the
new worker reads. When the rank stops in that moment (Ctrl-C, the usual case) the worker can never
get its work: the pickle was cut short, or the rank's exit has removed the named semaphores of the
queues before the worker opened them. The worker then fails inside multiprocessing's start-up,
which prints the failure through ``sys.excepthook``: an ``UnpicklingError: pickle data was
truncated`` or a ``FileNotFoundError`` traceback below the rank's own "interrupted (Ctrl-C)" line,
saying nothing about the run (seventy-ninth session). multiprocessing has no way to tell that case from
a real start-up failure, so here the worker's start-up (``multiprocessing.spawn._main``, what the
fork server calls in each process it forks) is wrapped: on a failure it looks whether the rank has
gone, and if so it ends quietly. A failure with the rank still there is raised as before.

The server was started with the scheduler's stop signals (SIGTERM, SIGUSR1) blocked, so that a
signal to the job could not end it and its workers with it (``workers.start_fork_server_deaf_to_stop_signals``),
and every process it forks keeps that mask. A rank's loader worker keeps it until it ignores them
(``workers.leave_stop_signals_to_the_rank``), which drops one that came in between. But the server
is multiprocessing's one fork server of the training process, and any later process from the
forkserver context comes from it too: a user's own, after ``fit`` in a notebook, kept SIGTERM
blocked, so ``Process.terminate()`` did not end it and its ``join()`` waited forever (found in the
eighty-first session), as did a user's own loader's workers, which never ignore them. Each process
now unblocks them before it runs, but the loader workers that leave them to the rank.

This module is imported only for that: ``workers.WORKER_PRELOAD`` names it last, and
``start_fork_server_deaf_to_stop_signals`` adds it to a user's loader's preload, so that the fork
server, which imports the preload once, forks every process with the wrapper in place. Anywhere else
importing it changes nothing, as ``spawn._main`` runs only in a new process that multiprocessing
starts, never in the process that imported it.
"""

from __future__ import annotations

import multiprocessing.process
import multiprocessing.spawn
import os
import select
import signal
import time

from .workers import PREEMPTION_SIGNALS, init_training_worker

# How long a worker that could not open a queue's semaphore waits for its rank to end before it
# reports the failure: the rank removes them as it exits, a moment before it has gone. (Any other
# failure to start is reported at once where the rank is still there.)
RANK_GONE_WITHIN_S = 5.0


def rank_has_gone(sentinel: int, within_s: float) -> bool:
    """Whether the process that started this one has ended, or dropped it, within ``within_s``.

    ``sentinel`` is this process's copy of the read end of the pipe its work came through; the
    starting process holds the write end (a copy of it, multiprocessing's "parent sentinel") until it
    exits or lets go of the new process, so the pipe reads as ended exactly then. Anything left
    unread in it is read and dropped on the way.
    """
    deadline = time.monotonic() + within_s
    try:
        while True:  # at least one look, also with within_s 0
            readable, _, _ = select.select([sentinel], [], [], max(0.0, deadline - time.monotonic()))
            if readable and not os.read(sentinel, 1 << 16):
                return True
            if not readable and time.monotonic() >= deadline:
                return False
    except OSError:  # not a pipe we can read: cannot tell, so not gone
        return False


def end_quietly_when_the_rank_has_gone(start_up):
    """``start_up`` (multiprocessing.spawn._main: take the work from the pipe, then run it), ending
    the process with status 1 and no traceback where it fails because the process that started it
    has gone.

    Ctrl-C is unblocked first: the fork server was started with it blocked, so that the terminal's
    Ctrl-C could not cut its preload short (workers.start_fork_server_deaf_to_stop_signals), and each
    process it forks keeps that mask. A worker interrupted by it before it has its work ends without a
    traceback (the fork server prints only an ``Exception``'s), and one that has it ends as torch's
    worker loop makes it end, quietly.
    """
    def start_up_or_end_quietly(fd: int, parent_sentinel: int):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
        process = multiprocessing.process.BaseProcess  # patched in this new process alone
        process._bootstrap = hear_stop_signals_unless_a_ranks_worker(process._bootstrap)
        try:
            return start_up(fd, parent_sentinel)
        except Exception as failure:  # the work never arrived whole (a failure inside the work is not raised here)
            # Importing the main script (prepare) does not need the rank: a failure there is the
            # script's, said at once. One taking the work from the pipe may be the rank's leaving:
            # a pickle cut short ends where the rank let go of the pipe, so that shows at once; a
            # queue's semaphore gone (FileNotFoundError) is removed a moment before the rank has gone.
            if _raised_in(failure, multiprocessing.spawn.prepare):
                raise
            waiting = RANK_GONE_WITHIN_S if isinstance(failure, FileNotFoundError) else 0.0
            if rank_has_gone(parent_sentinel, waiting):
                return 1
            raise

    start_up_or_end_quietly.wrapped = start_up
    return start_up_or_end_quietly


def hear_stop_signals_unless_a_ranks_worker(bootstrap):
    """``bootstrap`` (``BaseProcess._bootstrap``: run the process's target), first unblocking the stop
    signals unless the process is a loader worker that leaves them to its rank."""
    def bootstrap_hearing_stop_signals(self, *args, **kwargs):
        if not leaves_stop_signals_to_its_rank(self):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, PREEMPTION_SIGNALS)  # one pending ends it, as it would have
        return bootstrap(self, *args, **kwargs)

    return bootstrap_hearing_stop_signals


def leaves_stop_signals_to_its_rank(process: multiprocessing.process.BaseProcess) -> bool:
    """Whether ``process`` is a DataLoader worker whose ``worker_init_fn`` ignores the stop signals
    (``workers.worker_init_for_this_rank``: the training loader's, and a loader given to ``fit``):
    torch passes that function to the worker's loop among its arguments. Any other loader's worker
    hears them as without us: one of a user's loader built after training kept them blocked for
    good, so a signal to the job left it, and the fork server, running (eighty-second session's review).
    """
    arguments = (*getattr(process, "_args", ()), *getattr(process, "_kwargs", {}).values())
    return any(getattr(argument, "func", None) is init_training_worker for argument in arguments)


def _raised_in(failure: BaseException, function) -> bool:
    """Whether ``failure`` was raised inside a call of ``function``."""
    tb = failure.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is function.__code__:
            return True
        tb = tb.tb_next
    return False


if not hasattr(multiprocessing.spawn._main, "wrapped"):
    multiprocessing.spawn._main = end_quietly_when_the_rank_has_gone(multiprocessing.spawn._main)
