"""How the training loader's worker processes start and stop.

Workers start from the fork server (``worker_start_method``), not by forking the training process.
That has two consequences a user can meet, both handled here: each worker imports the main script,
so a script that starts training outside ``if __name__ == "__main__":`` is refused before anything
runs (``refuse_unguarded_main``); and the queues between a rank and its workers are named
semaphores that live until the workers are stopped, which the training run does when it ends
(``stop_workers``). docs/known_issues.md tells the story with its measurements. Workers also leave
a scheduler's stop signals to their rank (``leave_stop_signals_to_the_rank``), end when their rank
has ended, however it ended (``end_with_the_rank``), and the process that made them so ends them
when it exits (``end_deaf_workers_at_exit``); a command about to exit ends the fork server too
(``fork_server_stopped_where_started_inside``).
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import functools
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

from ..config import ConfigError
from ..exit_now import exit_now

# The signals a scheduler sends some time before it kills a job (SLURM: --signal, preemption, the
# time limit). The training process saves and stops on them (checkpoint.PreemptionSignals); its
# loader workers ignore them.
PREEMPTION_SIGNALS = (signal.SIGTERM, signal.SIGUSR1)

# What the fork server imports once, so that each worker forked from it starts without importing
# torch and MONAI again (MONAI imports all its submodules: seconds of CPU per process): the modules
# a worker needs to unpickle and run a PatchDataset. Then fork_server, which makes a worker whose rank
# stopped while starting it end without a traceback, and all but the rank's loader workers hear the stop signals.
# The package first: its monai_imports keeps scipy.signal (and transformers, where installed) from MONAI's modules
# in the server too, whose import of MONAI before it had spent those seconds (until the ninety-sixth session).
FORK_SERVER_MODULE = "accelerated_seg.data.fork_server"
WORKER_PRELOAD = ["accelerated_seg", "torch", "monai.transforms", "accelerated_seg.data.loader", FORK_SERVER_MODULE]


def worker_start_method(num_workers: int):
    """The multiprocessing context of a DataLoader's workers: the fork server where the platform has
    one, None (the DataLoader's default) with no workers or where it has none (Windows).

    Not ``fork``, the DataLoader's default on Linux: it copies a training process that runs other
    threads by then (torch's, gloo's, tqdm's), and a lock one of them holds at that instant stays
    held in the child forever. On CPython 3.11.7 a worker hung that way inside ``os.fork()`` itself,
    waiting for the interpreter's thread-list lock (CPython gh-112275), about once in a hundred
    2-process benchmark launches (docs/known_issues.md). The fork server is a process of its own,
    started at the first loader, in which no thread but its main one runs Python (pyarrow's
    allocator starts one C thread there that never does); every worker is forked from it instead,
    and receives the dataset pickled: for our datasets the path of the memory-mapped case table and
    the augmentation settings.
    """
    if num_workers == 0 or "forkserver" not in multiprocessing.get_all_start_methods():
        return None
    refuse_unguarded_main(num_workers)
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(WORKER_PRELOAD)  # read when the server starts
    start_fork_server_deaf_to_stop_signals(also_to_ctrl_c=True)
    return context


def refuse_unguarded_main(num_workers: int, setting: str = "data.num_workers", what: str = "training",
                          example: str = "examples/train.py") -> None:
    """A ConfigError where loader workers would run the training a second time: the main script
    starts it at top level, outside ``if __name__ == "__main__":``.

    A worker started from the fork server (or by spawn) imports the main script before it loads a
    sample, as ``__mp_main__``, so the script's top-level code runs again in every worker. Left
    alone, Python stops that worker only when its copy of the run builds a loader of its own, and
    by then the copy has set up an Accelerator (in a multi-process launch, with the rank's own
    rendezvous address) and may have replaced the outputs of an earlier run (``train.overwrite``);
    the training process sees only "DataLoader worker exited unexpectedly". So the training process
    refuses such a script before it starts anything, naming the line; and a worker that gets here
    anyway (the check below could not see the call, e.g. code run through ``exec``) stops at once.
    ``what`` the call starts is named: training, or ``Dataset.loader``'s loader; and the ``example``
    that shows the guard for that call (the estimator's was pointed to examples/train.py, which uses no
    estimator, until the ninety-first session).
    """
    if num_workers == 0:
        return
    advice = (f"With {setting}={num_workers}, each loader worker imports the main script, so it would run that line "
              f"again and start {what} again. Put the call under `if __name__ == \"__main__\":` (as "
              f"{example} does), or set {setting}=0.")
    if getattr(multiprocessing.current_process(), "_inheriting", False):  # set while a child imports the main script
        raise ConfigError(f"a loader worker, importing the main script, reached the call: the script starts "
                          f"{what} outside `if __name__ == \"__main__\":`. {advice}")
    if unreadable := main_script_not_a_file():
        # Every worker runs the main script from its path first, guarded or not: a FileNotFoundError
        # traceback at the first batch, until the seventy-seventh session (a docs probe's heredoc).
        raise ConfigError(f"the main script was read from {unreadable} (python - < script.py, a heredoc), and "
                          f"each loader worker runs the main script again from its file, which is not there. Save "
                          f"it as a file and run that (python script.py, {what} under `if __name__ == "
                          f"\"__main__\":`), or set {setting}=0.")
    if where := unguarded_main_line():
        raise ConfigError(f"{where} starts {what} outside `if __name__ == \"__main__\":`. {advice}")


def main_script_not_a_file() -> str | None:
    """The name of the main script where it was read from no file (``<stdin>``); None for a script
    file, a package's ``__main__.py``, or no script (``python -c``, an interactive session)."""
    path = _main_script_workers_run()
    return None if path is None or Path(path).is_file() else str(path)


def _main_script_workers_run() -> str | None:
    """The ``__file__`` of the main script, which multiprocessing runs again in each worker; None
    where it runs none: no script, or a package's ``__main__.py`` (as
    ``multiprocessing.spawn._fixup_main_from_name`` skips it)."""
    main = sys.modules.get("__main__")
    spec_name = getattr(getattr(main, "__spec__", None), "name", "") or ""
    return None if spec_name.endswith(".__main__") else getattr(main, "__file__", None)


def unguarded_main_line() -> str | None:
    """``"path, line N"`` of the main script's top-level statement that is running now (and so
    called us), unless it lies inside ``if __name__ == "__main__":``; None when there is no script
    (an interactive session, ``python -c``: workers then import nothing), it is a package's
    ``__main__.py`` (``python -m package``: multiprocessing imports no such module in a worker, so
    ``python -m accelerated_seg train`` was refused for nothing until the seventieth session), or it
    has finished its top level (a call from a thread it started)."""
    main = sys.modules.get("__main__")
    path = _main_script_workers_run()
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_globals is getattr(main, "__dict__", None)
                                     and frame.f_code.co_name == "<module>"):
        frame = frame.f_back
    if path is None or frame is None or not Path(path).is_file():
        return None
    try:
        tree = ast.parse(Path(path).read_bytes(), filename=path)
    except (SyntaxError, ValueError):  # not Python source (a frozen or compiled entry point): cannot tell
        return None
    line = frame.f_lineno
    for statement in tree.body:
        if statement.lineno <= line <= statement.end_lineno:
            return None if _inside_a_main_guard(statement, line) else f"{path}, line {line},"
    return None


def _inside_a_main_guard(statement: ast.stmt, line: int) -> bool:
    """Whether ``line`` lies in the body of an ``if`` within ``statement`` whose test reads
    ``__name__``: ``if __name__ == "__main__":`` either way round, combined with other conditions
    (``and ...``), or nested in a ``try``. Lenient on purpose: refusing a guarded script would stop
    a user who did nothing wrong, while an unguarded call it lets through (an odd test of
    ``__name__``) is still stopped in the worker, by the ``_inheriting`` check."""
    for node in ast.walk(statement):
        if isinstance(node, ast.If) and node.body and node.body[0].lineno <= line <= node.body[-1].end_lineno:
            if any(isinstance(name, ast.Name) and name.id == "__name__" for name in ast.walk(node.test)):
                return True
    return False


def stop_workers(loader) -> None:
    """Stop the worker processes of a loader with persistent workers now, not at interpreter exit.

    A persistent loader keeps its workers and their queues for the next pass, for as long as the
    loader lives. Under the fork server those queues are named semaphores registered with Python's
    resource tracker, and a training process that ends with them open (a launched rank leaves by
    ``os._exit``, cli.end_process) made the tracker warn of "leaked semaphore objects" at the end of
    every run. torch has no public way to stop them, so this does what dropping the loader's last
    iterator does (its ``__del__``): shut the workers down and let the queues go. The loader stays
    usable; a later pass starts new workers. ``loader``: a DataLoader or accelerate's prepared one.
    """
    base = getattr(loader, "base_dataloader", loader)  # accelerate's DataLoaderShard wraps the DataLoader
    iterator = getattr(base, "_iterator", None)
    if iterator is None:
        return
    base._iterator = None
    if hasattr(iterator, "_shutdown_workers"):  # one with workers (an in-process iterator has none)
        iterator._shutdown_workers()


def stop_workers_at_exit(loader) -> None:
    """Stop ``loader``'s workers as the interpreter exits, if it still lives then (``stop_workers``).

    A script that drew from ``Dataset.loader()`` and ended, as the README's example does, left the
    workers' queues to the interpreter's teardown, and the resource tracker warned of "2 leaked
    semaphore objects" (sixty-eighth session). A weak reference: the hook keeps no loader alive.
    """
    reference = weakref.ref(loader)

    def stop_if_alive() -> None:
        if (alive := reference()) is not None:
            stop_workers(alive)

    atexit.register(stop_if_alive)


@contextlib.contextmanager
def fork_server_stopped_where_started_inside() -> Iterator[None]:
    """End multiprocessing's fork server as the block ends, where the block started it: for a command whose
    loaders' workers are stopped inside (``benchmark data``). A server running before it is left as it is: it is
    the caller's (``accelerated_seg.cli.main`` called from a notebook), and its processes and loaders' workers
    would end with it (a worker's ``is_alive`` False, its exit code 255, its loader's "DataLoader worker ...
    exited unexpectedly"), which the hundred-and-fifth session's review found it did.

    The server ends by itself once this process has exited (its "alive" pipe then reads EOF), and then still
    runs a while: ``benchmark data`` stopped by Ctrl-C or SIGTERM left a process of its job's 2 s after its exit
    in 28 runs of 36, none in 36 since the hundred-and-fifth session
    (benchmarks/results/stop_benchmark_data_workers_left_2cpu_*.json). It holds nothing
    once the workers are stopped, and the stop signals are blocked in it (``start_fork_server_deaf_to_stop_signals``):
    SIGKILL, then multiprocessing's own stop, which reaps it and lets a later loader start another.
    """
    from multiprocessing import forkserver

    server = forkserver._forkserver  # no public handle
    running_before = server._forkserver_pid
    try:
        yield
    finally:
        if server._forkserver_pid not in (None, running_before):  # one started inside, not stopped already
            os.kill(server._forkserver_pid, signal.SIGKILL)  # not reaped yet (ensure_running resets a reaped one)
            server._stop()


def start_fork_server_deaf_to_stop_signals(also_to_ctrl_c: bool = False) -> None:
    """Start multiprocessing's fork server, and its resource tracker, with the stop signals blocked,
    and Ctrl-C too where ``also_to_ctrl_c``, unless it runs already. Each keeps that signal mask, and
    so does every process the server forks (Ctrl-C but until it unblocks it: fork_server).

    A signal to the process group reaches the fork server too. Killed, it would take the workers with
    it a batch later: torch's worker exits once its parent process has gone (``ManagerWatchdog``),
    and a worker's parent is the fork server, not the rank. Blocked, the signals wait in this process
    until the mask is restored below, so the rank loses none; they never reach the server's Python.
    The resource tracker's own start unblocks SIGTERM on its way out (it blocks SIGINT and SIGTERM
    around its spawn, then unblocks them), hence the second block before the server starts.

    Ctrl-C (SIGINT) too reaches the whole group, and the server ignores it only once it has imported
    its preload, which takes seconds. A Ctrl-C in those seconds stopped that import with a
    ``KeyboardInterrupt`` traceback below the rank's "interrupted (Ctrl-C)" (seventy-ninth session).
    Blocked, it waits until the server ignores it, which drops it. Only with our preload
    (``worker_start_method``), whose fork_server module unblocks it in each process the server forks:
    a user's loader's fork server (``spare_the_workers``) preloads what the user set, and its workers,
    and what they run, would never hear Ctrl-C again.

    The fork_server module is added to the preload (a user's loader's too, after what the user set),
    which also unblocks the stop signals in each process the server forks but the rank's loader
    workers: a later process of the user's from the forkserver context could not be ended with
    ``terminate()``, nor a user's own loader's workers by a signal to the job.
    """
    from multiprocessing import forkserver, resource_tracker

    preload = list(getattr(forkserver._forkserver, "_preload_modules", None) or [])  # no public reader
    if FORK_SERVER_MODULE not in preload:  # read when the server starts, so only where it has not yet
        forkserver.set_forkserver_preload([*preload, FORK_SERVER_MODULE])
    deaf_to = (*PREEMPTION_SIGNALS, signal.SIGINT) if also_to_ctrl_c else PREEMPTION_SIGNALS
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, deaf_to)
    try:
        resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, deaf_to)
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def worker_init_for_this_rank(then=None) -> functools.partial:
    """The ``worker_init_fn`` of a loader that this process, the rank, draws from (``train_loader``,
    and a user's loader in ``fit``): each worker leaves the stop signals to the rank and ends when
    the rank has gone, then runs ``then(worker_id)`` (a user's loader's own ``worker_init_fn``)."""
    return functools.partial(init_training_worker, rank_pid=os.getpid(), then=then)


