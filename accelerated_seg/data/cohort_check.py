"""Many cases checked: each in one of ``workers`` threads, the cohort shared among the ranks that check it
together, a case unchanged since it passed recalled from the records (``check_records``) instead of read, and
their findings gathered into one report, in the cases' order, with the warnings said once of the dataset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from accelerated_seg.data.case_check import check_case
from accelerated_seg.data.cases import Case
from accelerated_seg.data.check_records import CheckRecords, PendingRecords
from accelerated_seg.data.check_report import CheckReport
from accelerated_seg.data.dataset_tally import Tally
from accelerated_seg.data.declared_labels import DeclaredLabels
from accelerated_seg.data.fingerprint import case_key, source_fingerprint_or_none
from accelerated_seg.data.grid_agreement import GRID_ATOL_MM
from accelerated_seg.data.io import header_notes_unsaid
from accelerated_seg.dropped_interrupts import interrupts_kept, raise_a_dropped_interrupt

if TYPE_CHECKING:
    from accelerated_seg.regions import Regions


class CheckingRanks(NamedTuple):
    """The processes that check one dataset together, each a share of its cases (``check_cases``).

    ``on_every_rank`` runs a piece of work on every one of them and returns every rank's result, in
    rank order, on every rank (or raises the first error on all: ``accelerated_seg.ranks``). The
    checks themselves know nothing of processes; the training loop builds this from its accelerator.
    """

    index: int
    count: int
    on_every_rank: Callable[[Callable[[], list]], list[list]]


def check_cases(
    cases: Sequence[Case],
    label_values: int | Sequence[int],
    *,
    affine_atol: float = GRID_ATOL_MM,
    max_voxels: int | None = None,
    labels_declared_in: str = "the dataset's labels",
    binarized: bool = False,
    num_channels: int = 1,
    channels_declared_in: str = "the dataset",
    channel_names: Sequence[str] = (),
    ignore_value: int | None = None,
    crop_foreground: bool = False,
    workers: int = 1,
    ranks: CheckingRanks | None = None,
    records: CheckRecords | None = None,
    normalization: str = "zscore",
    regions: Regions | None = None,
    from_files: bool = False,
) -> CheckReport:
    """Open every file of every case and report all problems found.

    Args:
        cases: Cases to check, one at a time.
        label_values: The label values the dataset declares (``Manifest.label_values``), or a
            class count C meaning 0..C-1. Any other value in a label file is an error.
        affine_atol: Largest per-entry difference between affines still treated as the same grid
            (in mm for the translation column); absorbs float rounding from export tools.
        max_voxels: Largest number of voxels one file may hold. The data loader holds each
            volume whole before resampling it, so a larger file risks running out of memory
            mid-run; it is reported from its header without being decompressed. ``None``: no limit.
        labels_declared_in: Where the user declares label values, named in the message about an
            undeclared value.
        binarized: Every non-zero value will be merged into foreground, so any whole value >= 0 is
            allowed, declared or not (``label_values`` then only name the classes).
        num_channels: Image channels the dataset declares (``Manifest.num_channels``). A case that
            lists one image file for several channels must hold them in that file, as the 4D
            (x, y, z, channel) files of the Decathlon's BrainTumour and Prostate tasks do.
        channels_declared_in: What declares those channels (the JSON's name: "datalist.json"), named in the
            message about a file that holds another number of them.
        channel_names: The dataset's names of those channels, in order (``Manifest.channels``): a grid's or units'
            error says each channel file's name beside its index ("image channel 1 (FLAIR)"); its index alone where
            none is given or the name is the one a dataset naming none gives (``cases.is_unnamed_channel``). Only
            errors say them, which are never recorded: no part of the records' key.
        ignore_value: The value of unannotated voxels (an "ignore" label): allowed too, and no class
            whose absence is worth a warning.
        crop_foreground: Preprocessing will crop each case to the box of its image voxels above 0
            (``data.crop_foreground``, as resolved): an image with no such voxel is an error (it was
            cropped to 0 x 0 x 0: a training case crashed the loader mid-run, a validation case scored
            Dice 1), and labelled voxels outside the box, which training never sees, are a warning.
        workers: Threads that check cases side by side (``data.num_workers``). Reading every voxel
            is most of a check, and gzip's decoding and numpy's scans release the GIL: one thread
            took 0.29 s per CT-sized case, about 10 minutes a launch for 2000 (seventy-fifth
            session, benchmarks/check_threads.py). The report is the same, in the cases' order,
            whatever the number.
        ranks: Processes that check the cases together, each every ``count``-th case from its
            ``index`` (in ``workers`` threads), as each rank builds its share of the preprocessed
            cache. Every rank returns the whole report, the same as one process's. ``None``: this
            process checks every case. On the main process alone, a launch's other ranks waited
            while it read every voxel of the cohort (about 10 minutes for 2000 CT cases in one
            thread), as long as NCCL's default timeout.
        records: The findings of the cases that passed these checks before (``check_records``):
            a case whose files are unchanged is not read again, and the first rank's report holds
            the cases that pass now, which ``CheckReport.keep_records`` records. ``None``: every
            case is read, nothing is recorded.
        normalization: ``data.normalization`` as resolved. Under ``zscore``, an image channel
            whose one most extreme voxel holds most of its variance is a warning (``intensity_spread``);
            it also words the advice of the warning about CT under the foreground crop.
        regions: The regions trained (``Manifest.regions``, over label values): a declared value that no
            label holds is then told only where it leaves a region empty, as regions are what is scored.
        from_files: The cases are ``Dataset.from_files``' pairs: a label value's message names that API's
            ``n_classes``, ``ignore_value=`` and ``Dataset.binarize()`` first, where the config's
            ``num_classes``, "ignore" label and ``data.binarize`` came first until the ninety-sixth session.

    Returns:
        A CheckReport with every error and warning (never raises for bad data).
    """
    declared = _declared_labels(label_values, ignore_value, labels_declared_in, binarized, from_files)
    settings = _settings_the_findings_depend_on(declared, binarized, ignore_value, affine_atol, max_voxels,
                                                num_channels, crop_foreground, normalization)
    check_one = _CaseCheck(declared, ignore_value=ignore_value, affine_atol=affine_atol, max_voxels=max_voxels,
                           num_channels=num_channels, channels_declared_in=channels_declared_in,
                           channel_names=tuple(channel_names),
                           crop_foreground=crop_foreground, zscored=normalization == "zscore",
                           records_kept=records is not None,
                           recorded=records.load(settings) if records is not None else {})
    with interrupts_kept():  # a Ctrl-C as nibabel closes a file is not dropped: dropped_interrupts.py
        found = _findings_in_the_cases_order(cases, check_one, workers, ranks)
    report = _one_report(found, declared, ignore_value, normalization, regions)
    if not binarized:  # a case's tally keeps the declared values its label lacks (recalled ones too)
        report.labelled = _classes_labelled(cases, found, declared, ignore_value)
    if records is not None and (ranks is None or ranks.index == 0):
        report.pending_records = _records_to_keep(records, settings, cases, found)
    return report


def _declared_labels(label_values: int | Sequence[int], ignore_value: int | None, labels_declared_in: str,
                     binarized: bool, from_files: bool) -> DeclaredLabels:
    """The label values a label file may hold: those declared (a class count C meaning 0..C-1) and the
    ignore value."""
    values = list(range(label_values)) if isinstance(label_values, int) else sorted(label_values)
    return DeclaredLabels(sorted(values + ([ignore_value] if ignore_value is not None else [])), labels_declared_in,
                          any_foreground=binarized, ignore_value=ignore_value, from_files=from_files)


def _settings_the_findings_depend_on(declared: DeclaredLabels, binarized: bool, ignore_value: int | None,
                                     affine_atol: float, max_voxels: int | None, num_channels: int,
                                     crop_foreground: bool, normalization: str) -> dict:
    """What decides the findings besides the files and the code (check_records' key); not where the
    labels are declared, which only errors name, and errors are never recorded."""
    return {"declared": declared.values, "binarized": binarized,
            "ignore_value": ignore_value, "affine_atol": affine_atol, "max_voxels": max_voxels,
            "num_channels": num_channels, "crop_foreground": crop_foreground,
            "zscore": normalization == "zscore"}


@dataclass(frozen=True)
class _CaseCheck:
    """How one case is checked: called on a case, its findings, recalled from the records where its files
    are those that passed before, read and checked otherwise. Each call has its own report and tally: the
    threads that check cases side by side share no state."""

    declared: DeclaredLabels
    ignore_value: int | None
    affine_atol: float
    max_voxels: int | None
    num_channels: int
    channels_declared_in: str
    channel_names: tuple[str, ...]
    crop_foreground: bool
    zscored: bool
    records_kept: bool  # False: no fingerprint is taken, nothing recalled
    recorded: dict  # the records' findings by case key (``CheckRecords.load``)

    def __call__(self, case: Case) -> _Findings:
        raise_a_dropped_interrupt()  # one a finalizer dropped during the case before, raised before this one
        source = source_fingerprint_or_none(case) if self.records_kept else None  # before the files are read
        known = _Findings.from_record(self.recorded.get(case_key(case)), source) if source is not None else None
        if known is not None:
            return known
        report, tally = CheckReport(), Tally(self.declared, self.ignore_value)
        check_case(case, self.declared, self.affine_atol, self.max_voxels, report, tally, self.num_channels,
                   self.crop_foreground, zscored=self.zscored, channels_declared_in=self.channels_declared_in,
                   channel_names=self.channel_names)
        return _Findings(report, tally, source)


def _findings_in_the_cases_order(cases: Sequence[Case], check_one: _CaseCheck, workers: int,
                                 ranks: CheckingRanks | None) -> list[tuple[int, _Findings]]:
    """(position, findings) of every case, in the cases' order: checked here, or each rank checking its
    share and the shares put back in the cases' order, so that every rank reports as one process would."""
    everything = range(len(cases))
    if ranks is None:
        return _check_share(cases, everything, check_one, workers)
    shares = ranks.on_every_rank(lambda: _check_share(cases, everything[ranks.index::ranks.count], check_one, workers))
    return sorted((outcome for share in shares for outcome in share), key=lambda outcome: outcome[0])


def _check_share(cases: Sequence[Case], positions: Sequence[int], check_one: _CaseCheck,
                 workers: int) -> list[tuple[int, _Findings]]:
    """(position, findings) of the cases at ``positions``, checked in ``workers`` threads."""
    with header_notes_unsaid(), ThreadPoolExecutor(max(1, min(workers, len(positions)))) as pool:
        found = map(check_one, (cases[p] for p in positions)) if workers <= 1 else \
            pool.map(check_one, (cases[p] for p in positions))
        return list(zip(positions, found))


def _one_report(found: list[tuple[int, _Findings]], declared: DeclaredLabels, ignore_value: int | None,
                normalization: str, regions: Regions | None) -> CheckReport:
    """Every case's errors and warnings, in the cases' order, then the warnings said once of the dataset
    (from every case's tally)."""
    report, tally = CheckReport(), Tally(declared, ignore_value)
    for _, findings in found:
        report.errors += findings.report.errors
        report.warnings += findings.report.warnings
        report.recalled += findings.recalled
        tally.add(findings.tally)
    tally.add_warnings(report, normalization, regions)
    return report


def _classes_labelled(cases: Sequence[Case], found: list[tuple[int, _Findings]], declared: DeclaredLabels,
                      ignore_value: int | None) -> dict[str, frozenset[int]]:
    """The foreground classes each labelled case without errors holds, by case id (``CheckReport.labelled``)."""
    foreground = set(declared.values) - {0, ignore_value}
    return {cases[position].id: frozenset(foreground - set(findings.tally.unseen))
            for position, findings in found
            if cases[position].label is not None and not findings.report.errors}


def _records_to_keep(records: CheckRecords, settings: dict, cases: Sequence[Case],
                     found: list[tuple[int, _Findings]]) -> PendingRecords:
    """The records the report keeps (``CheckReport.keep_records``): the findings of the cases that pass, each
    with its files' fingerprint where taken, and the keys of those that fail."""
    return PendingRecords(
        records, settings, {case_key(cases[position]): {"source": findings.source,
                                                        "findings": findings.to_record()}
                            for position, findings in found
                            if findings.source is not None and not findings.report.errors},
        [case_key(cases[position]) for position, findings in found if findings.report.errors])


@dataclass
class _Findings:
    """One case's check: its errors and warnings, what its files hold (for the dataset-wide warnings),
    its files' fingerprint when taken (``None``: a file missing, or no records kept), and whether it
    was recalled from the records rather than read."""

    report: CheckReport
    tally: Tally
    source: str | None
    recalled: bool = False

    def to_record(self) -> dict:
        return {"warnings": self.report.warnings, "tally": self.tally.to_record()}

    @classmethod
    def from_record(cls, entry, source: str) -> _Findings | None:
        """The findings recorded for these very files (``source``), or None: none, of other files, or
        not as this code writes them (the case is read then)."""
        try:
            if entry["source"] != source:
                return None
            findings = entry["findings"]
            return cls(CheckReport(warnings=[str(w) for w in findings["warnings"]]),
                       Tally.from_record(findings["tally"]), source, recalled=True)
        except (KeyError, TypeError, ValueError):
            return None
