"""One file's voxel sizes read in each unit a mix-up makes, weighed against a target spacing: which reading the
spacing tells (ten times nearer it than the next, less than a hundred times off it), and the words and nibabel lines
that put the file there in the spacing's unit. One judgement for predict (the model's spacing and ``spacing_unit``:
``inference_case_units``) and for training's pre-flight (``data.spacing`` or the training cases' median, in the unit
the cases declare: ``spacing.check_resampled_sizes``), which said other things of the same file against the same
spacing until the hundred-and-sixteenth session (helper h84): a case declaring mm on micrometre numbers (2 mm voxels
written 2000), among cases in mm at 2 mm, was told by training "data.spacing is 1,000 times finer than its voxels
(given in metres? it is in mm)", or, against the median, that most headers were in metres, where predict told its
micrometre reading and the line from micrometres (``benchmarks/results/units_train_vs_predict_2026-12-06/``).

Not in ``check_records.CHECKING_CODE``: the spacing's checks run from the headers at every launch, never recalled.
"""

from __future__ import annotations

import numpy as np

from .case_readings import _lines, _sizes, readings_of, whole_case_readings
from .grid_agreement import Volume
from .header_units import (UNIT_MM, and_listed, declare_code, header_numbers, off_1mm, rewrite_code, same_sizes,
                           spatial_unit, unit_named)
from .spacing import FINER_THAN_THE_TARGET

#: How many times nearer a target spacing one reading must come than the next for the spacing to tell it: readings
#: are a unit's factor apart (1,000 times at least), so ten times nearer is no rounding, while a spacing between two
#: (a model at 0.05 mm, readings of 2 and 0.002 mm) tells neither
SPACING_TELLS = 10.0

#: How far off the spacing the nearest reading may be and still be told: the far finer check refuses voxels a hundred
#: times finer (``spacing.FINER_THAN_THE_TARGET``), and no model is trained a hundred times off its own cases' voxels;
#: a reading that far off was "told" where the next one was ten times farther still, or where it was the only one
#: (until the hundred-and-fifteenth session, helper h81)
TOLD_WITHIN = FINER_THAN_THE_TARGET

#: The voxel sizes scans are acquired at, in mm: micro-CT's 10 micrometres to thick slices' and radiotherapy grids'
#: 10 mm. Where the spacing may be the one off, a reading is told only where it lies no farther outside them than
#: the file's own (``one_file_words``' ``scan_sized_only``): "nearer 1 mm than the file's own" (helper h84) told
#: micro-CT at 0.02 mm written in micrometres under mm (20) nothing, as 20 mm is nearer 1 mm, and training said
#: its data.spacing was "given in metres?" (the review of h84, r72)
SCAN_SIZES_MM = (0.01, 10.0)


def nearest_first(readings, in_mm) -> tuple[list, bool]:
    """``readings`` ordered nearest the spacing ``in_mm`` first, and whether the spacing tells the first: ten times
    nearer it than the next (``SPACING_TELLS``) and less than a hundred times off it (``TOLD_WITHIN``)."""
    ordered = sorted(readings, key=lambda reading: _off(reading[0], in_mm))
    # exactly ten times nearer tells too: log(100) - log(10) falls a rounding short of log(10) (a model at 0.2 mm,
    # readings of 2 and 0.002 mm, was told neither until the review of h72)
    apart = len(ordered) == 1 or _off(ordered[1][0], in_mm) - _off(ordered[0][0], in_mm) >= np.log(
        SPACING_TELLS) - 1e-9
    return ordered, apart and _off(ordered[0][0], in_mm) < np.log(TOLD_WITHIN)


def readings_in(volumes, target: str) -> list[tuple[object, list[str]]]:
    """``whole_case_readings`` of ``volumes`` (a file declaring mm read in the other units too), and, for a spacing in
    metres (``target``), those where files of no unit hold metres, as such a model reads them: ``readings_of`` reads a
    file of no unit in mm or micrometres alone, so two channels of no unit on metre numbers (or one beside a file
    declaring metres), at 2 mm for a model at 0.0015 m, came to 0.002 mm or less, were told the "nearest" and to be
    rewritten from mm in metres, 0.002 mm voxels then, a case that passed before (the review of h78)."""
    readings = whole_case_readings(volumes, mm_at_its_word=False)
    if target in ("mm", "micron") or all(spatial_unit(volume.image) in UNIT_MM for volume in volumes):
        return readings
    # the files of no unit in the target's unit, each declaring one in the reading of it that comes to their size
    in_target = [header_numbers(volume.image) * UNIT_MM[target][1] for volume in volumes
                 if spatial_unit(volume.image) not in UNIT_MM]
    if not all(same_sizes(sizes, in_target[0]) for sizes in in_target):
        return readings
    units = []
    for volume in volumes:
        if spatial_unit(volume.image) not in UNIT_MM:
            units.append(target)
            continue
        units.append(next((unit for unit, read in readings_of(volume, mm_at_its_word=False)
                           if same_sizes(read, in_target[0])), None))
    if None in units or any(same_sizes(sizes, in_target[0]) for sizes, _ in readings):
        return readings
    return sorted([*readings, (in_target[0], units)], key=lambda reading: off_1mm(reading[0]))


