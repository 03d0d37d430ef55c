"""A case's likeliest voxel sizes read as a whole, where none of its files declares mm (``xyzt_units``): the
readings of every file's numbers under which all of them come to one voxel size, and the lines that rewrite or
declare each file so. ``case_units.judge_units`` says them where its file-by-file judgement leaves a file off; beside
a file declaring mm, taken at its word, only where a file in the unit of the first declaring one is left to its grid
(h71).

Each file's numbers may be read in the unit its header declares (a header of no unit: mm, the unit such a file is
read in), or, that unit wrong, the ways a unit mix-up makes (a declared unit on numbers that are mm, or in the other
of micrometres and metres; numbers of no unit that are micrometres, as a microscope writes them:
``case_units._numbers_of_none``'s two readings of a file of no unit). A reading of the case is one voxel size
every file comes to; where two do, the numbers cannot tell which is the case's, and both are offered, the one
nearer 1 mm first (``off_1mm``), as scans' voxels are.

Until the hundred-and-thirteenth session (helper h68) each file was judged against the first declaring a unit: 78 of
the 512 unit combinations of ``benchmarks/results/case_units_2026-12-05/every_unit_combination.py``, every one
without a file declaring mm, were offered first lines that left a file off its true voxel size (channel 0 of no
unit, channel 1 in micrometres, a label in metres on mm numbers: the label told to be rewritten from metres, 2,000
mm voxels).
"""

from __future__ import annotations

from collections.abc import Sequence

from accelerated_seg.data.grid_agreement import Volume
from accelerated_seg.data.header_units import (UNIT_MM, and_listed, counted, declare_code, header_numbers, off_1mm,
                                               rewrite_code, same_sizes, spatial_unit, times_apart, unit_named)


def readings_of(volume: Volume, mm_at_its_word: bool = True) -> list[tuple[str, object]]:
    """The ways ``volume``'s numbers may be read, each (the unit its numbers are in, its voxel sizes in mm): the
    unit its header declares first (that of no unit, mm), then those a unit mix-up makes: of no unit, micrometres;
    of micrometres or metres, mm, then the other of the two (a header declaring metres on micrometre numbers, their
    unit alone wrong: left out until the review of h68, the case was said to come to one voxel size "one way alone"
    where every file holding the same numbers came to two, n U~mm M~mm at 2 mm or 0.002 mm). A file declaring mm
    is read in mm alone, unless ``mm_at_its_word`` is false (its own unit wrong: the other way offered)."""
    unit = spatial_unit(volume.image)
    numbers = header_numbers(volume.image)
    if unit == "mm" and mm_at_its_word:  # the case's others are judged against a file declaring mm
        return [("mm", numbers)]
    if unit not in UNIT_MM:  # no unit, or a code NIfTI gives no meaning: read as mm, or micrometres
        return [("mm", numbers), ("micron", numbers * UNIT_MM["micron"][1])]
    return [(other, numbers * UNIT_MM[other][1]) for other in dict.fromkeys([unit, "mm", *UNIT_MM])]


def whole_case_readings(volumes: Sequence[Volume], mm_at_its_word: bool = True) -> list[tuple[object, list[str]]]:
    """Every voxel size that each of ``volumes`` comes to under one of its readings, as (the sizes in mm, the unit
    each file's numbers are in then), the one nearer 1 mm first; empty where some file comes to none of them (their
    voxels differ indeed: the file-by-file judgement stands then). A file declaring mm is read in mm alone
    (``readings_of``, unless ``mm_at_its_word`` is false): where one does, the case comes to its voxel size or to
    none."""
    readings = [readings_of(volume, mm_at_its_word) for volume in volumes]
    sizes_found = []
    for _, sizes in (reading for file_readings in readings for reading in file_readings):
        if not any(same_sizes(sizes, found) for found in sizes_found):
            sizes_found.append(sizes)
    whole = []
    for sizes in sizes_found:
        units = [next((unit for unit, read in file_readings if same_sizes(read, sizes)), None)
                 for file_readings in readings]
        if None not in units:
            whole.append((sizes, units))
    return sorted(whole, key=lambda reading: off_1mm(reading[0]))