def init_training_worker(worker_id: int, rank_pid: int, then=None) -> None:
    """Runs first in each loader worker (``worker_init_for_this_rank``)."""
    leave_stop_signals_to_the_rank()
    end_with_the_rank(rank_pid)
    quiet_a_batch_the_rank_stopped_taking()
    quiet_a_hand_over_as_the_rank_removes_its_folder(rank_pid)
    if then is not None:
        then(worker_id)


def leave_stop_signals_to_the_rank() -> None:
    """Make this loader worker ignore the scheduler's stop signals.

    They reach the workers too: SLURM signals every process of a job, and torchrun's agent, on the
    signal, a rank's whole process group. By default they end a worker at once; the rank then fails
    at its next batch ("DataLoader worker exited unexpectedly") instead of saving at the end of the
    step. Ignoring them leaves nothing behind: the rank stops its workers when it ends
    (``stop_workers``), and a worker whose rank died ends by itself (``end_with_the_rank``).
    """
    for signum in PREEMPTION_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


def quiet_a_batch_the_rank_stopped_taking() -> None:
    """Say nothing of a batch's hand-over that the rank broke off, in this loader worker.

    A worker hands a batch's tensors over as file descriptors (torch's ``file_descriptor`` sharing): a thread of
    multiprocessing's ``resource_sharer`` answers the rank's connection for each, and prints, through
    ``sys.excepthook``, any error that connection meets. A stop (SIGTERM raised in the rank as an interrupt, Ctrl-C)
    that reaches the rank as it takes a batch closes its end mid-answer: the worker, which leaves SIGTERM to the rank
    and is not ending yet, printed a ``ConnectionResetError`` or ``BrokenPipeError`` traceback after the rank's last
    line (``benchmark data`` stopped by SIGTERM, 10 runs in 60 until the hundred-and-fourth session:
    benchmarks/results/stop_benchmark_data_2cpu_before.json). The rank's end is the stop's; a hand-over that fails
    while the rank goes on fails in the rank too, which raises it. Any other error, of that thread or this worker's
    others, is printed as before.
    """
    previous = sys.excepthook

    def unless_a_broken_hand_over(kind, error, traceback) -> None:
        if not _a_hand_over_broken_off(error, traceback):
            previous(kind, error, traceback)

    sys.excepthook = unless_a_broken_hand_over


