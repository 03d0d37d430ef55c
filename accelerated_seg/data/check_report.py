"""A check's report: its errors and warnings, the one error they raise, and the lines they are printed in
(one problem of many files said once).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from accelerated_seg.data.check_records import PendingRecords
from accelerated_seg.data.errors import DataError

_MAX_FILES_SHOWN = 10  # in a warning that gathers many files


@dataclass
class CheckReport:
    """Problems found by a check.

    Args:
        errors: Problems that would break or silently spoil training; each names the
            file, what is wrong and what to do.
        warnings: Suspicious but usable findings (e.g. a label with no foreground), each listed once.
        root: Dataset folder, quoted in the summary line of :meth:`raise_if_errors`.
        checked: What that line names instead, where the user named no folder (``check_manifest``).
        recalled: Cases not read again: unchanged since they passed the same checks
            (``check_records``); their findings are in the report as if they had been read.
        pending_records: The cases that passed this check, for the records (``keep_records``);
            None where no records are kept (and on every rank but the first).
        labelled: Case id -> the declared foreground values its label file holds, for each case
            that passed with a label (``class_presence.stored_class_presence_warnings``); None where
            the labels are merged (binarized).
    """

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    root: Path | None = None
    checked: str | None = None
    recalled: int = 0
    pending_records: PendingRecords | None = field(default=None, repr=False, compare=False)
    labelled: dict[str, frozenset[int]] | None = field(default=None, repr=False, compare=False)

    def keep_records(self) -> None:
        """Record the cases that passed, for the next launch (``check_records``): called once nothing
        is left that refuses the run, so that a refused run writes nothing into the cache folder."""
        if self.pending_records is not None:
            self.pending_records.save()
            self.pending_records = None

    def raise_if_errors(self, before: str = "training") -> None:
        """Raise one DataError listing every error, one per line, so all can be fixed in one pass.
        ``before``: what the errors stop ("training", "evaluation")."""
        if not self.errors:
            return
        where = self.checked or (f"the dataset {self.root}" if self.root is not None else "the dataset")
        lines = [f"{len(self.errors)} problem(s) in {where}; fix them before {before}:"]
        lines += [f"  - {error}" for error in self.error_lines()]
        raise DataError("\n".join(lines))

    def error_lines(self) -> list[str]:
        """The errors to print: one problem found in several files as one line (``_grouped``)."""
        return _grouped(self.errors)


# "<case> (<role>): <file>: <what is wrong and what to do>", as the checks write their errors
_ERROR_PARTS = re.compile(r"^(?P<case>.+? \([^()]*\)): (?P<file>.+?): (?P<problem>.*)$", re.DOTALL)
_GROUPED_FROM = 4  # this many files with one problem make one line


def _grouped(errors: list[str]) -> list[str]:
    """The errors, those that say the same of several files as one line naming the first files and
    how many more. A cohort with one problem throughout printed it once per file: 1000 lines of the
    same advice, with its one summary line at the top (seventy-fifth session's probe)."""
    files_with: dict[str, list[str]] = {}
    for error in errors:
        if parts := _ERROR_PARTS.match(error):
            files_with.setdefault(parts["problem"], []).append(parts["file"])
    lines, said = [], set()
    for error in errors:
        parts = _ERROR_PARTS.match(error)
        if parts is None or len(files_with[parts["problem"]]) < _GROUPED_FROM:
            lines.append(error)
        elif parts["problem"] not in said:
            said.add(parts["problem"])
            files = files_with[parts["problem"]]
            lines.append(f"{len(files)} files: {listed(files)}: {parts['problem']}")
    return lines


def listed(paths: list) -> str:
    """The first ``_MAX_FILES_SHOWN`` paths (or descriptions of files), and how many more."""
    more = len(paths) - _MAX_FILES_SHOWN
    return ", ".join(str(path) for path in paths[:_MAX_FILES_SHOWN]) + (f" (and {more} more)" if more > 0 else "")
