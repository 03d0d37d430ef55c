"""Pre-flight validation: find every problem in the dataset before the first training step.

A bad file found by a data-loader worker mid-run costs the run and names one
problem at a time; here every case is opened once, up front, and all problems
are reported together, each naming the file, what is wrong and what to do.
Cases are processed one at a time and voxels are scanned in slabs, so memory
stays around one decompressed volume however large the dataset is; a volume
over the memory budget is refused from its header, before it is decompressed.

What is checked, per case: every file exists and decompresses to the end (so
truncation and gzip CRC errors surface), is a 3D NIfTI volume within the voxel
budget, has finite intensities (images) or declared whole-number values (labels),
and shares one voxel grid (shape, orientation, spacing, affine) with the case's
other files; where preprocessing will crop to the foreground, an image must hold a
voxel above 0. A label with only background is a warning, as are a declared class
that no label contains and a file whose header gives no orientation (qform and
sform codes 0) or two voxel sizes (sform and pixdim), an image of a single slice,
labelled voxels outside the box the foreground crop keeps, and CT in Hounsfield
units that the foreground crop would cut down to the voxels above 0 HU.
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import nibabel as nib
import numpy as np

from accelerated_seg.data.all_nan import all_nan_said
from accelerated_seg.data.channel_schemes import schemes_not_followed
from accelerated_seg.data.check_records import CheckRecords, PendingRecords
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.fingerprint import case_key, source_fingerprint
from accelerated_seg.data.formats.nnunet import undeclared_channel_files
from accelerated_seg.data.formats.paths import is_gzipped, natural_key, nifti_stem
from accelerated_seg.data.intensity_spread import IntensitySpread, cluster_said, extreme_clusters, squeeze_said
from accelerated_seg.data.io import (PLACEMENT_CONFLICT_FIX, VOXEL_SIZE_CONFLICT_FIX, header_error,
                                     nifti_without_its_extension, placement_conflict, read_nifti, voxel_size_conflict)
from accelerated_seg.data.manifest import Case, Manifest, with_regions
from accelerated_seg.data.preprocess_settings import resolved_crop_foreground, resolved_normalization

if TYPE_CHECKING:
    from accelerated_seg.config import DataConfig
    from accelerated_seg.regions import Regions

_VOXELS_PER_SLAB = 16 * 1024 * 1024  # bounds the temporary arrays of one scan step
_MAX_VALUES_SHOWN = 8  # enough to recognise the mistake without flooding the message
_MAX_FILES_SHOWN = 10  # in a warning that gathers many files
# Air is about -1000 HU in CT; no other modality stores values this low unless normalised so (then
# seldom below -10). An image reaching it is CT, which the zscore crop cuts down to the voxels above 0.
_HOUNSFIELD_AIR = -500.0
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_RESAMPLE_HINT = "resample the label onto the image grid (nearest-neighbour interpolation)"
_CHANNEL_HINT = "resample the channels onto one grid"
#: Largest per-entry difference (mm in the translation column) between two affines still one grid: a header's
#: float rounding. The checks' default, and what predict allows between the channels of a case.
GRID_ATOL_MM = 1e-3
# Grids that place every voxel within this share of a voxel of each other differ by a header's rounding
_ROUNDING_VOXELS = 0.05
# Where each source format lets the user declare its label values, for the undeclared-value message; an MSD's
# and an nnU-Net's JSON, by its name (_labels_declared_in).
_LABELS_DECLARED_IN = {
    "datalist": "data.labels (check: --labels; load_cases: labels=), as the datalist declares none",
    "csv": "data.labels (check: --labels; load_csv: labels=; a CSV declares none: the default is "
           "0 = background, 1 = foreground)",
    "pairs": "the labels argument (the default is 0 = background, 1 = foreground)",
    # the estimator's pairs: from_files takes the classes as a count, not as a labels argument
    "from_files": "Dataset.from_files' n_classes (the classes are the values 0..n_classes-1), or its label_values "
                  "(the label files' own values of the classes, e.g. [0, 1, 2, 4])",
}


class CheckingRanks(NamedTuple):
    """The processes that check one dataset together, each a share of its cases (``check_cases``).

    ``on_every_rank`` runs a piece of work on every one of them and returns every rank's result, in
    rank order, on every rank (or raises the first error on all: ``accelerated_seg.ranks``). The
    checks themselves know nothing of processes; the training loop builds this from its accelerator.
    """

    index: int
    count: int
    on_every_rank: Callable[[Callable[[], list]], list[list]]


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


# "<case> (<role>): <file>: <what is wrong and what to do>", as the checks below write their errors
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
            lines.append(f"{len(files)} files: {_listed(files)}: {parts['problem']}")
    return lines


def _json_name(manifest: Manifest) -> str:
    """The name of the JSON that declares the manifest's labels and channels (a MONAI datalist.json, an nnU-Net
    Dataset001.json), which the checks' messages give: "dataset.json" of every file until the ninety-first
    session, and still of a manifest that records no file (built in Python)."""
    return manifest.source_file.name if manifest.source_file is not None else "dataset.json"


def _channels_declared_in(manifest: Manifest) -> str:
    """What declares the manifest's channels: its JSON, by its name; a CSV's columns and the pairs' files, one
    channel each, are "the dataset"."""
    return _json_name(manifest) if manifest.source_format in ("msd", "datalist", "nnunet") else "the dataset"


def _labels_declared_in(manifest: Manifest) -> str:
    """Where the user of the manifest's source format declares its label values, for the undeclared-value
    message: an MSD's or an nnU-Net's JSON by its name, else as ``_LABELS_DECLARED_IN`` says."""
    if manifest.source_format in ("msd", "nnunet"):
        return f"{_json_name(manifest)} 'labels'"
    return _LABELS_DECLARED_IN.get(manifest.source_format, "the dataset's labels")


def check_manifest(manifest: Manifest, *, cases: Sequence[Case] | None = None, max_voxels: int | None = None,
                   affine_atol: float = GRID_ATOL_MM, crop_foreground: bool = False, workers: int = 1,
                   ranks: CheckingRanks | None = None, records_folder: Path | None = None,
                   normalization: str = "zscore") -> CheckReport:
    """Check every training and validation case of ``manifest``, or only ``cases`` of it.

    Args:
        manifest: The dataset to check; ``manifest.label_values`` are the allowed label values.
        cases: The cases to check, checked against the manifest's declarations (evaluation checks
            the validation cases only); default: every training and validation case.
        max_voxels: Largest volume (voxels per file) the training machine can hold; ``None``
            checks no budget.
        affine_atol: See :func:`check_cases`.
        crop_foreground: See :func:`check_cases`.
        workers: See :func:`check_cases`.
        ranks: See :func:`check_cases`.
        normalization: See :func:`check_cases`.
        records_folder: Folder of the records of the cases that passed (``check_records``);
            ``None``: every case is read.

    Returns:
        A CheckReport naming the dataset root.
    """
    checked = _in_natural_order([*manifest.training, *manifest.validation]) if cases is None else cases
    report = check_cases(
        checked, manifest.label_values,
        affine_atol=affine_atol, max_voxels=max_voxels, labels_declared_in=_labels_declared_in(manifest),
        channels_declared_in=_channels_declared_in(manifest),
        binarized=manifest.binarized, num_channels=manifest.num_channels, ignore_value=manifest.ignore_value,
        from_files=manifest.source_format == "from_files", crop_foreground=crop_foreground, workers=workers, ranks=ranks,
        records=CheckRecords(records_folder, manifest.root) if records_folder is not None else None,
        normalization=normalization, regions=manifest.regions,
    )
    if report.errors and (read_from_elsewhere := _paths_written_from_the_working_folder(manifest, checked)):
        report.errors.insert(0, read_from_elsewhere)  # the cause of the "file not found" lines that follow
    if cases is None and (undeclared := undeclared_channel_files(manifest)):
        declared = ", ".join(f"{index:04d} ({name})" for index, name in manifest.channels.items())
        report.warnings.append(
            f"{len(undeclared)} file(s) in imagesTr are named as channels that {_json_name(manifest)}'s channel_names "
            f"does not declare, so training does not read them: {_listed(undeclared)}. It trains on channel(s) "
            f"{declared}: declare the others in channel_names to train on them too (predict is then given them "
            f"as well), or move them out of imagesTr if they are not meant to be there"
        )
    report.root, report.checked = manifest.root, _pairs_checked(manifest, checked)
    return report


def _in_natural_order(cases: list[Case]) -> list[Case]:
    """The cases by id as a person numbers them, which the report follows: every error line and every list of
    files. Checked as the split left them, training cases first and held-out ones after, a CSV's undeclared label
    values were listed in "case_002, case_004, case_005, case_003" (until the ninety-third session)."""
    return sorted(cases, key=lambda case: natural_key(case.id))


def _pairs_checked(manifest: Manifest, cases: Sequence[Case]) -> str | None:
    """The cases checked, named as the estimator's user gave them (``Dataset.from_files``' pairs, or its
    validation_pairs, which evaluate checks alone); None for a dataset read from a folder or a file. Their
    errors were "in the dataset <the files' common parent folder>", a folder never named, until the
    ninety-third session; each error line names the case's file as it was given."""
    if manifest.source_format != "from_files":
        return None
    # the split the user gave (from_pairs), told by SplitOrigin: its words were matched until the 93rd session
    listed = manifest.split_origin.by == "validation_pairs"
    if not {case.id for case in cases} <= {case.id for case in manifest.validation}:
        return f"the pairs{' and validation_pairs' if listed else ''} given to Dataset.from_files"
    validation = "validation_pairs" if listed else "validation cases held out of the pairs"
    return f"the {validation} given to Dataset.from_files"