def _a_hand_over_broken_off(error: BaseException, traceback) -> bool:
    """Whether ``error`` is the peer of the resource sharer's connection gone, caught in its serving thread."""
    from multiprocessing import resource_sharer

    return (isinstance(error, (ConnectionError, EOFError)) and traceback is not None
            and traceback.tb_frame.f_code is resource_sharer._ResourceSharer._serve.__code__)


# How long a worker whose batch could not be pickled for its hand-over waits for its rank to end before it reports
# the failure: a rank ending removes its multiprocessing folder (exit_now) a moment before it has gone.
RANK_ENDING_WITHIN_S = 5.0


def quiet_a_hand_over_as_the_rank_removes_its_folder(rank_pid: int) -> None:
    """Say nothing of a batch this loader worker could not pickle for its hand-over because its rank is ending.

    A worker that inherited the name of its rank's multiprocessing folder (``pymp-*``: the fork server's workers, and
    a forked loader's of a rank that had one) makes in it, at its first batch, the socket its batches are handed over
    through (``resource_sharer``). A rank ending with ``os._exit`` removes that folder first (exit_now), a moment
    before it has gone: a worker making its socket in that moment met ``FileNotFoundError``, which its queue's feeder
    thread printed as a traceback below the rank's last line (the hundred-and-twelfth session's review;
    tests/test_exit_now.py). Nobody is left to take that batch, and the worker ends with the rank
    (``end_with_the_rank``). An ``OSError`` there with the rank still running ``RANK_ENDING_WITHIN_S`` later, and
    any other error, is printed as before (multiprocessing's ``Queue._on_queue_feeder_error``, its hook for that).
    """
    from multiprocessing import queues

    previous = queues.Queue._on_queue_feeder_error

    def unless_the_rank_is_ending(error: Exception, obj) -> None:
        if not (isinstance(error, OSError) and _ends_within(rank_pid, RANK_ENDING_WITHIN_S)):
            previous(error, obj)

    queues.Queue._on_queue_feeder_error = staticmethod(unless_the_rank_is_ending)