def lines_in(volumes, read, target: str) -> str:
    """The nibabel lines that put each file in ``target``, the unit its numbers are read in, at the size it comes to
    when its numbers are in ``read``'s unit: ``case_readings._lines`` for mm; for micrometres or metres, a rewrite
    from that unit into the target's, or, its numbers in the target's unit, that unit declared (the readings put
    every file in mm, which a model in micrometres or metres refuses, until h78)."""
    if target == "mm":
        return _lines(volumes, read)
    lines: dict[tuple, list] = {}
    for volume, unit in zip(volumes, read):
        if unit == spatial_unit(volume.image) == target:  # at that size in the target's unit already: no line
            continue
        lines.setdefault((unit, spatial_unit(volume.image)), []).append(volume.path)
    said, named = [], UNIT_MM[target][0]
    for (unit, declared), paths in lines.items():
        its = "its" if len(paths) == 1 else "their"
        # what the line says of the file's numbers where its header declares another unit than they are in
        under = "" if declared == unit else f", {its} numbers {UNIT_MM[unit][0]} under " + (
            f"a header of {UNIT_MM[declared][0]}" if declared in UNIT_MM else "no unit")
        if unit == target:
            said.append(f"declare {and_listed(paths)} {named}{under} (nibabel: {declare_code(target)})")
        else:
            said.append(f"rewrite {and_listed(paths)} from {UNIT_MM[unit][0]} in {named}{under} (nibabel: "
                        f"{rewrite_code(f'{UNIT_MM[unit][1] / UNIT_MM[target][1]:g}', target)})")
    return "; ".join(said)


def spacing_said(source: str, spacing, target: str) -> str:
    """``source`` ("the model's spacing", "data.spacing") and ``spacing`` in its numbers, named in ``target`` where
    that is not mm."""
    return f"{source} {' x '.join(f'{size:g}' for size in spacing)}" + (
        "" if target == "mm" else f" {UNIT_MM[target][0]}")


def one_file_words(volume: Volume, spacing, target: str, source: str, cases: str, recorded: str = "",
                   what: str = "scan", scan_sized_only: bool = False) -> str | None:
    """What is said of one file (``volume``) whose numbers ``spacing`` (``source``'s, in ``target``: the unit the
    files it was taken from declare, read in) tells are in another unit than the file's own (its header's, the
    target's for a header of none): every reading of it, the nearest the spacing first with the line that puts the
    file there in the target's unit. Where the spacing tells none (it lies between two, or every reading is a
    hundred times off it) and the header declares another unit than the target's, every reading, the one nearer 1
    mm first, with what to check. None where the spacing tells the file's own reading, or tells none of a file
    declaring the target's unit or none (the caller's own judgement stands). ``cases``: whose unit ``target`` is,
    "the model's training cases'", and ``recorded``, where it is recorded, " (its config.json's spacing_unit)";
    ``what``: the file, "scan" or "case". ``scan_sized_only``: a reading is told only where it lies no farther
    outside the sizes scans are acquired at (``SCAN_SIZES_MM``) than the file's own, where ``spacing`` may be the one
    off (training's: a median of cases whose unit may be wrong, or a data.spacing given in another unit): against a
    median of cases mostly in metres (0.002 mm), or a data.spacing of 0.002 given so, a case in mm was told its
    "micrometre reading", 0.002 mm (a first try of helper h84), where the spacing is the one off, which its caller
    says then (``spacing._in_metres``)."""
    readings = readings_in([volume], target)
    own = spatial_unit(volume.image) if spatial_unit(volume.image) in UNIT_MM else target
    ordered, tells = nearest_first(readings, np.asarray(spacing, dtype=float) * UNIT_MM[target][1])
    if (ordered[0][1] == [own]) if tells else (own == target):  # told its own reading; or none, of its unit
        return None
    if scan_sized_only and (not tells or beyond_scans(ordered[0][0]) > min(beyond_scans(sizes) for sizes, read
                                                                            in readings if read == [own])):
        return None
    # the reading in the target's unit as declared needs no line: the file is read so as it is
    ways = [(_sizes(sizes), lines_in([volume], read, target) or "nothing to change, it is read so already")
            for sizes, read in (ordered if tells else readings)]  # readings: the one nearer 1 mm first
    named = unit_named(volume.image)
    declared = f"as {cases} do" if spatial_unit(volume.image) == target else f"{cases} {UNIT_MM[target][0]}"
    said = (f"{volume.path}: its header declares {'no unit' if named == 'none' else named} for its voxel sizes "
            f"(xyzt_units), {declared}{recorded}. Its numbers are read as they are, whatever the unit: read in each "
            f"unit they come to {len(ways)} voxel sizes, and ")
    spacing_named = spacing_said(source, spacing, target)
    if not tells:
        return (f"{said}which is the {what}'s, neither the numbers nor {spacing_named} can tell: check the voxel size "
                "it was acquired at. Where the voxels are " + "; or, where they are ".join(
                    f"{sizes} mm: {lines}" for sizes, lines in ways))
    others = "".join(f"; or, where the voxels are {sizes} mm after all: {lines}" for sizes, lines in ways[1:])
    return (f"{said}{spacing_named} tells which is the {what}'s, the one nearest it, {ways[0][0]} mm: "
            f"{ways[0][1]}{others}")


def beyond_scans(sizes) -> float:
    """How far voxel sizes in mm lie outside ``SCAN_SIZES_MM``, in log, by the largest factor along an axis: 0 where
    every axis is within them."""
    logs = np.log(np.maximum(np.asarray(sizes, dtype=float), 1e-30))
    finest, coarsest = np.log(SCAN_SIZES_MM)
    return float(np.maximum(np.maximum(finest - logs, logs - coarsest), 0.0).max())


def _off(sizes, spacing) -> float:
    """How far voxel sizes in mm are from ``spacing`` by the largest factor along an axis."""
    return off_1mm(np.maximum(np.asarray(sizes, dtype=float), 1e-30) / np.asarray(spacing, dtype=float))
