"""Writing a file so that it is never seen half-written.

A run rewrites metrics.json at every validation and summary.json at the end; a benchmark replaces
its earlier result; the report and a saved model replace earlier ones. Killed in the middle of a
plain write, any of them would leave a truncated file in place of the good one. Checkpoints, exports
and NIfTI files have their own atomic writers (checkpoint.py, exported_model.py, data/io.py).

A rename is atomic, but not durable by itself: after a power loss or a node crash the filesystem
may have kept the rename and not yet the data (ext4's delayed allocation, XFS), leaving the new
name on an empty or short file where the good old one was. So every writer here syncs what it wrote
before renaming it into place, and the folder after (``sync_file``, ``sync_folder``,
``sync_directory``), as ``torch.distributed.checkpoint``'s file writer does by default.

A path that is a symbolic link is written through (``written_through``): the new file takes the place of the
file the link names, and the link stays, as nibabel's own save, ``shutil.copy`` and ``cp`` do; renamed over the
link itself, the write left the link's target holding the old file, which the user then read (the
hundred-and-twentieth session).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator

from .stops_held import stops_held

# The hidden names our writers give work in progress: ".<name>.<uuid4 hex>.tmp[.nii[.gz]]" files
# (here and in data/io.py) and ".<name>.<uuid4 hex>.partial" folders (the cache's case tables).
_TEMPORARY_NAME = re.compile(r"^\..+\.[0-9a-f]{32}\.(tmp(\.nii(\.gz)?)?|partial)$")

#: The longest file name the usual filesystems take (ext4, xfs, NFS: NAME_MAX), in bytes.
NAME_MAX = 255


def stored_bytes(text: str) -> bytes:
    """The bytes of a name, a path or a text holding paths as a key is hashed from them or a file holds them: UTF-8,
    a byte that is not UTF-8 (a name in Latin-1, which Python holds as a surrogate escape, '\\udce9') as that byte,
    as Linux stores it. ``str.encode`` raised UnicodeEncodeError at such a name (a ``data.cache_dir`` in a folder
    named in Latin-1 ended training once its cases were preprocessed, until the hundred-and-twenty-third session);
    UTF-8 whatever the locale, not ``os.fsencode``'s encoding, so every text ``str.encode`` took gives the same
    bytes and no key made before (a cache's folders and tables) differs."""
    return text.encode("utf-8", "surrogateescape")


def is_utf8(text: str) -> bool:
    """Whether ``text`` (a path as Python holds it) is UTF-8: False where a name holds a byte that is not."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


@contextlib.contextmanager
def by_a_utf8_name(path: str | Path) -> Iterator[str]:
    """``path`` as a string, or where it is not UTF-8 (a folder named in Latin-1) the same file or folder by a name
    that is, for the while: ``/proc/self/fd/<n>``, Linux's link to a file this process holds (opened by O_PATH,
    which reads nothing), a name below it the file's below that folder. safetensors (``Path ... is not valid
    UTF-8``), TensorBoard and pyarrow take no other path (an export's model.safetensors in such a folder was refused
    as damaged, and a run folder ended in TensorBoard's traceback, until the hundred-and-twenty-third session).
    Without /proc, or where the path cannot be opened, it is the path as given, for the caller's own error. An
    OSError raised inside names the file by its path, not by that name (a case table's write that failed in such a
    cache said ``/proc/self/fd/<n>/...`` until the hundred-and-twenty-third session's review)."""
    text = str(path)
    if is_utf8(text) or not os.path.isdir("/proc/self/fd"):
        yield text
        return
    try:
        handle = os.open(text, getattr(os, "O_PATH", os.O_RDONLY))
    except OSError:
        yield text
        return
    name = f"/proc/self/fd/{handle}"
    try:
        yield name
    except OSError as error:
        for attribute in ("filename", "filename2"):
            said = getattr(error, attribute, None)
            if isinstance(said, str) and (said == name or said.startswith(name + "/")):
                setattr(error, attribute, text + said[len(name):])
        raise
    finally:
        os.close(handle)


def name_too_long(path: str | Path) -> tuple[str, int] | None:
    """(the first name on ``path``, a file's or a folder's, that is longer than a file name can be, and its length
    in bytes); None where each fits in ``NAME_MAX`` bytes. Counted as the OS stores the name (os.fsencode): the
    ``str.encode`` of predict's check raised UnicodeEncodeError on a name holding a byte that is not UTF-8 (a
    Latin-1 "r\\xe9sultats", as Linux passes it), refusing its --output in the codec's words, until the
    hundred-and-twenty-second session's review; evaluate's and predict's checks each counted it their own way."""
    for name in Path(path).parts:
        if (length := len(os.fsencode(name))) > NAME_MAX:
            return name, length
    return None


def temporary_name(name: str, suffix: str = "tmp") -> str:
    """``.<name>.<uuid4 hex>.<suffix>``: the hidden name of a file being written (``_TEMPORARY_NAME``), with
    ``name`` cut to keep it within a file name's 255 bytes. The 45 more characters than the final name
    made a label map named after a long scan (an output name of 211 to 255 characters) fail at its
    write, after its case was segmented, with "File name too long" (an audit's probe)."""
    unique = uuid.uuid4().hex
    room = NAME_MAX - len(f"..{unique}.{suffix}".encode())
    # cut in the bytes the OS stores (os.fsencode), as they are: str.encode raised UnicodeEncodeError at a name
    # holding a byte that is not UTF-8 (a scan named in Latin-1), after its case was segmented, until the
    # hundred-and-twenty-third session. Cut before a UTF-8 character, not inside it (the next byte no continuation
    # byte, 0b10xxxxxx, which three at most follow a character's first): that session cut one, its name no longer
    # UTF-8, shown with \xNN wherever a leftover is named, until its review (r107)
    stored = os.fsencode(name)
    cut = room
    while cut > room - 3 and cut < len(stored) and stored[cut] & 0xC0 == 0x80:
        cut -= 1
    return f".{os.fsdecode(stored[:cut])}.{unique}.{suffix}"


#: A temporary untouched this long is a killed writer's: a live one writes its file within seconds
#: to minutes (a 1 GB volume, uncompressed), so an hour leaves a wide margin for slow disks.
STALE_AFTER_S = 3600.0


def link_problem(path: str | Path) -> str | None:
    """Why nothing can be written through ``path``, a symbolic link (a sentence naming it and what to do): one
    that names nothing there (dangling: shared storage not mounted, a study moved), that leads back to itself, or
    that leads through a folder this user cannot open; None where it names something, or ``path`` is no link. A
    dangling link is refused as ``cp`` refuses it ("not writing through dangling symlink"): a file made at its
    target could land on the mount point's local disk, and one made in the link's place would hide where the user
    meant the file to go."""
    error = _link_error(path)
    return error.strerror if error is not None else None


def _link_error(path: str | Path) -> OSError | None:
    """``link_problem``'s, as the OSError that a write through ``path`` raises (ELOOP, ENOENT)."""
    try:
        os.stat(path)  # follows every link on the way
    except OSError as error:
        if error.errno == errno.ELOOP:
            return OSError(errno.ELOOP, f"{path} is a symbolic link in a loop (following it leads back to it), so "
                           f"nothing can be written through it: point it at a file, or remove it", str(path))
        if error.errno in (errno.ENOENT, errno.ENOTDIR) and Path(path).is_symlink():
            return OSError(errno.ENOENT, _dangling(path), str(path))
        # A folder on the way this user may not open: the write's temporary cannot be made there. Passed as no
        # problem until the hundred-and-twenty-first session's review, it was met at the write, after a training,
        # and ended predict's checks in a PermissionError traceback (Path.is_dir raises it).
        if error.errno == errno.EACCES and os.path.islink(path):
            return OSError(errno.EACCES, f"{path} is a symbolic link to {os.readlink(path)}, which this user cannot "
                           f"reach (a folder on the way is not open to it: {error.strerror}), so nothing is written "
                           f"through it: get access to that folder, or point the link elsewhere", str(path))
    return None


def link_chain(path: str | Path) -> tuple[str, str | None]:
    """``path``, a symbolic link, said with what it names and what each link on the way names in turn, as each is
    written (``other is a symbolic link to mid, which is a symbolic link to final``), and the path at the end where
    there is more than one link (None for one). Shared by a write's refusal (``_dangling``) and a dataset's file that
    is a link to nothing (``dataset_json.dangling_link``, since review r113)."""
    def named_by(link: str | Path, target: str) -> str:  # read from the link's own folder, its links resolved
        return os.path.normpath(os.path.join(os.path.realpath(os.path.dirname(link)), target))

    hops = [os.readlink(path)]
    at = named_by(path, hops[0])
    while os.path.islink(at) and len(hops) < 40:  # the kernel's own bound on links followed (a loop: ELOOP)
        hops.append(os.readlink(at))
        at = named_by(at, hops[-1])
    links = "".join(f", which is a symbolic link to {hop}" for hop in hops[1:])
    return f"{path} is a symbolic link to {hops[0]}{links}", (at if len(hops) > 1 else None)


def _dangling(path: str | Path) -> str:
    """``link_problem``'s words for a dangling link, naming each link on its way to what does not exist: of a link
    to a link whose own target is gone (``other -> mid -> final``, ``final`` removed), "other is a symbolic link to
    mid, which does not exist" was said of ``mid``, there for ``ls`` to see, until the hundred-and-twenty-second
    session."""
    chain, at = link_chain(path)
    if at is None:
        return (f"{chain}, which does not exist (a dangling link), so nothing is written through it: mount or make "
                f"what it names, or remove the link to write a file in its place")
    return (f"{chain}, which does not exist (a dangling link at the end of the chain), so nothing is written through "
            f"it: mount or make {at}, or remove {path} to write a file in its place")


def written_through(path: str | Path) -> Path:
    """Where a write of ``path`` puts its file: ``path`` itself, or where it is a symbolic link, the path the link
    names in the end (links of links followed), so that the new file replaces the link's target and the link
    stays, as nibabel's own save, ``shutil.copy`` and ``cp`` write through a link. Renamed over the link, the
    file replaced the link, and the target (another folder, often another filesystem) kept the old one
    (the hundred-and-twentieth session's probe, benchmarks/results/symlinked_outputs_2026-12-07).

    Raises:
        OSError: ``path`` is a link that names nothing there, or one in a loop (``link_problem``'s words).
    """
    path = Path(path)
    if not path.is_symlink():
        return path
    if (error := _link_error(path)) is not None:
        raise error
    return Path(os.path.realpath(path))


def remove_written(path: str | Path) -> None:
    """Delete the file a write of ``path`` made: ``path``, or where it is a symbolic link, the link and then the file
    at the end of it (``written_through``'s), the link first (a kill between leaves no dangling link of ours, which a
    write refuses). Unlinking the link alone (until the hundred-and-twentieth session's review) left its target
    holding the file said to be removed, read there as current. A link of links' middle one (``out -> mid ->
    final``: ``mid``) is the user's, named by no setting, often outside the output and named by other links too: it
    is left, dangling as any other link to the removed file is, and a write through it is refused as ``cp`` refuses
    one. Removed (the hundred-and-twenty-first session until its review), a later write at ``mid`` made a regular
    file in its place, the user's storage (``final``) left empty, and another folder's link to ``mid`` dangled all
    the same (benchmarks/results/review_output_links_2026-12-07/chain_*.txt)."""
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else None
    path.unlink(missing_ok=True)
    if target is not None:
        target.unlink(missing_ok=True)


def replace_atomically(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Call ``write(temporary)`` and then put the result at ``path``: readers see the previous file or
    the whole new one, never half of it.

    The temporary file is hidden, in the same folder (so that ``os.replace`` is a rename on one
    filesystem), and named uniquely, so concurrent writers never share one; it is removed if
    ``write`` fails. Parent folders are created. A ``path`` that is a symbolic link is written through
    (``written_through``): the temporary goes beside the link's target, on its filesystem, and replaces it.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    target = written_through(path)
    temporary = target.with_name(temporary_name(target.name))
    try:
        write(temporary)
        sync_file(temporary)  # the rename must not become durable before the data is
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    sync_directory(target.parent)
    return path


def replace_files_together(folder: Path, sources: dict[str, Path]) -> None:
    """Copy each of ``sources`` to ``folder/<name>``, replacing the file there, in the order given, with
    :func:`write_files_together`: one replaced alone left an export's new weights under the previous
    model's config.json, which loaded without a word (seventy-fourth session)."""
    write_files_together(folder, {name: functools.partial(shutil.copy2, source) for name, source in sources.items()})


def write_files_together(folder: Path, writers: dict[str, Callable[[Path], object]]) -> None:
    """Call each of ``writers`` on a temporary file and put it at ``folder/<name>``, replacing the file
    there, in the order given.

    Every file is written (and flushed) under a temporary name before the first rename, so a write that
    fails (a full disk, Ctrl-C) replaces none of them. A stop (Ctrl-C, SIGTERM, SIGUSR1) that comes as they are
    renamed and their folder synced is held until they are (``stops_held``): raised between two renames, it left
    evaluate's new metrics.csv beside the summary.json of before, until the hundred-and-twenty-first session's
    review. Only a kill between two renames, microseconds apart, can still leave some replaced and some not. A name
    that is a symbolic link is written through (``written_through``), each link found good before anything is written.
    """
    made = folders_to_make(folder)  # the folder and new parents: a failed save into them leaves no trace
    folder.mkdir(parents=True, exist_ok=True)
    staged: dict[str, Path] = {}
    try:
        targets = {name: written_through(folder / name) for name in writers}
        for name, write in writers.items():
            staged[name] = targets[name].with_name(f".{name}.{uuid.uuid4().hex}.tmp")
            write(staged[name])
            sync_file(staged[name])
        with stops_held():  # raised after the sync below, the files all in place and durable
            for name, temporary in staged.items():
                os.replace(temporary, targets[name])
            for renamed_in in {folder, *(target.parent for target in targets.values())}:
                sync_directory(renamed_in)
    except BaseException:
        for temporary in staged.values():
            temporary.unlink(missing_ok=True)
        remove_if_empty(made)  # until the ninety-second session a new parent (the estimator's runs/) stayed
        raise


#: fsync's answers where the file cannot be flushed through a read-only descriptor or at all (Windows
#: wants write access, some network clients refuse): the write stands as the filesystem keeps it.
_CANNOT_FLUSH = {errno.EINVAL, errno.EBADF, errno.EACCES, errno.EOPNOTSUPP, errno.ENOTSUP}


def sync_file(path: str | Path) -> None:
    """Flush ``path``'s data to the disk (fsync): a write is only in the page cache until then. An I/O
    error (EIO, a full disk) is raised; a filesystem that cannot flush this way is left as it is."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    except OSError as error:
        if error.errno not in _CANNOT_FLUSH:
            raise
    finally:
        os.close(descriptor)


def sync_directory(folder: str | Path) -> None:
    """Flush ``folder``'s entries (the names renamed or created in it) to the disk.

    Filesystems that cannot sync a folder (some network and FUSE mounts answer EINVAL) are left as
    they are: there the rename is as durable as the filesystem makes it, and failing the save would
    lose more than it guards.
    """
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def sync_folder(folder: str | Path) -> None:
    """Flush every file under ``folder``, and the folders' entries, before the folder is renamed into
    place (a checkpoint, an export, a case table)."""
    folder = Path(folder)
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            try:
                sync_file(path)
            except FileNotFoundError:
                # Renamed away since the listing: every rank syncs the checkpoint's folder, and another
                # rank's writer (safetensors' own temporary) was mid-save; it syncs its file itself. It
                # ended a probe's 2-process run at a save (seventy-seventh session).
                continue
    for path in sorted((p for p in folder.rglob("*") if p.is_dir()), reverse=True):
        sync_directory(path)
    sync_directory(folder)


def replace_folder(new: Path, final: Path) -> None:
    """Give the folder ``new`` the name ``final``, replacing the folder there (deleted after).

    Readers see the old folder or the new one at ``final``, never no folder: the two are swapped in
    one step where the filesystem can (Linux's ``renameat2`` with ``RENAME_EXCHANGE``: ext4, XFS,
    btrfs, tmpfs). Elsewhere (macOS, NFS) the old one is first renamed to ``<final>.previous``: a
    process reading ``best_model/`` while training replaces it may then find it missing for that
    moment, and a kill just then leaves the new folder at ``new`` and the old at ``.previous``.
    """
    previous = final.with_name(final.name + ".previous")
    # A link or a file at final goes the old way: the swap would move the link, not what it points to. (A link is
    # followed by the caller, which makes new beside its target: write_export, by files.written_through.)
    if final.is_dir() and not final.is_symlink() and _exchange(new, final):
        # The old folder, now at the new one's name; the export is in place. A <final>.previous beside it is not
        # this replace's (the swap makes none): left, as finish_an_interrupted_replace leaves it, for a hand may
        # have made it (until the hundred-and-eighth session it was deleted here).
        shutil.rmtree(new, ignore_errors=True)
    else:
        set_aside = final.exists()  # where it is not, a .previous there is none of this replace's: left
        if set_aside:
            shutil.rmtree(previous, ignore_errors=True)
            final.rename(previous)
        new.rename(final)
        if set_aside:
            shutil.rmtree(previous, ignore_errors=True)
    sync_directory(final.parent)


def finish_an_interrupted_replace(new: Path, final: Path) -> list[Path]:
    """Put right what ``replace_folder(new, final)`` left where its process was ended during it (``os._exit`` from a
    launch's interrupt, a kill): ``final`` whole where it was whole before, ``new`` and ``<final>.previous``
    removed; returns what was removed. ``new`` holds a folder half-written, or the old one being deleted after the
    swap. Where the kill came between the two renames of the way without a swap, ``final`` is missing and ``new``,
    whole by then (written and flushed before the renames), takes the name. Until the hundred-and-seventh session a
    launch's export interrupted this way left ``new`` for good, named ``<export>.partial``, and only the same export
    written again removed it.

    A ``.previous`` beside a whole ``final`` is left: the swap makes none, and the way without one leaves it so only
    when killed while deleting it, after the new folder took the name; nothing tells that from one made by hand
    (a project's ``model.previous/``), which a refused run deleted until the hundred-and-eighth session. So is one
    with neither ``final`` nor ``new`` beside it: no kill leaves that (between the renames ``new`` is there), a hand's
    ``mv model model.previous`` does, the old model kept aside, which was renamed back to ``model/`` here and then
    replaced by the run's next export, or deleted by its overwrite, unsaid (the hundred-and-eighth session's review)."""
    previous = final.with_name(final.name + ".previous")
    between_the_renames = not final.exists() and previous.is_dir() and new.is_dir()
    if between_the_renames:
        new.rename(final)
    removed = [path for path in (new, previous) if path.exists() and (path == new or between_the_renames)]
    for path in removed:
        shutil.rmtree(path)
    return removed


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths' names atomically; False where this system or filesystem cannot."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None) if os.name == "posix" else None
    if renameat2 is None:  # not Linux, or a C library older than glibc 2.28
        return False
    at_working_folder, rename_exchange = -100, 2  # AT_FDCWD and RENAME_EXCHANGE of <fcntl.h>, <linux/fs.h>
    if renameat2(at_working_folder, os.fsencode(first), at_working_folder, os.fsencode(second), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    # a filesystem without it (NFS, FUSE), or a sandbox that forbids the call (seccomp answers EPERM)
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(code, os.strerror(code), str(second))


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    return mask


#: The mode a plain open() gives a new file here (read at import, before any thread of ours runs).
NEW_FILE_MODE = 0o666 & ~_umask()


def with_the_usual_mode(*paths: Path) -> None:
    """Give files the mode any new file gets under this process's umask (0644 under 022).

    safetensors' ``save_file`` creates its file owner-only (0600) whatever the umask, so a model or
    checkpoint that the rest of a project's group can read everything else of could not be loaded by
    them (sixty-ninth session).
    """
    for path in paths:
        os.chmod(path, NEW_FILE_MODE)


def write_text_atomically(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` with :func:`replace_atomically`."""
    return replace_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))


def remove_stale_temporaries(folder: str | Path) -> list[Path]:
    """Delete what killed writers left in ``folder``: hidden temporaries with our writers' names
    (``replace_atomically``, ``write_nifti``, the cache's ``.partial`` tables) that nothing has
    touched for ``STALE_AFTER_S``. Returns what was removed.

    A kill (SIGKILL, a node lost, an out-of-memory kill) skips the ``finally`` that removes a
    temporary, and since each carries a fresh uuid no later write ever reuses it; in a cache of
    large volumes they would pile up unseen. Only names with a uuid are touched, never a user's
    file, and only old ones, so a writer still at work in another process keeps its file (its
    modification time moves as it writes). Files vanishing meanwhile (another process sweeping the
    same folder) are fine.
    """
    folder, now, removed = Path(folder), time.time(), []
    try:
        entries = list(folder.iterdir())
    except FileNotFoundError:
        return removed
    for entry in entries:
        if not _TEMPORARY_NAME.match(entry.name):
            continue
        try:
            touched = max([entry.stat().st_mtime, *(child.stat().st_mtime for child in entry.rglob("*"))]
                          if entry.is_dir() else [entry.stat().st_mtime])
            if now - touched < STALE_AFTER_S:
                continue
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except FileNotFoundError:
            continue
        removed.append(entry)
    return removed


def no_file_made_in(folder: str | Path) -> tuple[Path, str] | None:
    """(the folder tried, why) where no file can be made in ``folder``, or, for a missing folder, in the
    nearest existing one above it, where it would be made: a read-only filesystem, another user's folder;
    None where a file can be made there. Tried by making a hidden file of a temporary's name (which
    ``remove_stale_temporaries`` clears, should a kill leave it) and removing it again."""
    absolute = Path(folder).absolute()
    tried = next(part for part in (absolute, *absolute.parents) if part.exists())
    probe = tried / f".write_check.{uuid.uuid4().hex}.tmp"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        probe.unlink()
    except OSError as error:
        return tried, os.strerror(error.errno) if error.errno else str(error)
    return None


def file_in_the_way(folder: str | Path) -> Path | None:
    """The file at ``folder``'s path, or at its nearest existing parent's, that stops the folder being
    made there (``mkdir`` would raise an OSError); None when the folder is there or can be made."""
    for part in (Path(folder), *Path(folder).parents):
        if part.exists():
            return None if part.is_dir() else part
    return None


def folders_to_make(folder: str | Path) -> list[Path]:
    """``folder`` and each of its parents that does not exist yet, deepest first: what
    ``mkdir(parents=True)`` makes there, and all that ``remove_if_empty`` may take away again."""
    missing = []
    for part in (Path(folder).absolute(), *Path(folder).absolute().parents):
        if part.exists():
            break
        missing.append(part)
    return missing


def remove_if_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (deepest first, as ``folders_to_make`` lists them) while each is empty: a
    refused run leaves the file system as it found it, and a folder something was written into stays,
    with every folder above it."""
    for folder in folders:
        try:
            folder.rmdir()  # only if empty
        except OSError:
            return


def check_output_file(path: str | Path, setting: str, result_key: str, kind: str = "") -> None:
    """Raise ConfigError, naming ``setting``, unless a file can be written at ``path``: called before
    the work whose result it is to hold (a benchmark's measurements were lost at the end). An existing
    file there is replaced only when it is an earlier result of the same command, a JSON object with
    ``result_key`` whose value begins with ``kind`` (``benchmark``'s ``train_``, ``predict_``...):
    `--output data/dataset.json` or a README would have been written over, and so was another
    benchmark's result before the seventy-third session."""
    from .config import ConfigError

    if str(path).endswith(("/", os.sep)) and not Path(path).is_dir():
        # pathlib drops the trailing slash: `--output results/` was written as a file named results
        raise ConfigError(f"{setting} {path} ends in '/', so it names a folder; give a file path for the JSON, "
                          f"such as {Path(path) / 'result.json'}")
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{setting} {path} is a folder; give a file path for the JSON")
    if blocking := file_in_the_way(path.parent):
        raise ConfigError(f"{setting} {path}: {blocking} is a file, so the folder for {path.name} cannot be made")
    if path.is_file():
        if not is_json_object_with(path, {result_key}):
            raise ConfigError(f"{setting} {path} exists and is not an earlier result of this command (a JSON "
                              f"object with {result_key!r}), so it would be replaced: give another path, or move it")
        earlier = json.loads(path.read_text(encoding="utf-8-sig"))[result_key]  # as is_json_object_with reads it
        if not str(earlier).startswith(kind):
            raise ConfigError(f"{setting} {path} holds another command's result ({result_key} {earlier!r}, not "
                              f"{kind}...), so it would be replaced: give another path, or move it")
    # Not after the measurement: FileNotFoundError's traceback there lost the results.
    if why := unwritable(path.parent):
        raise ConfigError(f"{setting} {path} cannot be written ({why}); give a path in a folder you can write")


def check_script_output(parser, output: str | Path | None, result_key: str, kind: str = "",
                        setting: str = "--output") -> None:
    """For a script under benchmarks/: its usage error (exit status 2) unless ``output`` (None where
    ``setting`` was not given) can take its result, by ``check_output_file``: a file there is replaced
    only when it is the script's own earlier result, as a rerun over it means to. Called before anything
    is measured; until the ninety-first session these scripts replaced whatever lay at their --output, a
    README or another benchmark's result."""
    from .config import ConfigError

    if output is None:
        return
    try:
        check_output_file(output, setting, result_key, kind)
    except ConfigError as error:
        parser.error(str(error))


#: Where a benchmark's result goes without ``--output``, under the working directory.
RESULTS_FOLDER = Path("benchmarks") / "results"


def check_default_output_folder(folder: str | Path, setting: str) -> None:
    """Raise ConfigError unless a result can be written into ``folder``, where it goes without ``setting``:
    checked only for a given ``--output`` before, so a benchmark run where ``benchmarks`` was a file, or
    from a folder it may not write, measured everything and lost it in mkdir's traceback at the end."""
    from .config import ConfigError

    where = f"without {setting} the result goes into {folder}/ under the working directory {Path.cwd()}"
    if blocking := file_in_the_way(folder):
        raise ConfigError(f"{where}, which cannot be made: {blocking} is a file; give {setting} a file path, "
                          f"or run from another folder")
    if why := unwritable(folder):
        raise ConfigError(f"{where}, where nothing can be written ({why}); give {setting} a path in a folder "
                          f"you can write")


def unwritable(folder: str | Path) -> str | None:
    """Why nothing can be written at ``folder`` (or made there, if it does not exist yet), or None.
    Found by writing a file into its nearest existing folder, as the result will be: ``os.access``
    says yes to root on /proc and on a read-only mount."""
    existing = next(part for part in (Path(folder), *Path(folder).absolute().parents) if part.exists())
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".write_test_"):
            return None
    except OSError as error:
        # Not the error's own words, which name the test file made here ('/proc/.write_test_k3j2...'), a path
        # nobody gave (h145's walk, the hundred-and-twenty-sixth session): its reason, and where it was tried.
        # Where it was tried always (r123): "No such file or directory" alone, said of /proc or of a folder that
        # exists, read as the folder missing; and an OSError without words is its class alone.
        reason = error.strerror or str(error)
        return f"no file can be made in {existing}: {error.__class__.__name__}{f': {reason}' if reason else ''}"


def is_json_object_with(path: str | Path, keys) -> bool:
    """Whether ``path`` holds a JSON object with every one of ``keys``: how a command recognises a
    result it wrote earlier, which it may replace (False when unreadable, not UTF-8 or not JSON). A UTF-8
    byte-order mark is read past, as hand_edited.py reads an export's config.json: an export's saved as "UTF-8 with
    BOM" by a hand edit was taken for another program's (save refused to replace it, fit wrote a run beside it)
    until the hundred-and-twenty-second session's review."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return False
    return isinstance(document, dict) and set(keys) <= set(document)
