"""One run at a time in a run's folder.

The same job submitted twice, or a requeued SLURM job started while the first is still running, put
two runs into one folder: each rotated the other's checkpoints away, replaced the other's exports,
and ``--resume latest`` then picked up whichever saved last. The folder guard (run_folder.py) cannot
see this: it reads the folder before either run has written anything, or reads a run that is
alive as an earlier one to resume.

So the main process of a run holds an exclusive ``flock`` on ``<folder>/.run.lock`` from its start
to its end. The kernel drops the lock when the process ends however it ends (a SIGKILL, a node
reboot on a network filesystem's lock manager), so no stale lock is ever left to clear by hand: the
file may stay behind after a kill, and the next run takes it over. Where the filesystem has no
``flock`` (Lustre mounted without ``-o flock``, some FUSE mounts), the run goes on unguarded and
says so.

A predict of one label map locks that file alone, by a lock file of its own beside it (``file_lock_name``): its
folder may hold others' files, which a folder's lock would keep from them.

A lock outlives its run in its own process where a stop (Ctrl-C, SIGTERM) lands at its holder's edges, the few
bytecodes between the lock's taking and the with statement (or ExitStack) that would release it, or between the
release's call and its first line (CPython's bpo-29988): the exception's traceback keeps the open file, so the lock is
held for as long as the exception is kept, and a notebook keeps the last one. Every lock this process holds is known
to it (``_HELD``) with the call into this package it was taken for (``_taker``: train, fit, predict_file, main...);
once that call has ended, the lock is used no more, and the next run of this process takes it over, saying so, as a
killed run's is taken (the hundred-and-twenty-third session). One whose call still runs, on any thread, is refused
as another process's is.
"""

from __future__ import annotations

import contextlib
import datetime
import dis
import errno
import hashlib
import json
import os
import socket
import sys
import threading
import warnings
import weakref
from pathlib import Path
from types import FrameType
from typing import Callable

from .config import ConfigError
from .files import NAME_MAX, folders_to_make, remove_if_empty
from .own_warnings import AcceleratedSegWarning
from .stops_held import stops_held

LOCK_NAME = ".run.lock"
#: errno values of a filesystem that has no flock; anything else is a real error.
NO_LOCKING = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}


class RunLock:
    """The lock on one run folder, held until :meth:`release`.

    Attributes:
        folder: the run's folder.
        unsupported: why the folder could not be locked (the run goes on unguarded); None when held.
        name: the lock file's name in ``folder`` (``LOCK_NAME``, or one file's: ``file_lock_name``).
    """

    def __init__(self, folder: Path, handle=None, made_folders: list[Path] | None = None,
                 unsupported: str | None = None, name: str = LOCK_NAME, taker: FrameType | None = None):
        self.folder, self.unsupported, self.name = folder, unsupported, name
        self._held = _Held(folder / name, handle, made_folders or [])
        self._taker = taker  # here, not in _Held, which its finalizer keeps: the frame may lead back to this lock
        self._finalizer = None
        if handle is not None:
            _HELD[self._held.identity] = self
            # Collected unreleased (its release stopped before its first line, the exception since dropped): the file
            # and the folders go then, as the release would have taken them. Detached once released: code run as an
            # object is collected drops a stop landing in it ("Exception ignored"), as after every run it would
            self._finalizer = weakref.finalize(self, self._held.release)
            self._finalizer.atexit = False  # at the end the kernel drops the lock, as for a kill

    @property
    def _handle(self):
        return self._held.handle

    def say_who_holds_it(self) -> None:
        """Write this process's host, pid, start and command into the lock file, for a refused run to name."""
        if self._handle is None:
            return
        self._handle.seek(0)
        self._handle.truncate()
        self._handle.write(json.dumps({"host": socket.gethostname(), "pid": os.getpid(),
                                       "started": datetime.datetime.now().isoformat(timespec="seconds"),
                                       "command": " ".join(sys.argv)}) + "\n")
        self._handle.flush()

    def release(self, keep_folders: bool = False) -> list[Path]:
        """Remove the lock file and drop the lock (in that order: a run that opens the file meanwhile
        finds it gone once it holds the lock, and takes a new one); remove the folder, and the parents
        the lock made for it, if this run made them and left nothing in them (a run refused before it
        wrote anything leaves no trace: Segmentation().fit's refusal left runs/, the parent of its
        default runs/segmentation, until the ninety-first session). Once; a stop meanwhile is raised when all
        that is done (``stops_held``): raised between the two, until the hundred-and-twenty-third session, it left
        ``.run.lock`` (or the empty folder) behind. ``keep_folders``: those folders returned instead, to a run that
        takes the lock over (one call here, not two: a stop lands at each call's first line)."""
        made = self._held.release(keep_folders)
        self._taker = None
        if self._finalizer is not None:
            self._finalizer.detach()
        return made

    def in_use(self) -> bool:
        """Whether this lock is still used: held, and the call it was taken for (``_taker``) not ended, on any thread
        of this process; or one that cannot be told (taken by a caller outside this package, or in a fork's
        parent)."""
        if self._held.handle is None:
            return False
        if self._taker is None or self._held.pid != os.getpid():
            return True
        return any([self._taker in _outwards(top) for top in sys._current_frames().values()])  # a list: _outwards


