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

#: The voxel sizes scans are acquired at, in mm: a synchrotron's (SR-micro-CT) 0.3 micrometres to thick slices' and
#: radiotherapy grids' 10 mm. Where the spacing may be the one off, a reading is told only where it lies no farther
#: outside them, and outside ``SCAN_EXTENTS_MM``, than the file's own (``one_file_words``' ``scan_sized_only``):
#: "nearer 1 mm than the file's own" (helper h84) told micro-CT at 0.02 mm written in micrometres under mm (20)
#: nothing, and training said its data.spacing was "given in metres?" (the review of h84, r72); from then to the
#: hundred-and-seventeenth session (helper h88) the sizes began at micro-CT's 10 micrometres, which told micro-CT at
#: 5 micrometres (0.005 mm) the same, 0.005 mm lying farther outside them than 5 mm
#: (``benchmarks/results/units_edges_2026-12-06/``). Voxel sizes alone cannot tell such micro-CT from a CT in
#: metres read as mm (1 mm voxels written 0.001): both lie within; the extent does (``SCAN_EXTENTS_MM``)
SCAN_SIZES_MM = (0.0003, 10.0)

#: How far across a scan reaches along its longest axis, in mm: from a synchrotron's fields of view (2048 pixels of
#: 0.3 micrometres, 0.6 mm; 0.1 mm leaves room for nano-CT) to a whole body (2 m). What tells micro-CT from metres
#: read as mm: a 512^3 micro-CT of 5 micrometre voxels is 2.56 mm across, and read in mm (5 mm voxels) 2,560 mm,
#: no body; a CT of 1 mm voxels written in metres (0.001) is 0.5 mm across, which a synchrotron's scan may be too,
#: so where both readings are a scan's the spacing is told first with a doubt (``spacing_doubted``), not asserted
SCAN_EXTENTS_MM = (0.1, 2000.0)


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
    outside the sizes and extents scans are acquired at (``SCAN_SIZES_MM``, ``SCAN_EXTENTS_MM``) than the file's own,
    where ``spacing`` may be the one off (training's: a median of cases whose unit may be wrong, or a data.spacing
    given in another unit): against a median of cases mostly in metres (0.002 mm), or a data.spacing of 0.002 given
    so, a case in mm was told its "micrometre reading", 0.002 mm (a first try of helper h84), where the spacing is
    the one off, which its caller says then (``spacing._in_metres``); where both readings are a scan's, the
    spacing's is told with that doubt (``spacing_doubted``)."""
    readings, own, ordered, tells = _weighed(volume, spacing, target)
    if (ordered[0][1] == [own]) if tells else (own == target):  # told its own reading; or none, of its unit
        return None
    doubted = False
    if scan_sized_only:
        told_or_doubted = _scan_sized_reading(volume, readings, ordered, tells, own)
        if told_or_doubted is None:
            return None
        doubted = told_or_doubted == "doubted"
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
    # both a scan's: the spacing's reading first, as predict tells it, but the doubt said, not the answer asserted
    doubt = (f", unless {spacing_named} is the one off itself (its numbers read in {UNIT_MM[own][0]} are a scan's "
             f"too, {_across(own_sizes(readings, own), volume.image.shape)}: check the voxel size it was acquired "
             "at)") if doubted else ""
    return (f"{said}{spacing_named} tells which is the {what}'s, the one nearest it, {ways[0][0]} mm{doubt}: "
            f"{ways[0][1]}{others}")


def spacing_doubted(volume: Volume, spacing, target: str) -> bool:
    """Whether the reading of ``volume``'s numbers that ``spacing`` (in ``target``) tells, other than its own, and
    its own reading are both a scan's (``SCAN_SIZES_MM``, ``SCAN_EXTENTS_MM``): where the spacing may be the one off
    (training's), which of the two is the file's the header cannot tell, so its caller offers the spacing's way too
    (``spacing._told_reading``)."""
    readings, own, ordered, tells = _weighed(volume, spacing, target)
    return ordered[0][1] != [own] and _scan_sized_reading(volume, readings, ordered, tells, own) == "doubted"


