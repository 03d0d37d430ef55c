"""A case's channel files read together against the model's spacing, for predict: every voxel size all of them come
to under some reading of each (``data.case_readings``, the pre-flight check's reading of a training case) is weighed
against the spacing the model resamples to, in whatever unit it records, and the nearest told, with the lines that
put every file there in the model's unit; files that disagree (the units their headers declare for their voxel
sizes, or their numbers) and files alike whose unit is wrong alike are one error for the case. The pre-flight check,
and predict for a model of no spacing, have no spacing to weigh the readings by, and offer the one nearer 1 mm first.

Kept apart from ``data/case_readings.py``, whose helpers it borrows (``_lines``, ``_declaring``, ``_sizes``): that
file's bytes are part of the checking code that keys the pre-flight check's records (``check_records.CHECKING_CODE``),
so adding predict's reading there would have every dataset's cases read again at the next training launch. One
file's readings weighed against a spacing are ``data.spacing_readings``', which training's spacing checks share.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .data.case_readings import _declaring, _sizes
from .data.grid_agreement import Volume
from .data.spacing import far_finer
from .data.header_units import UNIT_MM, header_numbers, same_sizes, spatial_unit, unit_named
from .data.spacing_readings import lines_in, nearest_first, one_file_words, readings_in, spacing_said


def spacing_case_words(volumes: Sequence[Volume], spacing, refused: bool, model_unit: str | None,
                       mm_at_its_word: bool = False) -> str | None:
    """What predict says of a case of channel files (``volumes``), read together against the model's ``spacing``
    (its numbers in ``model_unit``, the unit its training cases declared, mm where it records none; None for a model
    that resamples nothing): every voxel size all of them come to under some reading of each
    (``whole_case_readings``, a file declaring mm read in the other units too, as a header declaring mm may be the
    wrong one), the one nearest the spacing told first where the spacing tells it (``nearest_first``), with the
    lines that put every file there in the model's unit, and the other ways after it; where it does not (or the model
    has no spacing), every way, the one nearer 1 mm first, as the pre-flight check of a training case offers them.

    A case of one file is read so alone (``_one_file_words``). None, the file-by-file judgement standing
    (``refused``: whether it refuses the case), where no reading fits them all (their voxels differ indeed: the
    grid's check tells), where the reading the
    spacing tells is each file's own unit (a header of none read in the model's) and the file-by-file lines rewrite
    each file in the model's unit from it (against a model recording a unit, or beside a file declaring its unit:
    not a model of no unit's channels in micrometres and metres alone, each told to be rewritten in the other's
    unit), and where the case is read right as it is and not refused; for a model of no spacing, where the files
    hold the same numbers (one grid, nothing resampled: their units matter to nothing), and where the reading nearer
    1 mm is their own units and the file-by-file judgement refuses them (its lines rewrite in mm from there).

    Until the hundred-and-fourteenth session (helper h72) predict judged each channel file against the model's unit,
    then against the first channel declaring one: channel 1 declaring micrometres on mm numbers beside a channel 0 in
    mm, for a model in mm, was told to be rewritten from micrometres first, after which the grid's check told it to be
    resampled onto channel 0's grid, 1,000 times apart; channel 1 of no unit on micrometre numbers beside one in mm
    was told only that (``benchmarks/results/predict_case_units_2026-12-06/``). Until the hundred-and-fifteenth
    (helper h78) files alike (the same unit and numbers), a model in micrometres or metres and a model of no spacing
    were judged file by file still: two channels declaring micrometres on mm numbers told `Rewrite each in mm`, 0.002
    mm voxels then; two of no unit on micrometre numbers refused by the host's memory with no line; for a model in
    micrometres a channel of no unit on mm numbers passed, read as micrometres; for a model of no spacing a channel
    in micrometres beside one in mm told to be resampled onto the first one's grid
    (``benchmarks/results/predict_case_units_alike_2026-12-06/``)."""
    target = model_unit if model_unit in UNIT_MM else "mm"  # the unit the model reads every file's numbers in
    if mm_at_its_word and target == "mm" and spacing is not None and far_finer(volumes[0].image, spacing) and all(
            spatial_unit(volume.image) == "mm" and same_sizes(header_numbers(volume.image),
                                                              header_numbers(volumes[0].image)) for volume in volumes):
        # the far finer check takes a header of mm at its word against a spacing set (micro-CT for a model trained
        # coarser on purpose), and judges it against the training cases' median there since the hundred-and-nineteenth
        # session (inference_reading._refuse_far_finer_than_the_cases, training's words): files declaring mm alike
        # at 0.002 mm, for a model in mm at 1.5 set, were told to be rewritten from metres (two files since h78, one
        # in helper h81 until this); files declaring mm on numbers that differ are still read together. Far finer
        # alone, as that check: files declaring mm on micrometre numbers (0.3 mm voxels written 300), 200 times
        # coarser, were taken at their word too and segmented resampled to 200 times their voxels along each axis,
        # until the review of h81
        return None
    if len(volumes) < 2:
        return _one_file_words(volumes[0], spacing, model_unit)
    numbers = np.array([header_numbers(volume.image) for volume in volumes])
    same_numbers = all(same_sizes(sizes, numbers[0]) for sizes in numbers)
    if spacing is None and same_numbers:  # one grid, nothing resampled: what their units say changes nothing
        return None
    if not (readings := readings_in(volumes, target)):
        return None
    own_units = [unit if unit in UNIT_MM else target for unit in (spatial_unit(volume.image) for volume in volumes)]
    if spacing is None:
        ordered, tells = readings, len(readings) == 1  # readings: the one nearer 1 mm first
        # the file-by-file refusal (a file of no unit beside one its unit's factor apart) says its lines put every
        # file in mm, under that reading first, and offers the other way where there is one
        if refused and ordered[0][1] == own_units:
            return None
    else:
        in_mm = np.asarray(spacing, dtype=float) * UNIT_MM[target][1]
        ordered, tells = nearest_first(readings, in_mm)
        # where the file-by-file lines rewrite every file in the model's unit (in mm for a model of none)
        to_model = model_unit is not None or target in own_units
        read_right = all(same_sizes(sizes * UNIT_MM[target][1], ordered[0][0]) for sizes in numbers)
        if tells and ((ordered[0][1] == own_units and to_model) or (read_right and not refused)):
            return None
        if not tells and not refused and same_numbers:
            return None
    said = f"{_spacing_heading(volumes, same_numbers)}: {_listing(volumes)}. Their numbers are "
    if same_numbers:
        said += "the same, and are read as they are, whatever the unit. "
    else:
        apart = float(np.max(numbers.max(axis=0) / np.maximum(numbers.min(axis=0), 1e-30)))
        times = f"{1000 ** max(1, round(np.log(apart) / np.log(1000))):,.0f} times"
        said += (f"read as they are, whatever the unit, so resampling them to the model's spacing would scale one "
                 f"{times} against another. " if spacing is not None else f"read as they are, whatever the unit, so "
                 f"their grids lie {times} apart, and the model, which resamples nothing (its spacing is null), "
                 f"takes one grid. ")
    # the files' own reading needs no line, said so as a file's alone is (spacing_readings): it was "...: ; or, ..."
    # until the hundred-and-twenty-fifth session's helper h136 (two channels declaring mm at 0.02 mm, a model at 2)
    ways = [(_sizes(sizes), _lines_or_none_needed(volumes, read, target)) for sizes, read in ordered]
    if len(ways) == 1:
        return (f"{said}Read together, every file's numbers come to one voxel size one way alone, {ways[0][0]} mm: "
                f"{ways[0][1]}")
    if spacing is None:
        return (f"{said}Read together, the files' numbers come to one voxel size {len(ways)} ways, and which is the "
                f"case's, the numbers cannot tell, nor the model, which has no spacing: check the voxel size the scans "
                "were acquired at. Where the voxels are " + "; or, where they are ".join(
                    f"{sizes} mm: {lines}" for sizes, lines in ways))
    model = spacing_said("the model's spacing", spacing, target)
    if tells:
        # a model's spacing is near its training cases' voxels, and a unit mix-up's readings are 1,000 times apart
        others = "".join(f"; or, where the voxels are {sizes} mm after all: {lines}" for sizes, lines in ways[1:])
        return (f"{said}Read together, the files' numbers come to one voxel size {len(ways)} ways, and {model} tells "
                f"which is the case's, the one nearest it, {ways[0][0]} mm: {ways[0][1]}{others}")
    ways = [(_sizes(sizes), _lines_or_none_needed(volumes, read, target))
            for sizes, read in readings]  # nearer 1 mm first
    return (f"{said}Read together, the files' numbers come to one voxel size {len(ways)} ways, and which is the "
            f"case's, neither the numbers nor {model} can tell: check the voxel size the scans were acquired at. "
            "Where the voxels are " + "; or, where they are ".join(f"{sizes} mm: {lines}" for sizes, lines in ways))



def _lines_or_none_needed(volumes, read, target: str) -> str:
    """``lines_in``, or, for the reading that is every file as its header declares it, that nothing is to change."""
    return lines_in(volumes, read, target) or "nothing to change, they are read so already"


def _one_file_words(volume: Volume, spacing, model_unit: str | None) -> str | None:
    """What predict says of a case of one file whose numbers the model's ``spacing`` (in ``model_unit``, which the
    model records) tells are in another unit than the file's own (its header's, the model's for a header of none):
    every reading of it, the nearest the spacing first with the line that puts the file there in the model's unit.
    Where the spacing tells none (it lies between two, or every reading is a hundred times off it) and the header
    declares another unit than the model's, every reading, the one nearer 1 mm first, with what to check, as for files
    read together. None where the model records no unit or spacing, where the spacing tells the file's own reading,
    or tells none of a file declaring the model's unit or none (the file-by-file judgement stands: a rewrite into the
    model's unit, the far finer or memory check, or nothing).

    Judged file by file until the hundred-and-fifteenth session (helper h81), a single file for a model in
    micrometres or metres was told a wrong line or none in 7 of its 16 kinds at 2 mm (``benchmarks/results/
    review_case_units_2026-12-06/one_file.py``): declaring micrometres on mm numbers for a model in micrometres,
    or metres for one in metres, it was refused by the far finer or the memory check, told "rewrite it in mm"; of no
    unit on mm numbers for a model in metres, the memory check's "micrometres where theirs were mm". For a model
    at 0.05 mm, between 2 and 0.002 mm, a file declaring micrometres on mm numbers was told `Rewrite it in mm` alone,
    0.002 mm voxels then. Its judgement is training's too since the hundred-and-sixteenth session (helper h84):
    ``spacing_readings.one_file_words``."""
    if spacing is None or model_unit not in UNIT_MM:
        return None
    return one_file_words(volume, spacing, model_unit, "the model's spacing", "the model's training cases'",
                          " (its config.json's spacing_unit)")


def _spacing_heading(volumes, same_numbers: bool) -> str:
    """The first words of ``spacing_case_words``: the units the case's files declare, or, one unit, that their
    numbers differ, or that they are alike (one unit, the same numbers)."""
    if len({unit_named(volume.image) for volume in volumes}) == 1:
        named = unit_named(volumes[0].image)
        if same_numbers:
            return (f"every one of the case's files declares {'no unit' if named == 'none' else named} for its voxel "
                    f"sizes (xyzt_units), on the same numbers")
        return (f"the voxel sizes of the case's files differ as their headers hold them, every one declaring "
                f"{'no unit' if named == 'none' else named} (xyzt_units)")
    if any(spatial_unit(volume.image) == "mm" for volume in volumes):
        return f"the case's files declare different units for their voxel sizes (xyzt_units), {_declaring(volumes)}"
    return f"none of the case's files declares mm for its voxel sizes (xyzt_units), {_declaring(volumes)}"


def _listing(volumes) -> str:
    return "; ".join(f"{volume.path} ({volume.in_brackets}): {unit_named(volume.image)}" for volume in volumes)