class _Held:
    """What a lock holds until it is released, apart from the ``RunLock`` so that its finalizer can release it: the
    open file whose ``flock`` it is, and the folders it made."""

    def __init__(self, path: Path, handle, made_folders: list[Path]):
        self.path, self.handle, self.made_folders = path, handle, made_folders
        self.pid = os.getpid()
        self.identity = _identity(handle) if handle is not None else None
        self.releasing = threading.RLock()  # a takeover on another thread, or the finalizer, waits for a release

    def release(self, keep_folders: bool = False) -> list[Path]:
        """Let go of the lock and remove the folders it made while empty; ``keep_folders``: return them instead (to
        the run that takes the lock over, for which they are made). A stop meanwhile is held until all is done; one
        that lands before the hold begins (stops_held's own first lines) is raised once the release is done
        unheld, in the ``finally``: the file removed and closed there, not left holding the lock."""
        if self.handle is None and not self.made_folders:  # released: no code more than this, which a finalizer runs
            return []
        with self.releasing:
            try:
                with stops_held():
                    return self._let_go(keep_folders)
            finally:
                self._let_go(keep_folders)  # nothing left to do unless a stop came before the hold

    def _let_go(self, keep_folders: bool) -> list[Path]:
        if os.getpid() != self.pid:  # a fork's copy of its parent's lock: the parent's to release
            return []
        if self.handle is not None:
            self._unlock()
        made, self.made_folders = self.made_folders, []  # once, as the lock is released once
        if not keep_folders:
            remove_if_empty(made)
        return made if keep_folders else []

    def _unlock(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            # A folder gone read-only (or a full disk) mid-run: the file stays, but the lock goes with the
            # handle, so the next run takes it. Raised here, this hid the error that ended the run
            # (a PermissionError on .run.lock was the last thing the user saw, sixty-ninth session).
            pass
        finally:
            self.handle.close()
            self.handle = None
            if (lock := _HELD.get(self.identity)) is not None and lock._held is self:
                _HELD.pop(self.identity, None)


def let_go_before_exiting(wait_s: float = 1.0) -> None:
    """Every lock this process holds let go as its release would (its file removed, then the flock dropped, and the
    folders it made removed where empty), for a process about to end with ``os._exit`` (exit_now.py), which skips the
    with statements that release them: a launched predict's processes stopped together end so, and the main
    process's ``.run.lock`` stayed in the output folder (the hundred-and-twenty-fifth session's walk; removed since
    its review, r119). The kernel drops the flock as the process ends all the same, so the lock guards nothing more
    for those few instants: what it held (a map being written, cut short) is as the exit leaves it either way. Only
    this process's own locks (a fork's copies are its parent's: ``_Held._let_go``), never another's: a lock is in
    ``_HELD`` while this process holds its flock. A release under way on another thread is waited for ``wait_s`` at
    most, and left to itself after it; on this thread (a signal's handler run inside it) it is finished here."""
    for lock in list(_HELD.values()):
        held = lock._held
        # a fork's copy first: its releasing lock may be one a thread of the parent held as it forked, held for ever
        if held.pid != os.getpid() or not held.releasing.acquire(timeout=wait_s):
            continue
        try:
            with contextlib.suppress(Exception):
                held._let_go(keep_folders=False)
        finally:
            held.releasing.release()


#: The locks this process holds, by their file's (device, inode); a lock refused to this process is looked up here.
_HELD: weakref.WeakValueDictionary[tuple[int, int], RunLock] = weakref.WeakValueDictionary()
_SUSPENDED = 0x20 | 0x80 | 0x200  # inspect's CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR: frames that pause


def _identity(handle) -> tuple[int, int]:
    status = os.fstat(handle.fileno())
    return status.st_dev, status.st_ino


def _outwards(frame: FrameType | None) -> list[FrameType]:
    """``frame`` and its callers, outwards: a list, not a generator, whose close, left half way, would run code where
    a stop is dropped ("Exception ignored in: <generator object ...>", the probe's)."""
    frames = []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames


def _taker(frame: FrameType) -> FrameType | None:
    """The frame whose end ends the run a lock taken in ``frame`` is for: the outermost frame of this package's code
    (train, fit, predict_file, predict_cases, main, the estimator's methods), which no lock of it outlives; None where
    none can be told. Where that outermost frame is a holding context itself (``holding_output_folder``...) entered by
    code outside the package, it is the frame whose with statement entered it; None for one entered into an ExitStack
    (whose with statement may lie in another frame), a generator's, or ``hold_run_folder`` called from outside."""
    package = __name__.partition(".")[0]
    outermost = None
    for each in _outwards(frame):
        if each.f_globals.get("__name__", "").partition(".")[0] == package:
            outermost = each
    if outermost is None or outermost.f_code is hold_run_folder.__code__:
        return None
    if outermost.f_code.co_flags & _SUSPENDED:
        for each in _outwards(outermost.f_back):
            if each.f_code.co_filename != contextlib.__file__:
                return None if each.f_code.co_flags & _SUSPENDED or not _entering_a_with(each) else each
            if each.f_code.co_name == "enter_context":
                return None
        return None
    return outermost


def _the_callers_level() -> int:
    """The ``stacklevel`` that has a warning of ``_taken`` name the line that called the package (the outermost frame
    of its code, and contextlib's frames around a holding context), not one of the package's own: a fixed 4 named
    inference_outputs.py's ``hold`` for a predict, run_folder_ranks.py's ``on_main`` for train (r111's review)."""
    package = __name__.partition(".")[0]
    frames = _outwards(sys._getframe(1))  # _taken's first: stacklevel 1
    level = 1 + max([at for at, each in enumerate(frames)
                     if each.f_globals.get("__name__", "").partition(".")[0] == package], default=0)
    while level < len(frames) and frames[level].f_code.co_filename == contextlib.__file__:
        level += 1
    return level + 1


def _entering_a_with(frame: FrameType) -> bool:
    """Whether ``frame`` is at a with statement's entry (it called ``__enter__``), not at a call of ``__enter__`` by
    hand: a user's class whose ``__enter__`` enters ``holding_output_folder`` returns from that frame while its with
    block runs, and until the hundred-and-twenty-third session's review (r111) a second predict there took the live
    lock over. Another Python's with (3.14's is a call) reads as not one: the lock is then never taken over."""
    try:
        return dis.opname[frame.f_code.co_code[frame.f_lasti]] in ("BEFORE_WITH", "SETUP_WITH")
    except IndexError:
        return False


def _unused_here(handle) -> RunLock | None:
    """The lock of this process that holds ``handle``'s file, where its run has ended (``RunLock.in_use``)."""
    try:
        lock = _HELD.get(_identity(handle))
    except OSError:
        return None
    return lock if lock is not None and not lock.in_use() else None


#: What two runs in one folder do to each other, for the refusal; predict says its own (inference_outputs.py).
RUNS_CLASH = "two runs in one folder write over each other's checkpoints and exports"


def in_use(folder: Path | str, holder: str, elsewhere: str, clash: str = RUNS_CLASH, verb: str = "train") -> str:
    return (f"{folder} is in use by another run ({holder}): {clash}. Wait for it to end (or stop it), "
            f"or {verb} into {elsewhere}")


def file_lock_name(file: str | Path) -> str:
    """The name of the lock on one file, beside it: ``.<name>.run.lock``. A predict whose ``--output`` is one label
    map holds it on each file its writes reach (inference_outputs.holding_output_folder): the file's folder may hold
    others' files, so its ``LOCK_NAME`` is not taken for one file.

    A name too long for that (over 245 bytes) is cut to keep the lock's within a file name's 255 bytes, and the
    digest of the whole name follows the cut part: cut alone, two names sharing their first 245 bytes shared one lock
    until the hundred-and-twenty-second session, the second predict refused, naming the first's command, though the
    two wrote different files. Such a lock's name ends in the digest's hex before ``.run.lock``, which no NIfTI
    name does, so it is no ordinary name's lock."""
    name = Path(file).name
    whole = f".{name}{LOCK_NAME}"
    if len(os.fsencode(whole)) <= NAME_MAX:
        return whole
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:16]  # the same in every process, unlike hash()
    room = NAME_MAX - len(f"..{digest}{LOCK_NAME}")
    return f".{os.fsencode(name)[:room].decode(errors='ignore')}.{digest}{LOCK_NAME}"