def _paths_written_from_the_working_folder(manifest: Manifest, cases: Sequence[Case]) -> str | None:
    """What to say of a CSV or dataset.json whose paths name files from the working folder, not from its own
    folder, which they are read from: each file was "not found", and the folder under the CSV's that its
    paths named "does not exist", and nothing said why (ninety-second session's probe). None where no such file
    is there; pairs are read from the working folder already."""
    if manifest.source_file is None:
        return None
    listed = [path for case in cases for path in (*case.images, case.label) if path is not None]
    there = [path.relative_to(manifest.root) for path in listed if path.is_relative_to(manifest.root)
             and not path.exists() and (Path.cwd() / path.relative_to(manifest.root)).is_file()]
    if not there:
        return None
    return (f"{manifest.source_file}: {len(there)} file(s) it lists are not found from its folder, {manifest.root}, "
            f"which its paths are read from, but are there from the working folder, {Path.cwd()} "
            f"({there[0]}{', ...' if len(there) > 1 else ''}): write its paths from its own folder (or absolute)")


def check_as_configured(data: DataConfig, manifest: Manifest, ranks: CheckingRanks | None = None,
                        records_folder: Path | None = None) -> tuple[Manifest, CheckReport]:
    """The pre-flight checks as training runs them under the ``data`` settings: over the manifest with
    ``data.regions`` applied (returned too), within ``data.max_voxels``, with the foreground crop
    as the settings resolve it, in ``data.num_workers`` threads (as the cache is built), each of
    ``ranks`` a share of the cases (see :func:`check_cases`), recalling the cases that passed before
    from ``records_folder`` (training's; ``accelerated-seg check`` reads every case). Training and
    ``accelerated-seg check`` both come here.

    Raises:
        DataError: a region names a value the dataset does not declare (``with_regions``).
    """
    manifest = with_regions(data, manifest)
    normalization = resolved_normalization(data.normalization, manifest)
    crop = resolved_crop_foreground(data.crop_foreground, normalization)
    report = check_manifest(manifest, max_voxels=data.max_voxels, crop_foreground=crop, workers=data.num_workers,
                            ranks=ranks, records_folder=records_folder, normalization=normalization)
    if manifest.source_format in ("nnunet", "msd") and (schemes := schemes_not_followed(
            manifest.channels, normalization, _json_name(manifest), chosen=data.normalization != "auto")):
        report.warnings.append(schemes)
    return manifest, report


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
    values = list(range(label_values)) if isinstance(label_values, int) else sorted(label_values)
    declared = _Declared(sorted(values + ([ignore_value] if ignore_value is not None else [])), labels_declared_in,
                         any_foreground=binarized, ignore_value=ignore_value, from_files=from_files)

    # what decides the findings besides the files and the code (check_records' key); not where the
    # labels are declared, which only errors name, and errors are never recorded
    settings = {"declared": declared.values, "binarized": binarized,
                "ignore_value": ignore_value, "affine_atol": affine_atol, "max_voxels": max_voxels,
                "num_channels": num_channels, "crop_foreground": crop_foreground,
                "zscore": normalization == "zscore"}
    recorded = records.load(settings) if records is not None else {}

    def check_one(case: Case) -> _Findings:  # each its own report and tally: no shared state
        source = _fingerprint_or_none(case) if records is not None else None  # before the files are read
        if source is not None and (known := _Findings.from_record(recorded.get(case_key(case)), source)) is not None:
            return known
        report, tally = CheckReport(), _Tally(declared, ignore_value)
        _check_case(case, declared, affine_atol, max_voxels, report, tally, num_channels, crop_foreground,
                    zscored=normalization == "zscore", channels_declared_in=channels_declared_in)
        return _Findings(report, tally, source)

    def check_share(positions: Sequence[int]) -> list[tuple[int, _Findings]]:
        with _header_repairs_unsaid(), ThreadPoolExecutor(max(1, min(workers, len(positions)))) as pool:
            found = map(check_one, (cases[p] for p in positions)) if workers <= 1 else \
                pool.map(check_one, (cases[p] for p in positions))
            return list(zip(positions, found))

    everything = range(len(cases))
    if ranks is None:
        found = check_share(everything)
    else:  # back in the cases' order, so that every rank reports as one process would
        shares = ranks.on_every_rank(lambda: check_share(everything[ranks.index::ranks.count]))
        found = sorted((outcome for share in shares for outcome in share), key=lambda outcome: outcome[0])
    report, tally = CheckReport(), _Tally(declared, ignore_value)
    for _, findings in found:
        report.errors += findings.report.errors
        report.warnings += findings.report.warnings
        report.recalled += findings.recalled
        tally.add(findings.tally)
    tally.add_warnings(report, normalization, regions)
    if not binarized:  # a case's tally keeps the declared values its label lacks (recalled ones too)
        foreground = set(declared.values) - {0, ignore_value}
        report.labelled = {cases[position].id: frozenset(foreground - set(findings.tally.unseen))
                           for position, findings in found
                           if cases[position].label is not None and not findings.report.errors}
    if records is not None and (ranks is None or ranks.index == 0):
        report.pending_records = PendingRecords(
            records, settings, {case_key(cases[position]): {"source": findings.source,
                                                            "findings": findings.to_record()}
                                for position, findings in found
                                if findings.source is not None and not findings.report.errors},
            [case_key(cases[position]) for position, findings in found if findings.report.errors])
    return report