def _ends_within(pid: int, within_s: float | None) -> bool:
    """Whether the process ``pid`` has ended (reaped or not) within ``within_s``; None: wait until it has."""
    deadline = float("inf") if within_s is None else time.monotonic() + within_s
    try:
        ending = os.pidfd_open(pid)
    except (AttributeError, OSError):  # no pidfds here, or the process has ended already: look now and then
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(min(RANK_POLL_S, max(0.0, deadline - time.monotonic())))
        return not _running(pid)
    try:
        return bool(select.select([ending], [], [], within_s)[0])  # readable once the process has ended
    finally:
        os.close(ending)


# How often a worker looks for its rank where the platform cannot wait for a process to end (no pidfd).
RANK_POLL_S = 1.0


def end_with_the_rank(rank_pid: int) -> None:
    """End this loader worker as soon as the process ``rank_pid`` has ended, however it ended.

    torch's own watchdog ends a worker whose parent has gone, but a fork-server worker's parent is
    the fork server, and the server lives as long as any process it forked does: each holds the
    server's "alive" pipe open, so that it could ask the server for processes of its own. A rank
    killed without its clean-up (the kernel's out-of-memory killer, a scheduler's SIGKILL after its
    grace time, a crash) thus left its workers and the server running forever, ignoring SIGTERM
    (``leave_stop_signals_to_the_rank``), holding their memory, their shared-memory batches and the
    rank's stdout: a shell pipe such as ``accelerated-seg train ... | tee log`` never ended. A thread
    here waits for the rank to end (a pidfd, Linux >= 5.3; elsewhere by polling) and then ends the
    worker; with its workers gone, the fork server ends too.
    """
    def wait_then_end() -> None:
        _ends_within(rank_pid, None)
        exit_now(0)  # nobody is left to take the batches; an orderly exit could wait on their queue

    threading.Thread(target=wait_then_end, name="end-with-the-rank", daemon=True).start()


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        pass
    return True


