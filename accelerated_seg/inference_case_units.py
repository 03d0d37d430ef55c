"""A case's channel files read together against the model's spacing, for predict: where they disagree (the units
their headers declare for their voxel sizes, or their numbers), every voxel size all of them come to under some
reading of each (``data.case_readings``, the pre-flight check's reading of a training case) is weighed against the
spacing the model resamples to, and the nearest told, with the lines that put every file there. The pre-flight check
has no spacing to weigh the readings by, and offers the one nearer 1 mm first.

Kept apart from ``data/case_readings.py``, whose helpers it borrows (``_lines``, ``_declaring``, ``_sizes``): that
file's bytes are part of the checking code that keys the pre-flight check's records (``check_records.CHECKING_CODE``),
so adding predict's reading there would have every dataset's cases read again at the next training launch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .data.case_readings import _declaring, _lines, _sizes, whole_case_readings
from .data.grid_agreement import Volume
from .data.header_units import UNIT_MM, header_numbers, off_1mm, same_sizes, spatial_unit, unit_named

#: How many times nearer a model's spacing one reading of a case must come than the next for the spacing to tell it:
#: readings are a unit's factor apart (1,000 times at least), so ten times nearer is no rounding, while a spacing
#: between two (a model at 0.05 mm, readings of 2 and 0.002 mm) tells neither
_SPACING_TELLS = 10.0


def spacing_case_words(volumes: Sequence[Volume], spacing, refused: bool, model_unit: str | None) -> str | None:
    """What predict says of a case whose channel files (``volumes``) disagree, in the units they declare or in their
    numbers, read together against the model's ``spacing`` (in mm, as a model recording no unit is read): every voxel
    size all of them come to under some reading of each (``whole_case_readings``, a file declaring mm read in the
    other units too, as a header declaring mm may be the wrong one), the one nearest the spacing told first where the
    spacing tells it (``_SPACING_TELLS``), with the lines that put every file there, and the other ways after it; where
    it does not, every way, the one nearer 1 mm first, as the pre-flight check of a training case offers them.
    ``model_unit``: the unit the model's training cases declared (mm, or None where it records none).

    None, the file-by-file judgement standing (``refused``: whether it refuses the case), where the files agree (the
    same unit and numbers: a case of one file is judged alone, and so such a case), where no reading fits them all
    (their voxels differ indeed: the grid's check tells), where the reading the spacing tells is each file's own unit
    (a header of none read as mm) and the file-by-file lines rewrite each file in mm from it (against a model in mm,
    or beside a file declaring mm or none: not a model of no unit's channels in micrometres and metres alone, each
    told to be rewritten in the other's unit), and where the case is read right as it is and not refused.

    Until the hundred-and-fourteenth session (helper h72) predict judged each channel file against the model's unit,
    then against the first channel declaring one: channel 1 declaring micrometres on mm numbers beside a channel 0 in
    mm, for a model in mm, was told to be rewritten from micrometres first, after which the grid's check told it to be
    resampled onto channel 0's grid, 1,000 times apart; channel 1 of no unit on micrometre numbers beside one in mm
    was told only that (``benchmarks/results/predict_case_units_2026-12-06/``)."""
    if len(volumes) < 2 or all(spatial_unit(volume.image) == spatial_unit(volumes[0].image) and same_sizes(
            header_numbers(volume.image), header_numbers(volumes[0].image)) for volume in volumes):
        return None
    if not (readings := whole_case_readings(volumes, mm_at_its_word=False)):
        return None
    by_spacing = sorted(readings, key=lambda reading: _off(reading[0], spacing))
    # exactly ten times nearer tells too: log(100) - log(10) falls a rounding short of log(10) (a model at 0.2 mm,
    # readings of 2 and 0.002 mm, was told neither until the review of h72)
    tells = len(by_spacing) == 1 or _off(by_spacing[1][0], spacing) - _off(by_spacing[0][0], spacing) >= np.log(
        _SPACING_TELLS) - 1e-9
    declared = [spatial_unit(volume.image) for volume in volumes]
    own_units = [unit if unit in UNIT_MM else "mm" for unit in declared]
    to_mm = model_unit == "mm" or "mm" in own_units  # where the file-by-file lines rewrite every file in mm
    read_right = all(same_sizes(header_numbers(volume.image), by_spacing[0][0]) for volume in volumes)
    if tells and ((by_spacing[0][1] == own_units and to_mm) or (read_right and not refused)):
        return None
    numbers = np.array([header_numbers(volume.image) for volume in volumes])
    if not tells and not refused and all(same_sizes(sizes, numbers[0]) for sizes in numbers):
        return None
    said = f"{_spacing_heading(volumes)}: {_listing(volumes)}. Their numbers are "
    if all(same_sizes(sizes, numbers[0]) for sizes in numbers):
        said += "the same, and are read as they are, whatever the unit. "
    else:
        apart = float(np.max(numbers.max(axis=0) / np.maximum(numbers.min(axis=0), 1e-30)))
        said += (f"read as they are, whatever the unit, so resampling them to the model's spacing would scale one "
                 f"{1000 ** max(1, round(np.log(apart) / np.log(1000))):,.0f} times against another. ")
    model = f"the model's spacing {' x '.join(f'{size:g}' for size in spacing)}"
    ordered = by_spacing if tells else readings  # readings: the one nearer 1 mm first
    ways = [(_sizes(sizes), _lines(volumes, read)) for sizes, read in ordered]
    if len(ways) == 1:
        return (f"{said}Read together, every file's numbers come to one voxel size one way alone, {ways[0][0]} mm: "
                f"{ways[0][1]}")
    if tells:
        # a model's spacing is near its training cases' voxels, and a unit mix-up's readings are 1,000 times apart
        others = "".join(f"; or, where the voxels are {sizes} mm after all: {lines}" for sizes, lines in ways[1:])
        return (f"{said}Read together, the files' numbers come to one voxel size {len(ways)} ways, and {model} tells "
                f"which is the case's, the one nearest it, {ways[0][0]} mm: {ways[0][1]}{others}")
    return (f"{said}Read together, the files' numbers come to one voxel size {len(ways)} ways, and which is the "
            f"case's, neither the numbers nor {model} can tell: check the voxel size the scans were acquired at. "
            "Where the voxels are " + "; or, where they are ".join(f"{sizes} mm: {lines}" for sizes, lines in ways))


def _off(sizes, spacing) -> float:
    """How far voxel sizes in mm are from ``spacing`` by the largest factor along an axis."""
    return off_1mm(np.maximum(np.asarray(sizes, dtype=float), 1e-30) / np.asarray(spacing, dtype=float))


def _spacing_heading(volumes) -> str:
    """The first words of ``spacing_case_words``: the units the case's files declare, or, one unit, that their
    numbers differ."""
    if len({unit_named(volume.image) for volume in volumes}) == 1:
        named = unit_named(volumes[0].image)
        return (f"the voxel sizes of the case's files differ as their headers hold them, every one declaring "
                f"{'no unit' if named == 'none' else named} (xyzt_units)")
    if any(spatial_unit(volume.image) == "mm" for volume in volumes):
        return f"the case's files declare different units for their voxel sizes (xyzt_units), {_declaring(volumes)}"
    return f"none of the case's files declares mm for its voxel sizes (xyzt_units), {_declaring(volumes)}"


def _listing(volumes) -> str:
    return "; ".join(f"{volume.path} ({volume.role}): {unit_named(volume.image)}" for volume in volumes)
