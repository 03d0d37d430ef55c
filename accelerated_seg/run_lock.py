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
"""

from __future__ import annotations

import datetime
import errno
import hashlib
import json
import os
import socket
import sys
from pathlib import Path
from typing import Callable

from .config import ConfigError
from .files import NAME_MAX, folders_to_make, remove_if_empty
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
                 unsupported: str | None = None, name: str = LOCK_NAME):
        self.folder, self._handle, self.unsupported, self.name = folder, handle, unsupported, name
        self._made_folders = made_folders or []  # deepest first

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

    def release(self) -> None:
        """Remove the lock file and drop the lock (in that order: a run that opens the file meanwhile
        finds it gone once it holds the lock, and takes a new one); remove the folder, and the parents
        the lock made for it, if this run made them and left nothing in them (a run refused before it
        wrote anything leaves no trace: Segmentation().fit's refusal left runs/, the parent of its
        default runs/segmentation, until the ninety-first session)."""
        if self._handle is not None:
            self._unlock()
        made, self._made_folders = self._made_folders, []  # once, as the lock is released once
        remove_if_empty(made)

    def _unlock(self) -> None:
        try:
            (self.folder / self.name).unlink(missing_ok=True)
        except OSError:
            # A folder gone read-only (or a full disk) mid-run: the file stays, but the lock goes with the
            # handle, so the next run takes it. Raised here, this hid the error that ended the run
            # (a PermissionError on .run.lock was the last thing the user saw, sixty-ninth session).
            pass
        finally:
            self._handle.close()
            self._handle = None


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
            return _describe(handle.read())
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
    (benchmarks/results/output_locks_left_2026-12-07).

    Args:
        folder: the run's output folder.
        elsewhere: how the caller's user names another folder, for the message.
        clash, verb: what two runs in the folder would do, and what the user does into another, for
            the message (``in_use``).
        name: the lock file's name (``LOCK_NAME``; ``file_lock_name`` for one file's lock).
        shown: how the message names what is in use (the folder where None).

    Raises:
        ConfigError: another live run holds the folder, naming its host, process and command.
    """
    lock = None
    try:
        with stops_held():
            lock = _taken(Path(folder), name, lambda holder: in_use(shown or folder, holder, elsewhere, clash, verb))
            lock.say_who_holds_it()
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    return lock


def _taken(folder: Path, name: str, refusal: Callable[[str], str]) -> RunLock:
    """``hold_run_folder``'s lock, its holder's name not yet written; ``refusal``: the message, given the holder."""
    made_folders = folders_to_make(folder)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: no flock
        return RunLock(folder, made_folders=made_folders, unsupported="this platform has no fcntl.flock", name=name)
    path = folder / name
    for _ in range(10):  # another run may remove the file between our open and our lock: open it again
        made_file = not path.exists()
        handle = open(path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = _describe(handle.read())
            handle.close()
            raise ConfigError(refusal(holder)) from None
        except OSError as error:
            handle.close()
            if made_file:  # an empty lock file that locks nothing stayed in the outputs
                path.unlink(missing_ok=True)
            if error.errno in NO_LOCKING:
                return RunLock(folder, made_folders=made_folders, name=name,
                               unsupported=f"its filesystem does not lock files ({os.strerror(error.errno)})")
            raise
        if same_file(handle, path):
            return RunLock(folder, handle, made_folders, name=name)
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