def _weighed(volume: Volume, spacing, target: str) -> tuple[list, str, list, bool]:
    """``volume``'s readings (``readings_in``), its own unit (its header's, ``target`` for a header of none), its
    readings nearest ``spacing`` (in ``target``) first, and whether the spacing tells the first
    (``nearest_first``)."""
    readings = readings_in([volume], target)
    own = spatial_unit(volume.image) if spatial_unit(volume.image) in UNIT_MM else target
    return readings, own, *nearest_first(readings, np.asarray(spacing, dtype=float) * UNIT_MM[target][1])


def _scan_sized_reading(volume: Volume, readings, ordered, tells: bool, own: str) -> str | None:
    """Whether the reading the spacing tells (``ordered``' first, where it ``tells``) is told where the spacing may
    be the one off: "told" where it lies nearer the sizes and extents of scans than the file's own reading
    (``beyond_scans``), "doubted" where both are a scan's and the reading told is the finer (the spacing finer than
    the file's own voxels, as one given in metres is), None where the file's own lies nearer (the spacing the one
    off: a median of cases mostly in metres, a data.spacing given in metres) or the spacing tells none. A reading
    told coarser than the file's own (a case declaring micrometres on mm numbers among cases in mm) is told without
    the doubt: the file's own reading is offered after it, and a spacing 1,000 times too coarse is a median's
    (``spacing._median_in_micrometres``), which training judges apart."""
    if not tells:
        return None
    shape = volume.image.shape[:3]
    told_sizes, mine_sizes = ordered[0][0], own_sizes(readings, own)
    told, mine = beyond_scans(told_sizes, shape), beyond_scans(mine_sizes, shape)
    if told > mine:
        return None
    finer = bool(np.all(np.asarray(told_sizes) < np.asarray(mine_sizes)))
    return "doubted" if told == mine == 0 and finer else "told"


def own_sizes(readings, own: str):
    """The voxel sizes in mm of the reading of one file in its own unit (``own``) among ``readings``."""
    return min((sizes for sizes, read in readings if read == [own]), key=off_1mm)


def _across(sizes, shape) -> str:
    """``sizes`` and how far across they make a scan of ``shape`` along its longest axis, in words."""
    return f"{_sizes(sizes)} mm, {_longest(sizes, shape):g} mm across"


def _longest(sizes, shape) -> float:
    """How far a scan of ``shape`` voxels of ``sizes`` reaches along its longest axis of several voxels, in mm."""
    several = [size * count for size, count in zip(sizes, (*shape, 1, 1)[:3]) if count > 1]
    return float(max(several, default=0.0))


def beyond_scans(sizes, shape=None) -> float:
    """How far voxel sizes in mm lie outside ``SCAN_SIZES_MM``, in log, by the largest factor along an axis, and,
    given the file's ``shape``, how far its longest axis of several voxels lies outside ``SCAN_EXTENTS_MM``: 0
    where both are within them. An axis of a single voxel (a 2D file's slice) is left out where the shape is
    given."""
    sizes = np.maximum(np.asarray(sizes, dtype=float), 1e-30)
    several = np.asarray((*shape, 1, 1)[:3]) > 1 if shape is not None else None
    logs = np.log(sizes[several] if several is not None and several.any() else sizes)
    finest, coarsest = np.log(SCAN_SIZES_MM)
    beyond = float(np.maximum(np.maximum(finest - logs, logs - coarsest), 0.0).max())
    if several is None or not several.any():
        return beyond
    across = np.log(_longest(sizes, shape))
    nearest, farthest = np.log(SCAN_EXTENTS_MM)
    return max(beyond, nearest - across, across - farthest)


def _off(sizes, spacing) -> float:
    """How far voxel sizes in mm are from ``spacing`` by the largest factor along an axis."""
    return off_1mm(np.maximum(np.asarray(sizes, dtype=float), 1e-30) / np.asarray(spacing, dtype=float))