@dataclass
class _Findings:
    """One case's check: its errors and warnings, what its files hold (for the dataset-wide warnings),
    its files' fingerprint when taken (``None``: a file missing, or no records kept), and whether it
    was recalled from the records rather than read."""

    report: CheckReport
    tally: _Tally
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
                       _Tally.from_record(findings["tally"]), source, recalled=True)
        except (KeyError, TypeError, ValueError):
            return None


def _fingerprint_or_none(case: Case) -> str | None:
    try:
        return source_fingerprint(case)
    except (OSError, ValueError):  # a file missing or unreadable, a path with a NUL: the check names it
        return None


@contextlib.contextmanager
def _header_repairs_unsaid():
    """nibabel's own notes on the headers it repairs or gives up on ("sizeof_hdr should be 348 ...",
    "pixdim[1,2,3] should be non-zero ...") printed above the check's report on the same files, which
    says what is wrong and what to do."""
    logger = nib.imageglobals.logger
    level = logger.level
    logger.setLevel(logging.ERROR + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


class Volume(NamedTuple):
    """An opened file and how messages should call it ("image", "image channel 1", "label")."""

    role: str
    path: Path
    image: nib.Nifti1Image


class _Declared:
    """The allowed label values, with a fast path for the usual 0..C-1."""

    def __init__(self, values: list[int], declared_in: str, any_foreground: bool = False,
                 ignore_value: int | None = None, from_files: bool = False):
        self.values = values
        self.from_files = from_files  # said in Dataset.from_files' words (check_cases)
        self.ignore_value = ignore_value  # among the values, but no class
        self.declared_in = declared_in
        self.any_foreground = any_foreground  # binarized: every value > 0 becomes foreground
        self.contiguous = values == list(range(len(values)))
        self.array = np.asarray(values)

    def undeclared(self, slab: np.ndarray) -> np.ndarray:
        """Boolean mask of the voxels whose value is not declared."""
        if self.any_foreground:
            return slab < 0
        if self.contiguous:
            return (slab < 0) | (slab >= len(self.values))
        return ~np.isin(slab, self.array)

    def describe(self) -> str:
        if self.any_foreground:
            return "any whole value >= 0, binarized: 0 is background, the rest foreground"
        # The ignore value is allowed in the files but is no class: "num_classes=5" for 4 misled
        ignore = "" if self.ignore_value is None else f", {self.ignore_value} = ignore (unannotated)"
        if self.contiguous:
            classes = "n_classes" if self.from_files else "num_classes"
            return f"0..{len(self.values) - 1}, {classes}={len(self.values) - bool(ignore)}{ignore}"
        return f"{self.values}{ignore}"


class _Tally:
    """What the files of the whole dataset hold, for warnings that are listed once, not per case."""

    def __init__(self, declared: _Declared, ignore_value: int | None = None):
        # Binarized, the declared values are merged, so one never seen is no unlearnable class.
        self.unseen = [] if declared.any_foreground else [value for value in declared.values
                                                           if value not in (0, ignore_value)]
        self.background_only: list[Path] = []
        self.without_orientation: list[Path] = []
        self.two_voxel_sizes: list[str] = []  # "path (sform ... mm, pixdim ... mm)"
        self.two_placements: list[str] = []  # "path (the qform puts voxel (0, 0, 0) 10 mm from ...)"
        self.single_slices: list[str] = []  # "path (shape)"
        self.cropped_away: list[str] = []  # "case: lost of total labelled voxels"
        self.hounsfield: list[str] = []  # "path (minimum)": CT that the foreground crop would cut down
        self.scanned = 0
        # Declared values that voxels an error refused may stand for: 1 behind 0.9999999, those a label stores
        # under its header's scaling. A class whose every voxel was refused is no class the labels lack:
        # "[1] appear in none of the 2 label file(s)" said again, and wrongly, what the error said (h15's probe).
        self.refused: set = set()

    _LISTS = ("background_only", "without_orientation", "two_voxel_sizes", "two_placements", "single_slices",
              "cropped_away", "hounsfield")
    _PATHS = ("background_only", "without_orientation")  # of Path; the other lists hold descriptions

    def add(self, other: "_Tally") -> None:
        """Take in what another tally of other cases saw (``check_cases``' threads and ranks)."""
        self.unseen = [value for value in self.unseen if value in other.unseen]
        for name in self._LISTS:
            getattr(self, name).extend(getattr(other, name))
        self.scanned += other.scanned
        self.refused |= other.refused

    def to_record(self) -> dict:
        """As JSON holds it (``check_records``)."""
        return {"unseen": [int(value) for value in self.unseen], "scanned": self.scanned,
                "refused": sorted(int(value) for value in self.refused),
                **{name: [str(item) for item in getattr(self, name)] for name in self._LISTS}}

    @classmethod
    def from_record(cls, record: dict) -> "_Tally":
        tally = cls.__new__(cls)
        tally.unseen, tally.scanned = list(record["unseen"]), int(record["scanned"])
        tally.refused = set(record["refused"])
        for name in cls._LISTS:
            setattr(tally, name, [Path(item) if name in cls._PATHS else item for item in record[name]])
        return tally

    def see(self, slab: np.ndarray) -> None:
        # Each declared value is searched for only until first found, so this costs little.
        self.unseen = [value for value in self.unseen if not np.any(slab == value)]

    def see_refused(self, values: np.ndarray) -> None:
        """Non-integer label values, which an error refuses: a declared class within 1 of one (0.9999999)
        may be what they were meant to hold."""
        finite = values[np.isfinite(values)]
        self.refused.update(value for value in self.unseen
                            if value not in self.refused and np.any(np.abs(finite - value) < 1))

    def see_header(self, path: Path, image: nib.Nifti1Image) -> None:
        if without_orientation(image):
            self.without_orientation.append(path)
        if conflict := voxel_size_conflict(image):
            self.two_voxel_sizes.append(f"{path} ({conflict})")
        if conflict := placement_conflict(image):
            self.two_placements.append(f"{path} ({conflict})")

    def see_image(self, path: Path, image: nib.Nifti1Image) -> None:
        if 1 in _grid_shape(image):
            self.single_slices.append(f"{path} {_grid_shape(image)}")

    def add_warnings(self, report: CheckReport, normalization: str = "zscore", regions: Regions | None = None) -> None:
        if len(self.background_only) == 1:
            report.warnings.append(
                f"{self.background_only[0]}: label contains only background (0); the case teaches no foreground"
            )
        elif self.background_only:
            report.warnings.append(
                f"{len(self.background_only)} labels contain only background (0) and teach no foreground: "
                f"{_listed(self.background_only)}"
            )
        if self.without_orientation:
            # nibabel then builds the affine from pixdim alone, and prints its own notice only for a
            # pixdim of 0. Image and label stay consistent, so training works; the world grid may not.
            report.warnings.append(
                f"{len(self.without_orientation)} file(s) carry no orientation (qform_code and sform_code both 0): "
                f"{_listed(self.without_orientation)}. nibabel places their voxels from pixdim alone, as ANALYZE "
                "did (x flipped, no rotation, centred; a pixdim of 0 becomes 1 mm), and so do training and "
                "predict, consistently with each other but not necessarily as the scanner did; if they came "
                "from DICOM, convert them again (dcm2niix writes both codes)"
            )
        if self.two_voxel_sizes:
            # Training reads them as this check does (preprocess.NiftiReader); MONAI's loader would not
            report.warnings.append(
                f"{len(self.two_voxel_sizes)} file(s) whose header gives two voxel sizes: "
                f"{_listed(self.two_voxel_sizes)}; {VOXEL_SIZE_CONFLICT_FIX}"
            )
        if self.two_placements:
            report.warnings.append(
                f"{len(self.two_placements)} file(s) whose qform and sform place the voxels apart: "
                f"{_listed(self.two_placements)}; {PLACEMENT_CONFLICT_FIX}"
            )
        if self.single_slices:
            # Usable (the patches are padded), but a 3D network learns nothing across slices there
            report.warnings.append(
                f"{len(self.single_slices)} image(s) hold a single slice, one voxel thick along an axis: "
                f"{_listed(self.single_slices)}; the 3D network sees each padded to its patch, without the context "
                "above and below that 3D segmentation learns from: give each case's whole volume"
            )
        if self.cropped_away:
            report.warnings.append(
                f"{len(self.cropped_away)} case(s) have labelled voxels outside the box that data.crop_foreground "
                f"crops them to (the image voxels above 0), which training never sees: "
                f"{_listed(self.cropped_away)}. Images whose background is not 0 (scans normalised before, "
                "negative tissue) lose structures this way: set data.crop_foreground: false"
            )
        if self.hounsfield and normalization == "ct":  # the crop asked for with ct: "set ct" was no advice
            report.warnings.append(
                f"{len(self.hounsfield)} image(s) hold values as low as CT's air in Hounsfield units: "
                f"{_listed(self.hounsfield)}. data.crop_foreground: true crops them to the voxels above 0 HU, "
                "cutting fat, lung and air away: set data.crop_foreground: false (its default under "
                "data.normalization: ct)"
            )
        elif self.hounsfield:
            report.warnings.append(
                f"{len(self.hounsfield)} image(s) hold values as low as CT's air in Hounsfield units: "
                f"{_listed(self.hounsfield)}. data.crop_foreground (on for zscore) would crop them to the voxels "
                "above 0 HU, cutting fat, lung and air away, and zscore ignores CT's fixed scale: for CT set "
                "data.normalization: ct (or name the channel CT in dataset.json's \"modality\", which auto "
                "follows); if these are not CT, set data.crop_foreground: false"
            )
        unseen = [value for value in self.unseen if value not in self.refused] if self.scanned else []
        if unseen and regions is not None:  # a value beside seen ones in its regions, or in none, is never scored
            if empty := [name for name, values in zip(regions.names, regions.values) if set(values) <= set(unseen)]:
                alone = sorted({value for name, values in zip(regions.names, regions.values) if name in empty
                                for value in values})
                report.warnings.append(
                    f"region(s) {', '.join(empty)} hold only label value(s) {alone}, which appear in none of the "
                    f"{self.scanned} label file(s) checked; a region never seen cannot be learned, and validation and "
                    "evaluate score it 1 wherever the network predicts none of it (both empty), which lifts the mean "
                    "Dice — check the label files, or the regions' values")
        elif unseen:
            report.warnings.append(
                f"declared label value(s) {unseen} appear in none of the {self.scanned} label file(s) "
                "checked; a class never seen cannot be learned, and validation and evaluate score it 1 wherever "
                "the network predicts none of it (both empty), which lifts the mean Dice — check the label files, "
                "or remove the class from the dataset's labels"
            )


def _listed(paths: list) -> str:
    """The first ``_MAX_FILES_SHOWN`` paths (or descriptions of files), and how many more."""
    more = len(paths) - _MAX_FILES_SHOWN
    return ", ".join(str(path) for path in paths[:_MAX_FILES_SHOWN]) + (f" (and {more} more)" if more > 0 else "")


def _check_case(
    case: Case, declared: _Declared, affine_atol: float, max_voxels: int | None,
    report: CheckReport, tally: _Tally, num_channels: int = 1, crop_foreground: bool = False,
    zscored: bool = False, channels_declared_in: str = "the dataset",
) -> None:
    """Check one case's channels, its label, and that they share one voxel grid; ``zscored``: the images
    will be z-score normalized, so a voxel that makes their spread on its own is told; ``channels_declared_in``:
    what declares ``num_channels`` (check_cases)."""
    # One file for several declared channels holds them along a fourth axis (MSD BrainTumour).
    volumes_per_file = num_channels if len(case.images) == 1 else 1
    roles = ["image" if len(case.images) == 1 else f"image channel {index}" for index in range(len(case.images))]
    files = list(zip(roles, case.images)) + ([("label", case.label)] if case.label is not None else [])
    if max_voxels is not None and _over_budget(case.id, files, max_voxels, report):
        return  # opening the rest would decompress the very volume that does not fit

    channels: list[Volume] = []
    boxes: list[Box | None] = []
    flat_values: list[float | None] = []  # each image file's one value, where it holds one throughout
    for role, path in zip(roles, case.images):
        image = _open_volume(path, case.id, role, report, volumes_per_file, channels_declared_in)
        if image is not None:
            tally.see_header(path, image)
            tally.see_image(path, image)
            spread = IntensitySpread() if zscored else None
            above_zero, minimum, flat_value = _check_finite(path, image, f"{case.id} ({role})", report, spread)
            if spread is not None:
                _tell_dominant_voxels(spread, image, path, f"{case.id} ({role})", report)
            boxes.append(above_zero)
            flat_values.append(flat_value)
            if crop_foreground and minimum <= _HOUNSFIELD_AIR:
                tally.hounsfield.append(f"{path} (minimum {minimum:g})")
            channels.append(Volume(role, path, image))
    box = Box.union(boxes) if crop_foreground and channels else None
    if crop_foreground and channels and box is None:
        report.errors.append(
            f"{case.id}: {_listed([volume.path for volume in channels])}: no image voxel is above 0, so "
            "data.crop_foreground (on for zscore) would crop the case to nothing; if the scan is blank, "
            "leave the case out; if its background is below 0 (normalised before), set "
            "data.crop_foreground: false")
    elif channels and None not in flat_values:  # a channel left empty (a missing sequence) beside others is not
        report.warnings.append(
            f"{case.id}: {_listed([volume.path for volume in channels])}: the image holds one value throughout "
            f"({', '.join(f'{value:g}' for value in flat_values)}), so it holds nothing to learn from (normalized, it "
            "is all 0) and a validation case scores 0: re-export it, or leave the case out")

    # Every channel is fed to the network as one stacked tensor, so they must share a grid.
    for other in channels[1:]:
        found = len(report.errors)
        _check_same_grid(channels[0], other, f"{case.id} (image channels)", _CHANNEL_HINT, affine_atol, report)
        if len(report.errors) == found and (moved := stacking_shift(channels[0], other)):
            report.errors.append(f"{case.id} (image channels): {other.role} {other.path} and {channels[0].role} "
                                 f"{channels[0].path} are on different grids: {moved}; {_CHANNEL_HINT}")

    if case.label is None:
        return
    label = _open_volume(case.label, case.id, "label", report)
    if label is None:
        return
    tally.see_header(case.label, label)
    outside, labelled = _check_label_values(case.label, label, declared, f"{case.id} (label)", report, tally, box)
    if outside:
        tally.cropped_away.append(f"{case.id} {outside} of {labelled}")
    if channels:
        _check_same_grid(
            channels[0], Volume("label", case.label, label), f"{case.id} (label vs image)", _RESAMPLE_HINT,
            affine_atol, report,
        )


def _over_budget(case_id: str, files: list[tuple[str, Path]], max_voxels: int, report: CheckReport) -> bool:
    """Report the case's first file with more than ``max_voxels`` voxels, judged from its header alone."""
    for role, path in files:
        try:
            shape = read_nifti(path, verify_stream=False).shape
        except DataError:
            continue  # unreadable: the full read that follows reports it
        # Spatial voxels only: a 4D file is reported as 4D (split it), not as too large.
        voxels = int(np.prod(shape[:3], dtype=np.int64))
        if voxels > max_voxels:
            report.errors.append(
                f"{case_id} ({role}): {path}: shape {tuple(shape)} holds {voxels:,} voxels, over the budget of "
                f"{max_voxels:,} voxels per volume (data.max_voxels); resample it to a coarser spacing or crop it to "
                "the region of interest before training, or raise the budget on a machine with more memory"
            )
            return True
    return False


def _open_volume(path: Path, case_id: str, role: str, report: CheckReport, volumes: int = 1,
                 channels_declared_in: str = "the dataset") -> nib.Nifti1Image | None:
    """Read and fully verify a file; return it only if it is a readable 3D volume, or a 4D stack of
    ``volumes`` 3D volumes (channels, as ``channels_declared_in`` declares them) where more than one is expected."""
    context = f"{case_id} ({role})"
    try:
        image = read_nifti(path, verify_stream=True)
    except DataError as err:
        report.errors.append(f"{context}: {err}")
        return None
    if nifti_stem(path) is None:  # passed, read by its bytes; training's loader and nibabel go by the name
        # read gzip-compressed where its name ends in .gz (scan.gz), as nibabel would if it took the name
        report.errors.append(f"{context}: {path}: {nifti_without_its_extension(path, compressed=is_gzipped(path))}")
        return None
    if volumes_in(image.shape) != volumes:
        if role == "label" and (said := _several_volumes_all_nan_said(image)):  # before its volumes' argmax
            report.errors.append(f"{context}: {path}: {said}")
            return None
        report.errors.append(f"{context}: {path}: {_not_3d_advice(image.shape, role, volumes, channels_declared_in)}")
        return None
    if 0 in image.shape[:3]:  # passed as "only background" and then failed inside MONAI's Orientationd
        report.errors.append(f"{context}: {path}: shape {tuple(image.shape)} has an axis of length 0: it holds no "
                             "voxel; re-export the volume from its source")
        return None
    if (error := header_error(path, image)) is not None:  # no values to check, or no grid to compare on
        report.errors.append(f"{context}: {error}")
        return None
    return image


def _several_volumes_all_nan_said(label: nib.Nifti1Image) -> str:
    """``all_nan_said`` of a float label of several volumes without a finite voxel (a diverged model's
    probability map), "" of any other: refused as "3 volumes" with their argmax as the remedy until the
    ninety-seventh session, though that argmax is class 0 in every voxel, background alone that would pass.
    Read in slabs, on this error's way alone, and only until a finite voxel."""
    if label.get_data_dtype().kind != "f" or math.prod(label.shape[3:]) <= 1:
        return ""
    only_nan = True
    for slab in _slabs(label):
        if np.isfinite(slab).any():
            return ""
        only_nan = only_nan and bool(np.isnan(slab).all())
    return all_nan_said(label.shape, only_nan, "label")


def _not_3d_advice(shape: tuple[int, ...], role: str, volumes: int = 1,
                   channels_declared_in: str = "the dataset") -> str:
    """Say what a non-3D file probably is and how to turn it into what is expected (``volumes`` of them, as
    ``channels_declared_in`` declares: the JSON by its name, "dataset.json" of every one until the ninety-first
    session)."""
    if role != "label" and (advice := vector_layout_advice(shape)):
        return advice
    if volumes > 1:  # one file per case for several declared channels
        held = f"is 4D with {shape[3]} volumes" if len(shape) == 4 else f"is {len(shape)}D"
        return (
            f"shape {shape} {held}, but {channels_declared_in} declares {volumes} channels and lists this one file for "
            f"them: store them as (x, y, z, {volumes}), or list one 3D file per channel"
        )
    if len(shape) == 4 and role == "label":
        return (
            f"shape {shape} is 4D with {shape[3]} volumes; a label must be one 3D map of class values — "
            "convert a one-hot/multi-channel label with argmax over the last axis"
        )
    if len(shape) == 4:
        return (
            f"shape {shape} is 4D with {shape[3]} volumes (several channels or time points in one file), but "
            "the dataset declares one channel: declare its channels in an MSD dataset.json's 'modality' "
            "(the Decathlon's own 4D files are read so), or split it into one 3D file per channel (e.g. "
            "nibabel.funcs.four_to_three) and list them as channels: a dataset.json 'image' list, nnU-Net "
            "_0000/_0001 files, CSV image_0/image_1 columns, or ([channel files], label) pairs in Python"
        )
    if len(shape) < 3:
        return (
            f"shape {shape} is {len(shape)}D; this package trains on 3D volumes — stack the slices into one 3D volume"
        )
    return f"shape {shape} is not 3D (x, y, z; a trailing size-1 axis is allowed); store each 3D volume as its own file"


def vector_layout_advice(shape: tuple[int, ...]) -> str:
    """What to do with a 5D (x, y, z, 1, C) image, NIfTI's layout of C values per voxel (ITK writes its
    multi-component images so), whose channels this package reads as (x, y, z, C); "" for another shape."""
    if len(shape) != 5 or shape[3] != 1:
        return ""
    return (f"shape {shape} is NIfTI's vector layout (x, y, z, 1, {shape[4]}: {shape[4]} values per voxel, as ITK "
            f"writes multi-component images); drop its fourth axis to store them as channels (x, y, z, {shape[4]}) "
            "(nibabel: nib.Nifti1Image(np.asanyarray(img.dataobj)[:, :, :, 0], img.affine, img.header)), or write "
            "one 3D file per channel")


def volumes_in(shape: tuple[int, ...]) -> int | None:
    """How many 3D volumes a NIfTI file of ``shape`` holds: 1 for (x, y, z) or (x, y, z, 1), C for
    (x, y, z, C) (channels, as the Decathlon's 4D files keep them), None for anything else (a slice, 5D)."""
    return 1 if len(shape) == 3 else int(shape[3]) if len(shape) == 4 else None


def _grid_shape(image: nib.Nifti1Image) -> tuple[int, int, int]:
    """The (x, y, z) shape of the voxel grid, whatever the volumes per file."""
    return tuple(int(size) for size in image.shape[:3])


def _slabs(image: nib.Nifti1Image) -> Iterator[np.ndarray]:
    """Yield the voxels in runs of z-slices; z is the slowest axis on disk, so each slab is one contiguous read."""
    for _, slab in _slabs_from(image):
        yield slab


def _slabs_from(image: nib.Nifti1Image) -> Iterator[tuple[int, np.ndarray]]:
    """``_slabs`` with the first z index of each."""
    nx, ny, nz = _grid_shape(image)
    step = max(1, _VOXELS_PER_SLAB // max(1, nx * ny))
    for start in range(0, nz, step):
        yield start, np.asanyarray(image.dataobj[:, :, start : start + step])


@dataclass(frozen=True)
class Box:
    """The bounding box of some voxels, inclusive ``low`` and ``high`` corner indices."""

    low: tuple[int, int, int]
    high: tuple[int, int, int]

    @staticmethod
    def of(mask: np.ndarray, z_offset: int = 0) -> Box | None:
        """The box of a 3D mask's True voxels (its z indices shifted by ``z_offset``), None if there are none."""
        corners = [np.flatnonzero(np.any(mask, axis=tuple(a for a in range(3) if a != axis))) for axis in range(3)]
        if not len(corners[0]):
            return None
        return Box((int(corners[0][0]), int(corners[1][0]), int(corners[2][0]) + z_offset),
                   (int(corners[0][-1]), int(corners[1][-1]), int(corners[2][-1]) + z_offset))

    @staticmethod
    def union(boxes) -> Box | None:
        boxes = [box for box in boxes if box is not None]
        if not boxes:
            return None
        return Box(tuple(min(b.low[a] for b in boxes) for a in range(3)),
                   tuple(max(b.high[a] for b in boxes) for a in range(3)))

    def outside(self, slab: np.ndarray, z_offset: int) -> np.ndarray:
        """Boolean mask of a slab's voxels outside the box (the slab's first z index is ``z_offset``)."""
        inside = np.zeros(slab.shape[:3], bool)
        low_z, high_z = self.low[2] - z_offset, self.high[2] - z_offset
        inside[self.low[0]:self.high[0] + 1, self.low[1]:self.high[1] + 1, max(0, low_z):max(0, high_z + 1)] = True
        return ~inside


def non_finite_counts(image: nib.Nifti1Image) -> tuple[int, int]:
    """(NaN, Inf) voxel counts of a 3D image, read in slabs so a large volume is never held twice."""
    if image.get_data_dtype().kind not in "fc":
        return 0, 0  # integer storage (even scaled by a finite slope) cannot hold NaN/Inf
    nan = infinite = 0
    for slab in _slabs(image):
        nan += int(np.count_nonzero(np.isnan(slab)))
        infinite += int(np.count_nonzero(np.isinf(slab)))
    return nan, infinite


def any_above_zero(image: nib.Nifti1Image) -> bool:
    """Whether any voxel (of any volume of a 4D file) is above 0: what the foreground crop keeps."""
    return any(bool(np.any(slab > 0)) for slab in _slabs(image) if slab.dtype.kind != "c")


def _check_finite(path: Path, image: nib.Nifti1Image, context: str, report: CheckReport,
                  spread: IntensitySpread | None = None) -> tuple[Box | None, float, float | None]:
    """NaN/Inf intensities turn the loss into NaN on the first batch that contains them, and so do
    finite ones beyond float32's range, in which training and predict read every image: a float64
    file's, or an integer's scaled by its header's scl_slope (nibabel reads both as float64). Such a
    case became all NaN in the cache without a word, and the run skipped its steps or scored it 0
    (seventy-eighth session's probe; predict refuses such a scan once preprocessed). Returns the box
    of the voxels above 0 (of any volume of a 4D file), which the foreground crop keeps, the smallest
    finite intensity, and the one value every voxel holds (None where they differ or some are not
    finite), read in the same pass; ``spread`` gathers the voxels' sums there too, where given and
    every voxel is finite."""
    nan = infinite = beyond_float32 = 0
    minimum, maximum, largest = math.inf, -math.inf, 0.0
    floating = image.get_data_dtype().kind in "fc"  # integer storage, even scaled by a finite slope: finite
    boxes = []
    for start, slab in _slabs_from(image):
        all_finite = True
        if floating:
            nan_here, infinite_here = int(np.count_nonzero(np.isnan(slab))), int(np.count_nonzero(np.isinf(slab)))
            nan, infinite, all_finite = nan + nan_here, infinite + infinite_here, not (nan_here or infinite_here)
        if slab.dtype.kind != "c":  # complex images are refused when opened
            above = slab > 0  # NaN compares False
            boxes.append(Box.of(above.reshape(*above.shape[:3], -1).any(axis=3), start))
            finite = slab if all_finite else slab[np.isfinite(slab)]
            if finite.size:
                # the spread's sums are taken where they can be (every voxel finite so far), in the same
                # reading of the voxels as their extremes
                gathered = spread is not None and all_finite and not (nan or infinite or beyond_float32)
                low, high = spread.see(slab) if gathered else (float(finite.min()), float(finite.max()))
                minimum, maximum = min(minimum, low), max(maximum, high)
                if max(-low, high) > _FLOAT32_MAX:  # only float64 can (a file's, or integers scaled by scl_slope)
                    beyond_float32 += int(np.count_nonzero(np.abs(finite) > _FLOAT32_MAX))
                    largest = max(largest, -low, high)
    if spread is not None and (nan or infinite or beyond_float32):
        spread.clear()  # such an image is refused: its spread is not worth a word
    if nan or infinite:
        report.errors.append(
            f"{context}: {path}: {nan + infinite} non-finite voxel(s) ({nan} NaN, {infinite} Inf) in the image; "
            "replace them with a finite value (e.g. the background intensity) or re-export the image"
        )
    if beyond_float32:
        report.errors.append(
            f"{context}: {path}: {beyond_float32} voxel(s) beyond float32's range (up to {largest:.3g}; float32 "
            f"holds {_FLOAT32_MAX:.3g}), in which training reads the image: they would become Inf and the case "
            "NaN once normalized; rescale the image (or the scl_slope of its header)"
        )
    return Box.union(boxes), minimum, (minimum if minimum == maximum and not (nan or infinite) else None)


def _tell_dominant_voxels(spread: IntensitySpread, image: nib.Nifti1Image, path: Path, context: str,
                          report: CheckReport) -> None:
    """Warn of each channel whose z-score one voxel, or a few together, make (``intensity_spread``)."""
    for channel, what, way_on in dominant_voxels_said(spread, image):
        which = f" (volume {channel} of the file)" if len(spread.count) > 1 else ""
        report.warnings.append(f"{context}: {path}{which}: {what}; {way_on}, or leave the case out")


def dominant_voxels_said(spread: IntensitySpread, image: nib.Nifti1Image) -> list[tuple[int, str, str]]:
    """(channel, what it does, the way on) for each channel of ``image`` whose z-score one voxel makes,
    or a few together (the image read again for those: ``intensity_spread.extreme_clusters``)."""
    said = [(channel, squeeze_said(value, share), "set that voxel to a tissue value in the file (a hot pixel, "
             "a marker)") for channel, value, share in spread.dominant_voxels()]
    said += [(channel, cluster_said(count, low, high, share), "set those voxels to a tissue value in the file (a "
              "marker, hot pixels)") for channel, count, low, high, share in extreme_clusters(spread, _slabs(image))]
    return sorted(said, key=lambda item: item[0])


def intensity_spread(image: nib.Nifti1Image) -> IntensitySpread:
    """The sums of ``intensity_spread`` over a finite image's voxels, read in slabs (predict's check
    of a scan a z-scoring model segments)."""
    spread = IntensitySpread()
    for slab in _slabs(image):
        spread.see(slab)
    return spread


def _check_label_values(
    path: Path, label: nib.Nifti1Image, declared: _Declared, context: str, report: CheckReport, tally: _Tally,
    box: Box | None = None,
) -> tuple[int, int]:
    """Labels must be whole numbers among the declared values: anything else breaks the remap, one-hot or loss.

    Returns:
        (labelled voxels outside ``box``, labelled voxels): what the foreground crop would drop.
    """
    non_integer: set[float] = set()
    undeclared: set[float] = set()
    has_foreground = False
    outside = labelled = 0
    voxels = fractional_voxels = 0
    within_0_1 = True  # every non-integer value: a probability map's, where most voxels hold them
    any_finite, only_nan = label.get_data_dtype().kind != "f", True  # of a float label: one of NaN alone?
    slope, inter = _scaling(label)
    # A header's scaling misreads every value of the file: the declared classes its stored values hold (what
    # the error's remedy writes back) are behind the values refused, and those alone (any it did not read, before
    # the ninety-fifth session, so one scaled file hid a class in no file of the dataset)
    stored = _Tally(declared, declared.ignore_value) if (slope, inter) != (1.0, 0.0) else None
    for start, slab in _slabs_from(label):
        voxels += slab.size
        if stored is not None:
            stored.see(np.round((slab - inter) / slope))
        if not any_finite:  # a normal float label's first slab ends this
            any_finite, only_nan = bool(np.isfinite(slab).any()), only_nan and bool(np.isnan(slab).all())
        if slab.dtype.kind in "fc":
            fractional = slab != np.round(slab)  # NaN compares unequal, so it is caught too
            values = slab[fractional]
            _collect(non_integer, values)
            if stored is None:  # a scaled file's are its stored values' classes (below), not those near its reads
                tally.see_refused(values)
            fractional_voxels += values.size
            within_0_1 = within_0_1 and not np.any((values < 0) | (values > 1))
            slab = np.where(fractional, 0, slab)  # report each bad voxel once, as non-integer
        _collect(undeclared, slab[declared.undeclared(slab)])
        tally.see(slab)
        foreground = slab > 0  # an ignore label's voxels too: annotated or not, they are cut away alike
        has_foreground = has_foreground or bool(np.any(slab != 0))
        if box is not None and slab.ndim in (3, 4) and slab.shape[3:] in ((), (1,)):  # (x, y, z, 1) too
            spatial = foreground.reshape(slab.shape[:3])
            labelled += int(np.count_nonzero(spatial))
            outside += int(np.count_nonzero(spatial & box.outside(slab, start)))
    tally.scanned += 1
    if not any_finite and voxels:  # told "all within 0..1, as a probability map's do" until the ninety-seventh
        report.errors.append(f"{context}: {path}: {all_nan_said(_grid_shape(label), only_nan, 'label')}")
        return outside, labelled

    # Refused whatever it reads as: a scaling onto declared classes (scl_inter 1: stored 0, 1, 2 read as 1, 2, 3)
    # passed silently before the ninety-fifth session, and training learnt every class shifted
    scaled = label_scaling_said(label)
    if scaled:
        tally.refused.update(value for value in tally.unseen if value not in stored.unseen)
    if scaled and not (non_integer or undeclared):
        report.errors.append(f"{context}: {path}: its voxels read as classes other than those it stores{scaled}")
    if non_integer:
        report.errors.append(f"{context}: {path}: non-integer label values {_show(non_integer)}; a label map holds "
                             f"class values" + (scaled or _why_not_whole(fractional_voxels, voxels, within_0_1)))
    if undeclared:
        # The way that works for "unlabelled" voxels is the ignore label: declaring -1 is refused (labels.py), and
        # so is ignore_value=-1. Said in from_files' words to its pairs (the config's "ignore" label came first,
        # ignore_value= in brackets with no value, until the ninety-seventh session)
        ignored = declared.ignore_value if declared.ignore_value is not None else max(declared.values) + 1
        way = (f"give them a value above the classes', {ignored}, and Dataset.from_files(..., ignore_value={ignored})"
               if declared.from_files else "give them a value above the classes' and declare it the \"ignore\" "
                                           "label (Dataset.from_files: ignore_value=)")
        negative = (" (negative values are never classes; -1 often marks unlabelled voxels"
                    + (f": to leave them out of the loss and the metrics, {way}, docs/data.md)"
                       if not declared.any_foreground else ")") if min(undeclared) < 0 else "")
        # 255 (uint8's largest) is how many exports mark unannotated voxels; declared as a class it would train
        # "unlabelled" as a structure: the ignore label is the way (ninety-fourth session's probe)
        if 255 in undeclared and declared.ignore_value is None and not declared.any_foreground:
            declare = ("give Dataset.from_files ignore_value=255, nnU-Net's \"ignore\" label" if declared.from_files
                       else f"declare it the \"ignore\" label in {declared.declared_in}, as nnU-Net does "
                            f"(Dataset.from_files: ignore_value=255)")
            negative += (f" (255 often marks unlabelled voxels: to leave them out of the loss and the metrics, "
                         f"{declare}, docs/data.md \"Sparse annotation\")")
        # A two-class mask saved as 0 and 255 (or any one other value) is the usual cause in a binary dataset;
        # binarizing is its remedy, which the message did not name before the forty-fourth session.
        mask = not declared.any_foreground and len(declared.values) == 2 and min(undeclared) > 0
        binarize = ("Dataset.binarize() (data.binarize: true in a config file)" if declared.from_files
                    else "data.binarize: true (Dataset.binarize())")
        report.errors.append(
            f"{context}: {path}: label values {_show(undeclared)} are not declared (declared: "
            f"{declared.describe()}){negative}{scaled}; fix the label file"
            + ("" if declared.any_foreground else f", or declare the missing classes in {declared.declared_in}")
            + (", or, for a mask saved as 0 and another value (255, say), train every value above 0 as the one "
               f"foreground class: {binarize}" if mask else "")
        )
    if not has_foreground and not non_integer:
        tally.background_only.append(path)
    return outside, labelled


def label_scaling_said(label: nib.Nifti1Image) -> str:
    """Words for a label whose header scales its stored values (scl_slope/scl_inter, which nibabel, ITK
    and so this package apply), or "": an image's scaling copied onto its label (a probe's clinical
    export) turned stored 0, 1, 2 into 5, 7, 9, which the check told the user to declare as classes."""
    slope, inter = _scaling(label)
    if slope == 1.0 and inter == 0.0:
        return ""
    return (f" — its header scales the stored values (scl_slope {slope:g}, scl_inter {inter:g}), as every NIfTI "
            "reader does, but a label map's values are classes: write its stored values without scaling (nibabel: "
            "nib.save(nib.Nifti1Image(img.dataobj.get_unscaled(), img.affine, img.header), path))")


def _scaling(image: nib.Nifti1Image) -> tuple[float, float]:
    """The (scl_slope, scl_inter) that nibabel applies to the stored values: (1, 0) where it applies none."""
    return tuple(float(getattr(image.dataobj, name, default)) for name, default in (("slope", 1.0), ("inter", 0.0)))


def _why_not_whole(fractional_voxels: int, voxels: int, within_0_1: bool) -> str:
    """The likely cause of a label file's non-integer values, and its remedy. A label map resampled
    linearly has them at its edges alone; most of its voxels is a scan's intensities, the case's image
    given as its label, which was told it had been resampled (ninety-second session's probe), or, all
    within 0..1, a probability (soft) map's, which was told its image and label were swapped (its review)."""
    if fractional_voxels > voxels / 2:
        share = f", and {fractional_voxels / voxels:.0%} of this file's voxels hold others"
        swapped = "if the case's image and label are swapped, give the scan as its image and the label map as its label"
        if within_0_1:
            return (f"{share}, all within 0..1, as a probability map's do: give the label map of class values (a "
                    f"probability map thresholded, or the argmax of one per class); or, {swapped}")
        return f"{share}, as a scan's intensities do: {swapped}"
    return " — it was probably resampled with linear interpolation; use nearest-neighbour, or round it"


def _collect(found: set[float], values: np.ndarray) -> None:
    """Add a few distinct offending values to ``found`` (a sample, not all of them)."""
    if values.size and len(found) < _MAX_VALUES_SHOWN:
        found.update(np.unique(values)[: _MAX_VALUES_SHOWN - len(found)].tolist())


def _show(values: set[float]) -> str:
    """Sorted, with whole numbers shown as integers (3 not 3.0) and NaN last."""
    shown = [int(v) if float(v).is_integer() else v for v in sorted(values, key=lambda v: (np.isnan(v), v))]
    return str(shown) + (" (and possibly more)" if len(values) >= _MAX_VALUES_SHOWN else "")


def _check_same_grid(
    reference: Volume, other: Volume, context: str, fix: str, affine_atol: float, report: CheckReport
) -> None:
    """Two volumes stacked or compared voxel-by-voxel must have the same shape and affine."""
    reference_shape, other_shape = _grid_shape(reference.image), _grid_shape(other.image)
    if reference_shape != other_shape:
        orientation = orientation_difference(reference, other)
        report.errors.append(
            f"{context}: {other.role} {other.path} has shape {other_shape} but {reference.role} {reference.path} "
            f"has shape {reference_shape}" + (f" ({orientation})" if orientation else "") + f"; {fix}"
        )
        return  # with different shapes the affine comparison adds nothing
    if not (what := _affine_difference(reference, other, affine_atol)):
        return
    if bare := [volume for volume in (reference, other) if without_orientation(volume.image)]:
        # The bare header's grid is nibabel's guess from its voxel sizes (x flipped, centred), so the other
        # file, the one with a true grid, is not the one to resample (sixty-seventh session)
        guessed, placed = bare[0], other if bare[0] is reference else reference
        fix = (f"the {guessed.role} carries no orientation (qform_code and sform_code 0), so its grid here is "
               f"guessed from its voxel sizes: if it was written on the {placed.role}'s grid, copy the "
               f"{placed.role}'s geometry onto it (SimpleITK's CopyInformation); else convert it again (dcm2niix "
               f"writes both codes)") if len(bare) == 1 else fix
    elif (shift := _largest_voxel_shift(reference, other)) < _ROUNDING_VOXELS:
        # An export tool's rounding, not another grid: resampling would blur nothing but is the wrong work
        fix = (f"no voxel moves by more than {shift:.2g} of a voxel between the two, as an export tool's rounding "
               f"leaves headers: copy the {reference.role}'s geometry onto the {other.role} (SimpleITK's "
               f"CopyInformation; nibabel: nib.Nifti1Image(data, {reference.role}.affine, {reference.role}.header))")
    report.errors.append(
        f"{context}: {other.role} {other.path} and {reference.role} {reference.path} are on different grids: "
        f"{what}; {fix}"
    )


def grid_difference(reference: Volume, other: Volume, affine_atol: float) -> str:
    """How two volumes' voxel grids differ, in words that name their roles (e.g. "image channel 1 is LPS,
    image channel 0 is RAS"), or "" where they share one: the shape, and the affine within
    ``affine_atol``."""
    reference_shape, other_shape = _grid_shape(reference.image), _grid_shape(other.image)
    if reference_shape != other_shape:
        orientation = orientation_difference(reference, other)
        return (f"{other.role} has shape {other_shape}, {reference.role} {reference_shape}"
                + (f" ({orientation})" if orientation else ""))
    return _affine_difference(reference, other, affine_atol)


def _affine_difference(reference: Volume, other: Volume, affine_atol: float) -> str:
    """How the affines of two volumes of one shape differ (orientation, voxel sizes, or else placement)."""
    difference = float(np.max(np.abs(other.image.affine - reference.image.affine)))
    if difference <= affine_atol:  # written this way round so that a NaN affine fails
        return ""
    what = [
        part for part in (orientation_difference(reference, other), _spacing_difference(reference, other, affine_atol))
        if part
    ] or [_placement_difference(reference, other, affine_atol)]
    return "; ".join(what)


def stacking_shift(reference: Volume, other: Volume) -> str:
    """How far ``other``'s grid places a voxel from where ``reference``'s does, in words, where that is a
    share of a voxel beyond a header's rounding (``_ROUNDING_VOXELS``); "" within it (or where an affine
    cannot say: the other checks do). For channels whose affines agree within ``GRID_ATOL_MM`` an entry:
    they are stacked voxel by voxel on the first one's grid (``preprocess.NiftiReader``), and an entry's
    1e-3 over an axis's length is more than a rounding (a voxel size 1e-3 mm off moves the far end of a
    512-voxel axis by half a voxel), which MONAI's stacking refused and a review's probe found stacked
    without a word."""
    shift = _largest_voxel_shift(reference, other)
    if not shift >= _ROUNDING_VOXELS:  # NaN: a damaged affine, said by the header checks
        return ""
    return (f"their affines differ by {GRID_ATOL_MM} or less in every entry, yet {other.role} places a voxel "
            f"{shift:.2g} of a voxel from where {reference.role} does, more than a header's rounding "
            f"({_ROUNDING_VOXELS} of a voxel), and the channels are stacked voxel by voxel")


def without_orientation(image: nib.Nifti1Image) -> bool:
    header = image.header
    return header.get("qform_code", 1) == 0 and header.get("sform_code", 1) == 0


def _largest_voxel_shift(reference: Volume, other: Volume) -> float:
    """How far, in the reference's voxels, the other grid places any corner of the volume from where the
    reference places it (NaN where either affine cannot be inverted or holds NaN)."""
    shape = np.array(_grid_shape(reference.image), dtype=float) - 1
    corners = np.array([[x, y, z, 1.0] for x in (0, shape[0]) for y in (0, shape[1]) for z in (0, shape[2])]).T
    try:
        in_reference_voxels = np.linalg.inv(reference.image.affine) @ other.image.affine @ corners
    except np.linalg.LinAlgError:
        return math.nan
    return float(np.max(np.abs(in_reference_voxels[:3] - corners[:3])))


def orientation_difference(reference: Volume, other: Volume) -> str:
    """E.g. "label is LPS, image is RAS", or "" when both point the same way."""
    reference_codes, other_codes = _axcodes(reference.image), _axcodes(other.image)
    if reference_codes == other_codes:
        return ""
    return f"{other.role} is {other_codes}, {reference.role} is {reference_codes}"


def _spacing_difference(reference: Volume, other: Volume, atol: float) -> str:
    """E.g. "label voxels are 1 x 1 x 3 mm, image voxels 1 x 1 x 2 mm", or ""."""
    reference_spacing = nib.affines.voxel_sizes(reference.image.affine)
    other_spacing = nib.affines.voxel_sizes(other.image.affine)
    if np.allclose(reference_spacing, other_spacing, rtol=0, atol=atol):
        return ""
    return f"{other.role} voxels are {_mm(other_spacing)}, {reference.role} voxels {_mm(reference_spacing)}"


def _placement_difference(reference: Volume, other: Volume, atol: float) -> str:
    """Same orientation and spacing: the grids are shifted, or tilted by less than an axis swap."""
    reference_affine, other_affine = reference.image.affine, other.image.affine
    if np.allclose(reference_affine[:3, :3], other_affine[:3, :3], rtol=0, atol=atol):
        shift = float(np.linalg.norm(other_affine[:3, 3] - reference_affine[:3, 3]))
        return (
            f"the origins differ by {shift:.3g} mm ({other.role} {_mm_point(other_affine[:3, 3])}, "
            f"{reference.role} {_mm_point(reference_affine[:3, 3])})"
        )
    difference = float(np.max(np.abs(other_affine[:3, :3] - reference_affine[:3, :3])))
    return f"the axis directions differ (largest direction/spacing matrix difference {difference:.3g} > {atol})"


def _mm_point(point: np.ndarray) -> str:
    return "(" + ", ".join(f"{float(value):.4g}" for value in point) + ") mm"


def _axcodes(image: nib.Nifti1Image) -> str:
    try:
        return "".join(code or "?" for code in nib.aff2axcodes(image.affine))
    except Exception:  # a degenerate (e.g. zero or NaN) affine has no orientation
        return "undefined"


def _mm(spacing: np.ndarray) -> str:
    return " x ".join(f"{float(size):.4g}" for size in spacing) + " mm"
