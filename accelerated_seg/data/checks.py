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

This module is the entry (a manifest checked as training reads it) and every public name is importable from
here too; the checks live in modules of one idea each: :mod:`~accelerated_seg.data.cohort_check` (many cases:
threads, ranks, records), :mod:`~accelerated_seg.data.case_check` (one case),
:mod:`~accelerated_seg.data.volume_opening` (each file read, shape and budget),
:mod:`~accelerated_seg.data.image_value_checks` and :mod:`~accelerated_seg.data.label_value_checks` (the voxels),
:mod:`~accelerated_seg.data.grid_agreement` (one voxel grid), :mod:`~accelerated_seg.data.dataset_tally` (the
warnings said once of the dataset), :mod:`~accelerated_seg.data.check_report` (the report and its lines), with
:mod:`~accelerated_seg.data.declared_labels`, :mod:`~accelerated_seg.data.foreground_box`,
:mod:`~accelerated_seg.data.voxel_slabs` and :mod:`~accelerated_seg.data.manifest_named` beneath them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from accelerated_seg.data.channel_schemes import schemes_not_followed
from accelerated_seg.data.check_records import CheckRecords
from accelerated_seg.data.check_report import CheckReport, listed
from accelerated_seg.data.cohort_check import CheckingRanks, check_cases
from accelerated_seg.data.foreground_box import Box
from accelerated_seg.data.formats.nnunet import (cases_left_out_of_the_split, nnunets_own_folds,
                                                 undeclared_channel_files)
from accelerated_seg.data.formats.paths import natural_key
from accelerated_seg.data.grid_agreement import (GRID_ATOL_MM, Volume, grid_difference, orientation_difference,
                                                 stacking_shift, without_orientation)
from accelerated_seg.data.image_value_checks import (any_above_zero, dominant_voxels_said, intensity_spread,
                                                     non_finite_counts)
from accelerated_seg.data.label_value_checks import label_scaling_said
from accelerated_seg.data.manifest import Case, Manifest, with_regions
from accelerated_seg.data.manifest_named import channels_declared_in, json_name, labels_declared_in, pairs_checked
from accelerated_seg.data.preprocess_settings import resolved_crop_foreground, resolved_normalization
from accelerated_seg.data.volume_opening import channel_first_advice, one_volume, vector_layout_advice, volumes_in

if TYPE_CHECKING:
    from accelerated_seg.config import DataConfig

__all__ = [
    "GRID_ATOL_MM", "Box", "CheckReport", "CheckingRanks", "Volume", "any_above_zero", "channel_first_advice",
    "check_as_configured",
    "check_cases", "check_manifest", "dominant_voxels_said", "grid_difference", "intensity_spread",
    "label_scaling_said", "non_finite_counts", "one_volume", "orientation_difference", "stacking_shift",
    "vector_layout_advice", "volumes_in", "without_orientation",
]


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
        affine_atol=affine_atol, max_voxels=max_voxels, labels_declared_in=labels_declared_in(manifest),
        channels_declared_in=channels_declared_in(manifest),
        channel_names=[manifest.channels.get(index, "") for index in range(manifest.num_channels)],
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
            f"{len(undeclared)} file(s) in imagesTr are named as channels that {json_name(manifest)}'s channel_names "
            f"does not declare, so training does not read them: {listed(undeclared)}. It trains on channel(s) "
            f"{declared}: declare the others in channel_names to train on them too (predict is then given them "
            f"as well), or move them out of imagesTr if they are not meant to be there"
        )
    if cases is None and (left_out := cases_left_out_of_the_split(manifest)):
        report.warnings.append(
            f"{len(left_out)} case(s) of labelsTr are in neither the 'train' nor the 'val' list of the fold taken from "
            f"{manifest.root / 'splits_final.json'}, so they are neither trained nor validated on: "
            f"{listed(left_out)}. Cases added since nnU-Net wrote that file? List them in each fold, or delete it to "
            f"split every case"
        )
    if cases is None and (folds := nnunets_own_folds(manifest)):
        report.warnings.append(
            f"the split is {manifest.split}, not nnU-Net's: its folds of this dataset are in {folds}, which is read "
            f"beside dataset.json alone; copy it to {manifest.root} to train and validate on nnU-Net's folds (fold "
            f"k as nnU-Net's fold k), or, to keep this split on purpose, set nnUNet_preprocessed empty for the run "
            f"(nnUNet_preprocessed= accelerated-seg train ...)"
        )
    report.root, report.checked = manifest.root, pairs_checked(manifest, checked)
    return report


def _in_natural_order(cases: list[Case]) -> list[Case]:
    """The cases by id as a person numbers them, which the report follows: every error line and every list of
    files. Checked as the split left them, training cases first and held-out ones after, a CSV's undeclared label
    values were listed in "case_002, case_004, case_005, case_003" (until the ninety-third session)."""
    return sorted(cases, key=lambda case: natural_key(case.id))


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
            manifest.channels, normalization, json_name(manifest), chosen=data.normalization != "auto")):
        report.warnings.append(schemes)
    return manifest, report
