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
import json
import os
import socket
import sys
from pathlib import Path

from .config import ConfigError
from .files import NAME_MAX, folders_to_make, remove_if_empty

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
    """The name of the lock on one file, beside it: ``.<name>.run.lock``, ``name`` cut to keep it within a file
    name's 255 bytes. A predict whose ``--output`` is one label map holds it on the file its write reaches
    (inference_outputs.holding_output_folder): the file's folder may hold others' files, so its ``LOCK_NAME`` is not
    taken for one file."""
    name = Path(file).name
    room = NAME_MAX - len(f".{LOCK_NAME}".encode())
    return f".{name.encode()[:room].decode(errors='ignore')}{LOCK_NAME}"


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
    folder = Path(folder)
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
            raise ConfigError(in_use(shown or folder, holder, elsewhere, clash, verb)) from None
        except OSError as error:
            handle.close()
            if made_file:  # an empty lock file that locks nothing stayed in the outputs
                path.unlink(missing_ok=True)
            if error.errno in NO_LOCKING:
                return RunLock(folder, made_folders=made_folders, name=name,
                               unsupported=f"its filesystem does not lock files ({os.strerror(error.errno)})")
            raise
        if same_file(handle, path):
            break
        handle.close()  # we locked a file the run before us removed on release
    else:
        raise ConfigError(f"{folder}: could not take its {name} (removed and made again 10 times meanwhile); "
                          f"another program keeps replacing it")
    handle.seek(0)
    handle.truncate()
    handle.write(json.dumps({"host": socket.gethostname(), "pid": os.getpid(),
                             "started": datetime.datetime.now().isoformat(timespec="seconds"),
                             "command": " ".join(sys.argv)}) + "\n")
    handle.flush()
    return RunLock(folder, handle, made_folders, name=name)


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