def whole_case_words(volumes: Sequence[Volume], readings: Sequence, resampled_to: str) -> str:
    """What is said of a case whose files, none declaring mm, come to one voxel size under ``readings``
    (``whole_case_readings``, not empty): every file and its unit, then the lines that put each at that size in mm;
    where two readings (or more) do, the numbers cannot tell which: each is offered, the one nearer 1 mm first."""
    listing = "; ".join(f"{volume.path} ({volume.in_brackets}): {unit_named(volume.image)}" for volume in volumes)
    in_mm = [volume.path for volume in volumes if spatial_unit(volume.image) == "mm"]
    heading = ("the case's files declare different units for their voxel sizes (xyzt_units)" if in_mm
               else "none of the case's files declares mm for its voxel sizes (xyzt_units)")
    said = (f"{heading}, {_declaring(volumes)}: {listing}. Their numbers are read as they are, whatever the unit, so "
            f"resampling them to {resampled_to} would scale a file whose unit is wrong "
            f"{times_apart([volume.image for volume in volumes])} against the others. ")
    ways = [f"{_sizes(sizes)} mm: {_lines(volumes, read)}" for sizes, read in readings]
    if in_mm:  # its numbers taken as they are, the others' readings come to its size or to none
        its = "its" if len(in_mm) == 1 else "their"
        at_its_word = (f"{said}Read together, {and_listed(in_mm)} taken at {its} word (mm), every file's numbers "
                       f"come to one voxel size one way alone, {ways[0]}")
        other_ways = [(sizes, read) for sizes, read in whole_case_readings(volumes, mm_at_its_word=False)
                      if not same_sizes(sizes, readings[0][0])]
        if not other_ways:
            return at_its_word
        # a header declaring mm may be the wrong one too (ITK writes mm whatever the numbers): the other way, told
        unit_wrong = [f"{_sizes(sizes)} mm: {_lines(volumes, read)}" for sizes, read in other_ways]
        wrong = (f"where the unit of {and_listed(in_mm)} is wrong {'itself' if its == 'its' else 'too'} (a header may "
                 "declare mm whatever the numbers are in: check the voxel size the scans were acquired at)")
        if off_1mm(other_ways[0][0]) < off_1mm(readings[0][0]):
            # that way nearer 1 mm, as scans' voxels are, first: taken at its word, a header of mm on micrometre
            # numbers put every file at 1500 mm, and those lines offered first left a case 1,000 times off that then
            # passed silently (the hundred-and-thirteenth session's end review of r60's fix)
            return (f"{said}Read together, {wrong}, every file's numbers come to {'; or, to '.join(unit_wrong)}; or, "
                    f"{and_listed(in_mm)} taken at {its} word (mm), to {ways[0]}")
        return f"{at_its_word}; or, {wrong}, they come to {'; or, to '.join(unit_wrong)}"
    if len(ways) == 1:
        return f"{said}Read together, every file's numbers come to one voxel size one way alone, {ways[0]}"
    return (f"{said}Read together, the files' numbers come to one voxel size {len(ways)} ways, and which is the "
            f"case's, the numbers cannot tell: check the voxel size the scans were acquired at. Where the voxels are "
            f"{'; or, where they are '.join(ways)}")


def _declaring(volumes) -> str:
    """How many files declare each unit, as a person would count them: "one declaring micrometres and two declaring
    no unit" ("micrometres and 2 none" until the hundred-and-thirteenth session's leftovers, h71)."""
    counts: dict[str, int] = {}
    for volume in volumes:
        named = "no unit" if unit_named(volume.image) == "none" else unit_named(volume.image)
        counts[named] = counts.get(named, 0) + 1
    return and_listed([f"{counted(count)} declaring {named}" for named, count in counts.items()])


def _lines(volumes, read) -> str:
    """The nibabel lines that put each file at the size it comes to when its numbers are in ``read``'s unit: a
    rewrite from that unit, or, its numbers mm, its unit declared mm; the files of one line named together."""
    lines: dict[tuple, list] = {}
    for volume, unit in zip(volumes, read):
        if unit == spatial_unit(volume.image) == "mm":  # at that size already: no line
            continue
        lines.setdefault((unit, spatial_unit(volume.image)), []).append(volume.path)
    said = []
    for (unit, declared), paths in lines.items():
        one = len(paths) == 1
        its = "its" if one else "their"
        if unit == "mm":
            under = (f"already under a header of {UNIT_MM[declared][0]}" if declared in UNIT_MM
                     else f"under {'a header' if one else 'headers'} of no unit")
            said.append(f"declare {and_listed(paths)} mm, {its} numbers mm {under} (nibabel: {declare_code('mm')})")
        else:
            under = "" if declared == unit else (f", {its} numbers {UNIT_MM[unit][0]} under " +
                                                 (f"a header of {UNIT_MM[declared][0]}" if declared in UNIT_MM
                                                  else "no unit"))
            said.append(f"rewrite {and_listed(paths)} from {UNIT_MM[unit][0]}{under} (nibabel: "
                        f"{rewrite_code(f'{UNIT_MM[unit][1]:g}', 'mm')})")
    return "; ".join(said)


def _sizes(sizes) -> str:
    return " x ".join(f"{float(size):.4g}" for size in sizes)