def live_holder(folder: str | Path, name: str = LOCK_NAME) -> str | None:
    """The live run that holds ``folder``'s lock, described; None when none does (or this filesystem
    cannot tell). Reads without taking the lock for longer than the probe, and makes no file: the
    folder checks ask it first, so that a run alive there is named as such, not as an earlier run
    to resume or overwrite (whose ways on the lock then refused, sixty-seventh session). ``name``: the lock file's
    (``file_lock_name`` for one file's)."""
    path = Path(folder) / name
    try:
        import fcntl

        handle = open(path, encoding="utf-8")
    except (ImportError, OSError):  # no flock here, no lock file (no run started there), unreadable
        return None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return None if _unused_here(handle) is not None else _describe(handle.read())
        except OSError:
            return None
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    return None


def hold_run_folder(folder: str | Path, elsewhere: str = "another --train.output_dir", clash: str = RUNS_CLASH,
                    verb: str = "train", *, name: str = LOCK_NAME, shown: str | None = None) -> RunLock:
    """Lock ``folder`` (made if missing) for this process's run; call on the main process only.

    A stop (Ctrl-C, SIGTERM, SIGUSR1) as the lock is taken is held until it is, then raised with the lock released
    (``stops_held``), as is an error writing the holder's name. Raised between the flock and the return, until the
    hundred-and-twenty-second session, it left the lock file in the folder (and a folder the lock made), and the
    lock held by the file its frame kept open for as long as the exception was kept: a notebook keeps the last one,
    and the same predict run again there was refused, naming its own process
    (benchmarks/results/output_locks_left_2026-12-07). A stop at its holder's edges still keeps it so (the module's
    docstring); a lock of this process whose run has ended is taken over, with a warning, since the
    hundred-and-twenty-third session (benchmarks/results/stop_at_the_lock_edges_2026-12-07).

    Args:
        folder: the run's output folder.
        elsewhere: how the caller's user names another folder, for the message.
        clash, verb: what two runs in the folder would do, and what the user does into another, for
            the message (``in_use``).
        name: the lock file's name (``LOCK_NAME``; ``file_lock_name`` for one file's lock).
        shown: how the message names what is in use (the folder where None).

    Raises:
        ConfigError: another live run holds the folder, naming its host, process and command (this process too,
            where the call it was taken for still runs: a second fit on another thread, or inside the first).
    """
    lock, taker = None, _taker(sys._getframe())
    try:
        with stops_held():
            lock = _taken(Path(folder), name, lambda holder: in_use(shown or folder, holder, elsewhere, clash, verb),
                          shown or str(folder), taker)
            lock.say_who_holds_it()
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    return lock


