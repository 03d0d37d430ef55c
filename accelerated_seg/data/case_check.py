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
from accelerated_seg.data.grid_agreement import Volume, check_same_grid, stacking_shift
from accelerated_seg.data.header_units import (channel_in_another_unit, channel_units_words, spatial_unit,
                                               unit_likely_apart)
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
    zscored: bool = False, channels_declared_in: str = "the dataset",
) -> None:
    """Check one case's channels, its label, and that they share one voxel grid; ``zscored``: the images
    will be z-score normalized, so a voxel that makes their spread on its own is told; ``channels_declared_in``:
    what declares ``num_channels`` (check_cases)."""
    # One file for several declared channels holds them along a fourth axis (MSD BrainTumour).
    volumes_per_file = num_channels if len(case.images) == 1 else 1
    roles = ["image" if len(case.images) == 1 else f"image channel {index}" for index in range(len(case.images))]
    files = list(zip(roles, case.images)) + ([("label", case.label)] if case.label is not None else [])
    if max_voxels is not None and over_budget(case.id, files, max_voxels, report):
        return  # opening the rest would decompress the very volume that does not fit

    channels: list[Volume] = []
    boxes: list[Box | None] = []
    flat_values: list[float | None] = []  # each image file's one value, where it holds one throughout
    for role, path in zip(roles, case.images):
        image = open_volume(path, case.id, role, report, volumes_per_file, channels_declared_in)
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
            channels.append(Volume(role, path, image))
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

    # Every channel is fed to the network as one stacked tensor, so they must share a grid.
    units = _UnitsApart(case.id, report)
    for index, other in enumerate(channels[1:], start=1):
        if units.told_apart(other, _first_declaring_a_unit(channels[:index])):
            continue
        if said := _unit_likely_apart(other, channels[0], _CHANNEL_HINT):
            report.errors.append(f"{case.id} (image channels): {said}")
            continue
        found = len(report.errors)
        check_same_grid(channels[0], other, f"{case.id} (image channels)", _CHANNEL_HINT, affine_atol, report)
        if len(report.errors) == found and (moved := stacking_shift(channels[0], other)):
            report.errors.append(f"{case.id} (image channels): {other.role} {other.path} and {channels[0].role} "
                                 f"{channels[0].path} are on different grids: {moved}; {_CHANNEL_HINT}")

    if case.label is None:
        return
    label = open_volume(case.label, case.id, "label", report)
    if label is None:
        return
    tally.see_header(case.label, label)
    outside, labelled = check_label_values(case.label, label, declared, f"{case.id} (label)", report, tally, box)
    if outside:
        tally.cropped_away.append(f"{case.id} {outside} of {labelled}")
    labelled_as = Volume("label", case.label, label)
    # before the grids: a label in micrometres was told to be resampled onto the image's grid, its own in another
    # unit, and one declaring micrometres with the image's numbers trained unjudged. Against the first channel alone,
    # as its grid is: another channel off is that channel's error, said above (with the label's, where the label
    # declares that channel's unit against the first: one error)
    if not channels or units.told_apart(labelled_as, channels[0]):
        return
    if said := _unit_likely_apart(labelled_as, channels[0], _RESAMPLE_HINT):
        report.errors.append(f"{case.id} (label vs image): {said}")
    else:
        check_same_grid(
            channels[0], labelled_as, f"{case.id} (label vs image)", _RESAMPLE_HINT, affine_atol, report,
        )


def _first_declaring_a_unit(channels: list[Volume]) -> Volume | None:
    """The first of ``channels`` whose header declares a unit (a header declaring none agrees with any), None where
    none does: the one a later channel's unit is judged against."""
    return next((volume for volume in channels if spatial_unit(volume.image) != "unknown"), None)


class _UnitsApart:
    """A case's files whose headers declare another unit than the file each is judged against, before their grids
    (a channel against the first channel declaring a unit, the label against channel 0): one error for each such
    file and unit, naming every file of that unit, in the place of the first one's error.

    Each was its own error until the hundred-and-tenth session: a case whose channel 0 alone was in micrometres was
    refused twice, its channel 1 and its label each against it, and a channel after one in micrometres was judged
    against that one (channel 2 in mm, as channel 0, said to be off against channel 1). A channel in micrometres
    beside one in mm was told to be resampled onto one grid (voxels "2000 x 2000 x 4000 mm"), and one declaring
    micrometres with the other's numbers trained unjudged, each case's first image alone judged for its unit, until
    the hundred-and-seventh session's review; a label's refusal was the grid's. Predict judges a case's channels so
    (``inference._refuse_channel_units``), with the same helper."""

    def __init__(self, case_id: str, report: CheckReport):
        self.case_id, self.report = case_id, report
        # (judged against, unit) -> (its error's index, the file judged against, the files of that unit)
        self.apart: dict[tuple, tuple[int, Volume, list[Volume]]] = {}
        # the files judged that declare the unit of the file they were judged against: named with it where the
        # other way round is offered, since rewriting that file alone would leave them off (the hundred-and-tenth
        # session's review: "where channel 0 is the one off", channel 1 in its unit too)
        self.agreeing: list[Volume] = []

    def told_apart(self, other: Volume, against: Volume | None) -> bool:
        """Whether ``other``'s header declares another unit than ``against``'s: its error said (with the others of
        its unit against that file, where there are some), its grid not to be judged."""
        if against is None:
            return False
        if channel_in_another_unit(other.image, [(against.path, against.image)]) is None:
            if spatial_unit(other.image) == spatial_unit(against.image) != "unknown":
                self.agreeing.append(other)
                self._say()
            return False
        key = (against.path, spatial_unit(other.image))
        index, _, files = self.apart.get(key, (len(self.report.errors), against, []))
        if not files:
            self.report.errors.append("")  # its place, in the order of the case's errors
        files.append(other)
        self.apart[key] = index, against, files
        self._say()
        return True

    def _say(self) -> None:
        """Each error (re)written with the files known so far."""
        for index, against, files in self.apart.values():
            labelled = any(volume.role == "label" for volume in files)
            where = ("label vs image" if len(files) == 1 and labelled
                     else "image channels and label" if labelled else "image channels")
            beside_role = f"the case's {against.role}" if labelled else "a channel of the same case"
            beside_alike = [volume.path for volume in self.agreeing
                            if spatial_unit(volume.image) == spatial_unit(against.image)]
            self.report.errors[index] = f"{self.case_id} ({where}): " + channel_units_words(
                files[0].path, files[0].image, against.path, against.image, "one spacing", beside_role,
                alike=[volume.path for volume in files[1:]], beside_alike=beside_alike)


def _unit_likely_apart(other: Volume, first: Volume, otherwise: str) -> str | None:
    """What is wrong with a file declaring no unit beside one declaring micrometres or metres (either way round),
    their voxel sizes that unit's factor apart: told to be resampled onto one grid until the hundred-and-seventh
    session, the grid difference being the unit's (``header_units.unit_likely_apart``)."""
    return unit_likely_apart(other.path, other.image, first.path, first.image, f"the case's {first.role}", otherwise)