# How long a daemonic child still running at exit gets to end on SIGTERM before it is killed.
DEAF_WORKER_GRACE_S = 0.5


@functools.cache  # registered once per process
def end_deaf_workers_at_exit() -> None:
    """Have this process end, when it exits, the loader workers that are its own children and
    ignore SIGTERM (``leave_stop_signals_to_the_rank``).

    At exit, multiprocessing ends its daemonic children, loader workers among them, with SIGTERM and
    then waits for each without limit. A worker that ignores SIGTERM waits for work instead, and the
    exit with it: a script that gave ``fit`` a loader forking its workers (the DataLoader's default
    on Linux), with ``persistent_workers``, and drew a batch from it again afterwards, printed its
    last line and never returned (reproduced; a training run stops its workers itself, and the fork
    server's workers are not children of the rank). Registered after multiprocessing's own exit
    hook, this one runs before it (atexit runs the last registered first).
    """
    atexit.register(_end_deaf_workers)


def _end_deaf_workers() -> None:
    """What multiprocessing's exit does to daemonic children, SIGTERM, with a limit on the wait: those
    still running after it (ours ignore SIGTERM) get SIGKILL, the end SIGTERM's default action gives.

    All daemonic children, not only loader workers: the parent cannot tell which are, as a started
    Process drops its target, and multiprocessing would signal each of them a moment later anyway.
    """
    children = [p for p in multiprocessing.active_children() if p.daemon]
    for child in children:
        child.terminate()
    deadline = time.monotonic() + DEAF_WORKER_GRACE_S
    for child in children:
        child.join(max(0.0, deadline - time.monotonic()))
        if child.is_alive():
            child.kill()
            child.join()


def spare_the_workers(loader) -> None:
    """Give a user's DataLoader (``train.fit``) the ``worker_init_fn`` of our own loader
    (``worker_init_for_this_rank``), keeping the one it has (MONAI's DataLoader seeds its workers'
    random transforms in it), and a fork server that outlives the signals when its workers come from
    one.

    Set before ``accelerator.prepare``, which builds the prepared loader from these attributes; a
    loader with no workers, or one already given it, is left as it is.
    """
    if getattr(loader, "num_workers", 0) == 0:
        return
    end_deaf_workers_at_exit()  # workers forked or spawned by the rank are its children
    own = getattr(loader, "worker_init_fn", None)
    if getattr(own, "func", None) is not init_training_worker:
        loader.worker_init_fn = worker_init_for_this_rank(then=own)
    context = getattr(loader, "multiprocessing_context", None)
    if context is not None and context.get_start_method() == "forkserver":
        start_fork_server_deaf_to_stop_signals()