def _taken(folder: Path, name: str, refusal: Callable[[str], str], shown: str, taker: FrameType | None) -> RunLock:
    """``hold_run_folder``'s lock, its holder's name not yet written; ``refusal``: the message, given the holder;
    ``shown``: what is locked, in the user's words; ``taker``: the frame of the call the lock is taken for
    (``_taker``)."""
    made_folders: list[Path] = []
    try:
        import fcntl
    except ImportError:  # Windows: no flock
        made_folders = folders_to_make(folder)
        folder.mkdir(parents=True, exist_ok=True)
        return RunLock(folder, made_folders=made_folders, unsupported="this platform has no fcntl.flock", name=name)
    path = folder / name
    for _ in range(10):  # another run may remove the file between our open and our lock: open it again
        made_folders = sorted(set(folders_to_make(folder) + made_folders), key=lambda made: -len(made.parts))
        folder.mkdir(parents=True, exist_ok=True)
        made_file = not path.exists()
        handle = open(path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            unused = _unused_here(handle)
            handle.seek(0)
            holder = _describe(handle.read())
            handle.close()
            if unused is None:
                raise ConfigError(refusal(holder)) from None
            made_folders += unused.release(keep_folders=True)  # made for this folder, as ours would be
            warnings.warn(f"{shown} was still locked by an earlier run of this process ({holder}), which has ended: "
                          f"stopped as it took or let go of the lock, whose exception is kept (a notebook keeps the "
                          f"last one); taken over, as a killed run's lock is", AcceleratedSegWarning,
                          stacklevel=_the_callers_level())
            continue
        except OSError as error:
            handle.close()
            if made_file:  # an empty lock file that locks nothing stayed in the outputs
                path.unlink(missing_ok=True)
            if error.errno in NO_LOCKING:
                return RunLock(folder, made_folders=made_folders, name=name,
                               unsupported=f"its filesystem does not lock files ({os.strerror(error.errno)})")
            raise
        if same_file(handle, path):
            return RunLock(folder, handle, made_folders, name=name, taker=taker)
        handle.close()  # we locked a file the run before us removed on release
    raise ConfigError(f"{folder}: could not take its {name} (removed and made again 10 times meanwhile); "
                      f"another program keeps replacing it")


def same_file(handle, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
    except FileNotFoundError:
        return False


def _describe(text: str) -> str:
    """The holder recorded in the lock file, in words ("process 12 on node7 since ..., running ...")."""
    try:
        holder = json.loads(text)
        return (f"process {holder['pid']} on {holder['host']} since {holder['started']}, running "
                f"{holder['command']!r}")
    except (ValueError, KeyError, TypeError):  # still being written, or not ours
        return "its holder has not written its name yet"
