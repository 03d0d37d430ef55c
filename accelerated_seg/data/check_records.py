"""Which cases passed the pre-flight checks, so that the next launch need not read them again.

Reading every voxel is most of a check (0.29 s per CT-sized case in one thread,
benchmarks/results/check_threads_2cpu.json), and every launch checked every case again: each resume
of a 2000-case cohort after a preemption waited minutes for the answer it had already had. A case
whose files are unchanged (``source_fingerprint``: path, size, times, inode, which the preprocessed
cache trusts too), checked with the same settings by the same checking code, has its findings
recalled (its warnings and what its files hold, for the dataset-wide warnings) instead of being
read. A case with an error is never recorded: the run stops on it anyway, and it is read again once
fixed.

One JSON file per dataset, check settings and checking code (``CHECKING_CODE``, with the nibabel and
numpy versions: ``<data.cache_dir>/checks/<key>.json``), written whole by the main process once
nothing is left that refuses the run (``CheckReport.keep_records``): a run refused after its checks
writes nothing there. Two installs of other checking code sharing a cache (an older version kept for
a running experiment) each keep their own file; one file for both had each launch of one start anew
over the other's records, and read every case again. A record that cannot be read or written is no
error: the cases are read as before. ``accelerated-seg check`` keeps no records and always reads
everything.

Record files of another checking code (or nibabel, numpy) are of no use to this install, and every
upgrade left its own behind for good, each as large as its cohort (274 bytes a case). A run's
save removes those nothing has written for a week (``UNUSED_KEPT_S``), and ``accelerated-seg cache
--prune`` without a dataset removes them at once (``remove_unusable``). Those of this code and other
settings stay: a run of the same install with those settings may come again, or be running now.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from ..files import remove_stale_temporaries, replace_atomically

#: The files whose code decides what a check finds: a change to any is a change of the checks (checks.py's
#: modules of one idea each, and what they read the files with).
CHECKING_CODE = ("checks.py", "cohort_check.py", "case_check.py", "check_report.py", "volume_opening.py",
                 "image_value_checks.py", "label_value_checks.py", "grid_agreement.py", "dataset_tally.py",
                 "declared_labels.py", "foreground_box.py", "voxel_slabs.py", "manifest_named.py",
                 "intensity_spread.py", "io.py", "formats/paths.py", "header_units.py", "case_units.py",
                 "case_readings.py")

#: The records' folder in ``data.cache_dir``.
FOLDER = "checks"

#: How long a run's save keeps a record file of another checking code (or nibabel, numpy) after it was
#: last written. Such a file is useless to this install, but it may be another install's, sharing the
#: cache and still launched (an older version kept for a running experiment): each of its launches
#: rewrites its file, so one launched at least weekly keeps it. Removed at once, two installs taking
#: turns would remove each other's records at every launch, and each launch read every case again
#: (minutes for 2000 cases). Losing a record file only ever costs that re-read, never a wrong finding,
#: so the week weighs disk against re-reads, not safety.
UNUSED_KEPT_S = 7 * 24 * 3600.0

_RECORD_NAME = re.compile(r"^[0-9a-f]{16}\.json$")  # CheckRecords.path's; nothing else in the folder is touched
_STAMP = re.compile(rb'^\{"checking": "([0-9a-f]{40})"')  # as save writes it, first


@functools.cache
def _checking() -> str | None:
    """What decides a check's findings besides the files and the settings: our checking code, and
    the nibabel (header repairs, qform/sform) and numpy that read the files for it. None where the
    code cannot be read (a package installed as compiled files alone, or from a zip): then no records
    are kept, since nothing would tell another code's from this one's."""
    import nibabel
    import numpy

    try:
        code = b"".join((Path(__file__).parent / name).read_bytes() for name in CHECKING_CODE)
    except OSError:  # training without its sources stopped at the records (seventy-sixth session's probe)
        return None
    return hashlib.sha1(code + f"|nibabel {nibabel.__version__}|numpy {numpy.__version__}".encode()).hexdigest()


class CheckRecords:
    """The recorded findings of one dataset's cases that passed, by case (``fingerprint.case_key``: its
    id alone named two cases of pairs in one folder), each with its files' fingerprint: one record
    file per set of check settings (the caller's) and checking code and libraries, which others
    neither read nor write."""

    def __init__(self, folder: Path, dataset_root: Path | None):
        self.folder = Path(folder)
        self.dataset_root = Path(dataset_root).resolve() if dataset_root is not None else None  # as the cache

    def path(self, settings: dict) -> Path:
        # "cases by files": the records of before were by case id, which no case is looked up by now.
        # The checking stamp too: two installs sharing the cache overwrote each other's file at every launch.
        key = json.dumps([str(self.dataset_root), settings, "cases by files", _checking()], sort_keys=True,
                         default=str).encode()
        return self.folder / f"{hashlib.sha1(key).hexdigest()[:16]}.json"

    def load(self, settings: dict) -> dict[str, dict]:
        """``{case key: {"source": fingerprint, "findings": ...}}`` as this checking code and these
        libraries recorded them; empty if none can be read (or other code wrote them)."""
        try:
            written = json.loads(self.path(settings).read_text())
        except (OSError, ValueError):  # none yet, unreadable, or cut short by a crash: read the cases
            return {}
        if not isinstance(written, dict) or _checking() is None or written.get("checking") != _checking():
            return {}
        cases = written.get("cases")
        return cases if isinstance(cases, dict) else {}

    def save(self, settings: dict, passed: dict[str, dict], failed: list[str]) -> None:
        """Record ``passed`` over what was recorded before (other cases of the dataset stay), and forget
        ``failed``. A concurrent run's save may win; its cases are then read again next time, no more."""
        if _checking() is None:
            return
        records = {**self.load(settings), **passed}
        for case in failed:
            records.pop(case, None)
        # the stamp first: a prune reads it from the file's first bytes (_stamp), not the whole file
        written = json.dumps({"checking": _checking(), "cases": records})
        try:
            replace_atomically(self.path(settings), lambda temporary: temporary.write_text(written))
        except OSError:  # a read-only cache: the checks read every case at each launch, as before
            return
        remove_unusable(self.folder, UNUSED_KEPT_S)
        with contextlib.suppress(OSError):  # what a save killed midway left, hidden, as large as a record
            remove_stale_temporaries(self.folder)


@dataclass(frozen=True)
class RecordFile:
    """One record file in the records' folder, as ``accelerated-seg cache`` lists it."""

    path: Path
    bytes: int
    modified: float  # its last write (time.time's clock)
    # written by this checking code with these nibabel and numpy; None: this install cannot tell (installed
    # without its sources, it has no stamp of its own), so the file may be another install's, which uses it
    usable: bool | None


def record_files(folder: Path) -> list[RecordFile]:
    """The record files in ``folder`` (named as ``CheckRecords.path`` names them), by name; those that
    vanish while listed, or this user cannot read, are left out."""
    try:
        paths = sorted(path for path in Path(folder).iterdir() if _RECORD_NAME.match(path.name))
    except OSError:  # no records yet, or another user's folder
        return []
    found = []
    for path in paths:
        try:
            stat = path.stat()
            found.append(RecordFile(path, stat.st_size, stat.st_mtime,
                                    None if _checking() is None else _stamp(path) == _checking()))
        except OSError:
            continue
    return found


def remove_unusable(folder: Path, untouched_for_s: float = 0.0,
                    refused: list[tuple[RecordFile, OSError]] | None = None) -> list[RecordFile]:
    """Remove the record files in ``folder`` that this install cannot use (another checking code, nibabel
    or numpy wrote them, or none: the first records carried no stamp) and that nothing has written for
    ``untouched_for_s`` (0: whenever written, a clock ahead on a shared filesystem's server included);
    returns those removed. A file another install rewrites between the look and the removal is lost
    with it: that install reads its cases once more. An install without its sources removes none: it
    cannot tell another code's file from one that an install with the sources uses. ``refused``, where
    given, gets each file that stays for an error other than its being gone (a read-only cache, another
    user's folder), which a run's save passes over and ``accelerated-seg cache --prune`` says."""
    removed = []
    for record in record_files(folder):
        if record.usable is not False or (untouched_for_s > 0 and time.time() - record.modified < untouched_for_s):
            continue
        try:
            record.path.unlink()
        except FileNotFoundError:  # gone meanwhile (a concurrent prune)
            continue
        except OSError as error:  # another user's in a shared cache, a read-only mount
            if refused is not None:
                refused.append((record, error))
            continue
        removed.append(record)
    return removed


def _stamp(path: Path) -> str | None:
    """The checking stamp a record file begins with; None where it begins otherwise (records of before
    the stamp, a file cut short). Its first bytes alone: a 2000-case cohort's file is about 550 KB."""
    with open(path, "rb") as handle:
        match = _STAMP.match(handle.read(64))
    return match[1].decode() if match else None


@dataclass
class PendingRecords:
    """What one check found, to be recorded once the run goes on (``save``)."""

    records: CheckRecords
    settings: dict
    passed: dict[str, dict]
    failed: list[str]

    def save(self) -> None:
        self.records.save(self.settings, self.passed, self.failed)
