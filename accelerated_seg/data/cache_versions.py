"""The preprocessed versions of a dataset in the cache: which a live run uses, and removing the others.

Every setting that changes the preprocessing (spacing, normalization, crop, classes) and every
version of the preprocessing code adds a whole copy of the dataset beside the others
(``<cache_dir>/<dataset>-<hash>/<version>/``), and no run deletes one: another experiment may be
training from it. Runs said how much the others held and to "delete those no run needs" (since the
seventy-fifth session), which a user could not tell.

So a run holds a shared ``flock`` on ``<version>/.in_use.lock`` from before it reads or builds that
version until it ends (every rank, each on the file it sees; the kernel drops it however the process
ends), and ``accelerated-seg cache --prune`` removes a version only while it holds the exclusive lock
on the same file: never one a live run holds, and a run that starts meanwhile waits the moment of
the removal and then builds its version anew. A filesystem without ``flock`` (Lustre mounted without
``-o flock``) cannot tell: there the runs go on unguarded and ``--prune`` removes nothing. Nor can a
cache the run may not write (read-only, or another user's lock file): the lock file is opened for
reading where it exists, which ``flock`` needs no more than, and a run that cannot open or make it
goes on unguarded (a read-only cache stopped every run with a traceback, a review found).

Not guarded: a run reading the version before it takes the lock (its checks and model build, about
a second to minutes), the loader of ``Dataset.loader()`` outside ``fit``, and a job of a version of
this package from before the seventy-ninth session. ``--prune`` is for versions of settings no
experiment runs any more.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..files import replace_atomically, stored_bytes
from ..run_lock import NO_LOCKING, same_file

IN_USE = ".in_use.lock"
SETTINGS_FILE = "settings.json"  # what a version records of its settings, beside its cases' json
SOURCE_FILE = "source.txt"  # in a dataset's folder in the cache: the folder of the dataset's description
#: A dataset's folder in the cache, ``<name>-<8 hex>`` (its description's folder and a hash of its path),
#: and a version's in it, ``<16 hex>`` (a hash of the settings): PreprocessedCache names them so.
DATASET_FOLDER = re.compile(r"^.+-[0-9a-f]{8}$")
VERSION_FOLDER = re.compile(r"^[0-9a-f]{16}$")


@contextlib.contextmanager
def using_version(folder: Path):
    """Hold ``folder`` (a cache version, made if missing) as in use until the block ends."""
    handle = _locked(Path(folder), exclusive=False, wait=True, make=True)
    try:
        yield
    finally:
        if handle is not None:
            handle.close()


def _locked(folder: Path, exclusive: bool, wait: bool, make: bool = False, unwritable_ok: bool = True):
    """An open handle on ``folder``'s lock file holding the lock asked for; None where the lock cannot be
    had: held by another process (``wait`` False), a filesystem without flock, a lock file that cannot
    be opened or made (a read-only cache, another user's: an OSError unless ``unwritable_ok``), or no
    such folder (``make`` False)."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock
        return None
    path = folder / IN_USE
    mode = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | (0 if wait else fcntl.LOCK_NB)
    for _ in range(10):  # a prune may rename the folder between our open and our lock: open it again
        try:
            if make:
                folder.mkdir(parents=True, exist_ok=True)
            elif not folder.is_dir():
                return None
            # for reading where it is there: flock needs no more, and another user's file allows no more
            handle = open(path, "r" if path.exists() else "a+", encoding="utf-8")
        except FileNotFoundError:  # renamed away by a prune between the two steps above: again
            continue
        except OSError:  # a read-only cache, another user's folder: unguarded, as without flock
            if unwritable_ok:
                return None
            raise
        try:
            fcntl.flock(handle.fileno(), mode)
        except BlockingIOError:
            handle.close()
            return None
        except OSError as error:
            handle.close()
            if error.errno in NO_LOCKING:
                return None
            raise
        if same_file(handle, path):
            return handle
        handle.close()  # removed by a prune while we waited: lock the version made anew
    return None


@dataclass(frozen=True)
class Version:
    """One preprocessed version of a dataset in the cache."""

    folder: Path
    bytes: int
    cases: int  # the cases built into it (their json records)
    in_use: bool | None  # a live run holds it; None: this filesystem cannot tell


def dataset_versions(dataset_folder: Path) -> list[Version]:
    """The versions under ``dataset_folder`` (``PreprocessedCache.dir.parent``), largest first."""
    found = []
    for entry in _versions_in(Path(dataset_folder)):
        cases = sum(1 for path in entry.glob("*.json") if path.name != SETTINGS_FILE)
        found.append(Version(entry, bytes_under(entry), cases, _held(entry)))
    return sorted(found, key=lambda version: -version.bytes)


def _versions_in(dataset_folder: Path) -> list[Path]:
    """The version folders in ``dataset_folder``: named as the cache names them, with their settings
    recorded. Anything else there (a user's folder, a removal in progress, hidden) is no version, and
    a prune leaves it alone: a folder of a user's named like a dataset's (``study-20240115``) had its
    subfolders listed as versions, and pruned, in a review's probe."""
    try:
        entries = sorted(dataset_folder.iterdir())
    except OSError:  # none, or unreadable (another user's, in a shared cache)
        return []
    return [entry for entry in entries if is_version(entry)]


def _held(folder: Path) -> bool | None:
    """Whether a live run holds ``folder``: asked by trying the exclusive lock for an instant."""
    if not (folder / IN_USE).exists():
        return False  # no run since runs took the lock, nor one now: the file is made before the lock
    try:
        import fcntl

        with open(folder / IN_USE, encoding="utf-8") as handle:  # flock needs no more than reading
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            except OSError as error:
                return None if error.errno in NO_LOCKING else False
            return False
    except (ImportError, OSError):
        return None


@dataclass(frozen=True)
class CachedDataset:
    """One dataset's folder in the cache, and its versions."""

    folder: Path
    source: Path | None  # the folder of the dataset it holds; None: not recorded (before the eightieth session)
    versions: list[Version]

    @property
    def bytes(self) -> int:
        return sum(version.bytes for version in self.versions)


def record_source(dataset_folder: Path, source: Path) -> None:
    """Record in ``dataset_folder`` which dataset it holds, so that ``cache`` can name it when the
    dataset has been moved or deleted (the folder's name keeps only its last part and a hash).
    Best effort: a cache this user cannot write is read as it is."""
    path = Path(dataset_folder) / SOURCE_FILE
    try:
        # as its bytes: a name in Latin-1 (a byte that is not UTF-8) raised UnicodeEncodeError in write_text
        if not path.is_file() or path.read_bytes() != stored_bytes(str(source)):
            replace_atomically(path, lambda temporary: temporary.write_bytes(stored_bytes(str(source))))
    except OSError:
        pass


def is_cached_dataset(folder: Path) -> bool:
    """Whether ``folder`` is a dataset's folder in a cache (not a dataset's own folder): named as the
    cache names them, and holding the source it records or a version."""
    folder = Path(folder).resolve()  # by its own name: "." (a shell in the folder) or ".." has none
    return folder.is_dir() and bool(DATASET_FOLDER.match(folder.name)) and (
        (folder / SOURCE_FILE).is_file() or bool(_versions_in(folder)))


def is_version(folder: Path) -> bool:
    """Whether ``folder`` is one preprocessed version of a dataset in a cache, as ``_versions_in`` finds them."""
    folder = Path(folder).resolve()  # by its own name, as is_cached_dataset
    return bool(VERSION_FOLDER.match(folder.name)) and (folder / SETTINGS_FILE).is_file()


def cached_datasets(root: Path) -> list[CachedDataset]:
    """Every dataset's folder in the cache ``root``, largest first (the checks' records are none)."""
    found = []
    try:
        entries = sorted(Path(root).iterdir())
    except OSError:
        entries = []
    for entry in entries:
        if not is_cached_dataset(entry):
            continue
        try:
            source = Path((entry / SOURCE_FILE).read_text(encoding="utf-8", errors="surrogateescape").strip())
        except OSError:
            source = None
        found.append(CachedDataset(entry, source, dataset_versions(entry)))
    return sorted(found, key=lambda dataset: -dataset.bytes)


def remove_version(folder: Path) -> bool:
    """Remove a version no live run holds, while holding its exclusive lock; False where one holds it,
    the filesystem cannot tell, or another prune removed it first. Renamed to a hidden name first, so
    that a run starting meanwhile finds no half-removed version but none, and builds it anew.

    Raises:
        OSError: the version's lock cannot be made, or the version renamed (a read-only cache).
    """
    handle = _locked(Path(folder), exclusive=True, wait=False, unwritable_ok=False)
    if handle is None:
        return False
    try:
        doomed = folder.with_name(f".removing-{folder.name}-{uuid.uuid4().hex[:8]}")
        folder.rename(doomed)
    finally:
        handle.close()
    shutil.rmtree(doomed, ignore_errors=True)
    return True


def removals_left(dataset_folder: Path) -> list[Path]:
    """The folders a prune renamed aside and did not finish deleting (killed meanwhile): no run uses them."""
    return sorted(Path(dataset_folder).glob(".removing-*")) if Path(dataset_folder).is_dir() else []


def size_said(count: int) -> str:
    """A size in bytes as the cache's notes say it: GB from 1 GB, MB below."""
    return f"{count / 1e9:.1f} GB" if count >= 1e9 else f"{count / 1e6:.1f} MB"


def bytes_under(folder: str | Path) -> int:
    """The size of the files under ``folder``; those that vanish while it is walked, or that this user
    cannot read, count nothing."""
    total = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:  # gone meanwhile, or unreadable (another user's): nothing this user can count
        return 0
    for entry in entries:
        try:
            total += bytes_under(entry.path) if entry.is_dir(follow_symlinks=False) else entry.stat().st_size
        except OSError:
            continue
    return total
