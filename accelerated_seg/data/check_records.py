"""Which cases passed the pre-flight checks, so that the next launch need not read them again.

Reading every voxel is most of a check (0.29 s per CT-sized case in one thread,
benchmarks/results/check_threads_2cpu.json), and every launch checked every case again: each resume
of a 2000-case cohort after a preemption waited minutes for the answer it had already had. A case
whose files are unchanged (``source_fingerprint``: path, size, times, inode, which the preprocessed
cache trusts too), checked with the same settings by the same checking code, has its findings
recalled (its warnings and what its files hold, for the dataset-wide warnings) instead of being
read. A case with an error is never recorded: the run stops on it anyway, and it is read again once
fixed.

One JSON file per dataset and check settings (``<data.cache_dir>/checks/<key>.json``), written whole
by the main process once nothing is left that refuses the run (``CheckReport.keep_records``): a run
refused after its checks writes nothing there. It holds the records of one checking code
(``CHECKING_CODE``) and nibabel and numpy version; others start it anew. A record that cannot be read
or written is no error: the cases are read as before. ``accelerated-seg check`` keeps no records and
always reads everything.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..files import replace_atomically

#: The files whose code decides what a check finds: a change to any is a change of the checks.
CHECKING_CODE = ("checks.py", "intensity_spread.py", "io.py", "formats/paths.py")


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
    file per set of check settings (the caller's), holding the records of the checking code and
    libraries that wrote it, which other code or libraries start anew."""

    def __init__(self, folder: Path, dataset_root: Path | None):
        self.folder = Path(folder)
        self.dataset_root = Path(dataset_root).resolve() if dataset_root is not None else None  # as the cache

    def path(self, settings: dict) -> Path:
        # "cases by files": the records of before were by case id, which no case is looked up by now
        key = json.dumps([str(self.dataset_root), settings, "cases by files"], sort_keys=True, default=str).encode()
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
        written = json.dumps({"checking": _checking(), "cases": records})
        try:
            replace_atomically(self.path(settings), lambda temporary: temporary.write_text(written))
        except OSError:  # a read-only cache: the checks read every case at each launch, as before
            pass


@dataclass
class PendingRecords:
    """What one check found, to be recorded once the run goes on (``save``)."""

    records: CheckRecords
    settings: dict
    passed: dict[str, dict]
    failed: list[str]

    def save(self) -> None:
        self.records.save(self.settings, self.passed, self.failed)
