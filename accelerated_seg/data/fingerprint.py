"""What identifies a case's input files without reading them: the preprocessed cache (is a case's
arrays still current?) and the records of the pre-flight checks (did these files pass?) both ask."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..files import stored_bytes
from .manifest import Case


def case_key(case: Case) -> str:
    """The case's name in the cache and in the checks' records: its id and which files it is made of.

    The id alone named two cases: Datasets of pairs whose files share a folder (their manifest's root)
    and whose labels are the same files, with other images (T1 against T2 over the same labels), gave
    each case one id in one cache folder, so each run preprocessed (and checked) the other's cases
    again, saying their files had changed (eighty-fifth session). The paths only, not their times:
    the source fingerprint says whether the arrays of that case are current. Resolved, as the cache's
    folder and the arrays' names are: by a symlinked dataset folder (``$WORK`` -> ``/lustre``) the same
    files were other cases, built and checked again (the eighty-sixth session's review); a path that
    cannot be resolved (a NUL in it) is taken as written, and the checks name it."""
    paths = "\n".join(_resolved(path) for path in (*case.images, case.label) if path is not None)
    return f"{case.id}.{hashlib.sha1(stored_bytes(paths)).hexdigest()[:8]}"


def _resolved(path) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


def source_fingerprint(case: Case) -> str:
    """Identifies the input files' content cheaply, without reading them: for each, its path, size,
    modification time, inode and status-change time.

    Size and modification time alone missed files swapped or rewritten under the same size with the
    old time kept (a dataset extracted from a tar, whose files all carry the archive's time, then two
    label files swapped by ``mv``; ``touch -d``; ``cp -p``): training went on with the stale arrays
    (seventieth session). A swap puts another inode at the path, and any write or rename sets the
    status-change time, which no tool sets back. A ``chmod`` sets it too: that case is built again.
    """
    return files_fingerprint([path for path in (*case.images, case.label) if path is not None])


def source_fingerprint_or_none(case: Case) -> str | None:
    """``source_fingerprint``, or None where a file is missing or unreadable or its path holds a NUL:
    the check names such a file, and the cache has no record of before that could be its."""
    try:
        return source_fingerprint(case)
    except (OSError, ValueError):
        return None


def files_fingerprint(paths, status_change: bool = True) -> str:
    """``source_fingerprint`` of any files; ``status_change`` False leaves the status-change time out,
    which a ``chmod`` or a hard link (a backup's ``cp -al``) moves too. Raises OSError where one is missing."""
    parts = []
    for path in paths:
        stat = Path(path).stat()
        changed = f"|{stat.st_ctime_ns}" if status_change else ""
        parts.append(f"{Path(path).resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{stat.st_ino}{changed}")
    return hashlib.sha1(stored_bytes("\n".join(parts))).hexdigest()[:16]
