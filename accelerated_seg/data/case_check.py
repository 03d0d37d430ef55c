"""One case checked: its files within the voxel budget and opened, its channels' intensities and its label's
values read, and its channels and label on one voxel grid; every problem goes into the case's report, every finding
the dataset's warnings gather into its tally.
"""

from __future__ import annotations

from accelerated_seg.data.cases import Case
from accelerated_seg.data.check_report import CheckReport, listed
from accelerated_seg.data.dataset_tally import Tally
from accelerated_seg.data.declared_labels import DeclaredLabels
from accelerated_seg.data.foreground_box import Box
from accelerated_seg.data.case_units import judge_units
from accelerated_seg.data.grid_agreement import Volume, channel_volume, check_same_grid, stacking_shift
from accelerated_seg.data.image_value_checks import check_finite, tell_dominant_voxels
from accelerated_seg.data.intensity_spread import IntensitySpread
from accelerated_seg.data.label_value_checks import check_label_values
from accelerated_seg.data.volume_opening import open_volume, over_budget

# Air is about -1000 HU in CT; no other modality stores values this low unless normalised so (then
# seldom below -10). An image reaching it is CT, which the zscore crop cuts down to the voxels above 0.
_HOUNSFIELD_AIR = -500.0
_RESAMPLE_HINT = "resample the label onto the image grid (nearest-neighbour interpolation)"
_CHANNEL_HINT = "resample the channels onto one grid"


def check_case(
    case: Case, declared: DeclaredLabels, affine_atol: float, max_voxels: int | None,
    report: CheckReport, tally: Tally, num_channels: int = 1, crop_foreground: bool = False,
    zscored: bool = False, channels_declared_in: str = "the dataset", channel_names: tuple[str, ...] = (),
) -> None:
    """Check one case's channels, its label, and that they share one voxel grid; ``zscored``: the images
    will be z-score normalized, so a voxel that makes their spread on its own is told; ``channels_declared_in``:
    what declares ``num_channels`` (check_cases); ``channel_names``: the dataset's names of its channels, in order
    (``Manifest.channels``), which its grids' and units' errors say beside each channel file's index ("image channel
    1 (FLAIR) voxels are 3 x 3 x 3 mm", by its index alone until the hundred-and-twenty-third session, helper h125);
    the index alone where nothing names it."""
    # One file for several declared channels holds them along a fourth axis (MSD BrainTumour).
    volumes_per_file = num_channels if len(case.images) == 1 else 1
    roles = ["image" if len(case.images) == 1 else f"image channel {index}" for index in range(len(case.images))]
    files = list(zip(roles, case.images)) + ([("label", case.label)] if case.label is not None else [])
    if max_voxels is not None and over_budget(case.id, files, max_voxels, report):
        return  # opening the rest would decompress the very volume that does not fit

    channels: list[Volume] = []
    boxes: list[Box | None] = []
    flat_values: list[float | None] = []  # each image file's one value, where it holds one throughout
    # one file for the case: it holds every channel, named by no channel's name alone, or the one, named by its name
    # ("image (CT)": "image" alone until the hundred-and-twenty-third session, helper h127, where predict said
    # "channel 0 (CT)")
    names = channel_names if len(case.images) > 1 or num_channels == 1 else ()
    for index, (role, path) in enumerate(zip(roles, case.images)):
        image = open_volume(path, case.id, role, report, volumes_per_file, channels_declared_in, num_channels)
        if image is not None:
            tally.see_header(path, image)
            tally.see_image(path, image)
            spread = IntensitySpread() if zscored else None
            above_zero, minimum, flat_value = check_finite(path, image, f"{case.id} ({role})", report, spread)
            if spread is not None:
                tell_dominant_voxels(spread, image, path, f"{case.id} ({role})", report)
            boxes.append(above_zero)
            flat_values.append(flat_value)
            if crop_foreground and minimum <= _HOUNSFIELD_AIR:
                tally.hounsfield.append(f"{path} (minimum {minimum:g})")
            channels.append(channel_volume(role, path, image, names[index] if index < len(names) else ""))
    box = Box.union(boxes) if crop_foreground and channels else None
    if crop_foreground and channels and box is None:
        report.errors.append(
            f"{case.id}: {listed([volume.path for volume in channels])}: no image voxel is above 0, so "
            "data.crop_foreground (on for zscore) would crop the case to nothing; if the scan is blank, "
            "leave the case out; if its background is below 0 (normalised before), set "
            "data.crop_foreground: false")
    elif channels and None not in flat_values:  # a channel left empty (a missing sequence) beside others is not
        report.warnings.append(
            f"{case.id}: {listed([volume.path for volume in channels])}: the image holds one value throughout "
            f"({', '.join(f'{value:g}' for value in flat_values)}), so it holds nothing to learn from (normalized, it "
            "is all 0) and a validation case scores 0: re-export it, or leave the case out")

    label = open_volume(case.label, case.id, "label", report) if case.label is not None else None
    if label is not None:
        tally.see_header(case.label, label)
        outside, labelled = check_label_values(case.label, label, declared, f"{case.id} (label)", report, tally, box)
        if outside:
            tally.cropped_away.append(f"{case.id} {outside} of {labelled}")
    labelled_as = [Volume("label", case.label, label)] if label is not None and channels else []
    # Their units before their grids, the label's with the channels' (case_units): a channel in micrometres was told
    # to be resampled onto one grid, its voxels "2000 x 2000 x 4000 mm", and a label judged against channel 0 alone
    # trained unjudged in micrometres beside a channel 0 of no unit and a channel 1 in mm
    units = judge_units([*channels, *labelled_as], "one spacing", _CHANNEL_HINT, _RESAMPLE_HINT)
    report.errors.extend(f"{case.id} ({where}): {said}" for where, said in units.errors)

    # Every channel is fed to the network as one stacked tensor, so they must share a grid.
    for other in channels[1:]:
        if other.path in units.off:
            continue
        found = len(report.errors)
        check_same_grid(channels[0], other, f"{case.id} (image channels)", _CHANNEL_HINT, affine_atol, report)
        if len(report.errors) == found and (moved := stacking_shift(channels[0], other)):
            report.errors.append(f"{case.id} (image channels): {other.said} {other.path} and {channels[0].said} "
                                 f"{channels[0].path} are on different grids: {moved}; {_CHANNEL_HINT}")
    if labelled_as and case.label not in units.off:
        check_same_grid(
            channels[0], labelled_as[0], f"{case.id} (label vs image)", _RESAMPLE_HINT, affine_atol, report,
        )
