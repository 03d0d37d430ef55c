"""Ending this process at once (``os._exit``) without leaving multiprocessing's temporary folder behind.

multiprocessing makes a folder of its own in the temporary folder, ``pymp-<random>``, the first time a process needs
a socket file (``util.get_temp_dir``), and removes it when that process exits in order (a ``util.Finalize`` calling
``shutil.rmtree``). Our processes end with ``os._exit`` where the interpreter's shutdown could hang or abort: a rank
stopped with the others (ranks_stop_together), a launched command's end (cli.end_process), a rank interrupted before
the processes meet (interrupt_in_the_rendezvous), one the agent ends after a death (launched_sigterm.end_at_once), a
loader worker whose rank has gone (data/workers.end_with_the_rank). ``os._exit`` skips the clean-up, and the folder
stayed, one set per stop of a launch with loader workers (until the hundred-and-twelfth session). The two folders
such a stop left, read in that session (benchmarks/results/launch_temp_folders_2026-12-06/), were the two ranks':
a rank makes its folder as it starts its loader workers' fork server (``workers.worker_start_method``, before its
first worker), whose listening socket it holds there; every worker inherits the folder's name, and puts there the
socket its batches are handed over through (multiprocessing's ``resource_sharer``). No worker of ours made one of its
own (the hundred-and-twelfth session's review, every ``pymp-`` folder made in a launch logged with its maker). A
worker of a user's loader given to ``fit`` that forks its workers (the DataLoader's default) from a rank with no
folder yet makes its own at its first batch, and ends with ``exit_now`` too (``end_with_the_rank``).

Each is removed by the process that made it, so by whoever's ``os._exit`` goes through ``exit_now``.

So is each run lock the process holds (``run_lock.let_go_before_exiting``: its ``.run.lock`` removed, as its with
statement would): a launched predict's processes stopped together (Ctrl-C, SIGTERM, SIGUSR1, a reader gone, one
process's error) end here with the main process inside the output folder's lock, and its ``.run.lock`` stayed in the
folder (4 of 4 stops in the hundred-and-twenty-fifth session's walk) until that session's review (r119).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from typing import NoReturn


def exit_now(status: int) -> NoReturn:
    """``os._exit(status)``, this process's own multiprocessing folder removed first, and its run locks let go."""
    remove_own_multiprocessing_folder()
    # run_lock imported where this process took a lock; one that never imported it holds none
    if (run_lock := sys.modules.get(f"{__package__}.run_lock")) is not None:
        with contextlib.suppress(BaseException):  # noqa: BLE001 - the exit follows, whatever the release meets
            run_lock.let_go_before_exiting()
    os._exit(status)


def remove_own_multiprocessing_folder() -> None:
    """Remove the temporary folder that multiprocessing made for this process, where it made one, as its orderly exit
    would; for a process about to end without that exit.

    Only this process's own. A process forked from one that had a folder inherits its name (a rank's loader worker, a
    rank forked by the estimator's launching process), not its clean-up: multiprocessing registers the folder's
    finalizer in the process that made it, with that process's id, so an inherited folder is left to its maker here
    as at an orderly exit. Never raises, whatever it meets: a folder already gone, or one a child that still lives
    writes into (the fork server's socket, a worker's) is removed as far as it goes; those children end with this
    process (end_with_the_rank; the fork server once this process's end closes its pipe), and a worker making its
    socket there in that moment says nothing of it (workers.quiet_a_hand_over_as_the_rank_removes_its_folder). Reads
    multiprocessing's private registry (``util._finalizer_registry``, ``util._remove_temp_dir``): Python has no public
    way to it (the same names in CPython 3.10.13, 3.11.7, 3.12.1 and 3.13.0, checked), and where it changes this
    removes nothing, as before, which tests/test_exit_now.py says.
    """
    with contextlib.suppress(Exception):
        from multiprocessing import process, util

        for finalizer in list(util._finalizer_registry.values()):
            if finalizer._callback is util._remove_temp_dir and finalizer._pid == os.getpid():
                folder = finalizer._args[1]  # (rmtree, folder); cancel() below drops them
                finalizer.cancel()  # not run again, were this process to exit in order after all
                shutil.rmtree(folder, ignore_errors=True)
                process.current_process()._config["tempdir"] = None  # as _remove_temp_dir does: a later use makes one
