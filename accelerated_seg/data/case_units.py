"""The units a case's files declare for their voxel sizes (``xyzt_units``), judged together before their grids: what
the pre-flight check of a case (``case_check``) and predict (``inference_reading.read_channels``) say, one error for
each mix-up, naming every file it concerns.

The rule: a header declaring no unit agrees with any (most such files are in mm), so the files declaring one are
judged against the first channel declaring one, the label with them; a file of no unit beside one in micrometres or
metres, their voxel sizes that unit's factor apart, is told the unit is the likely cause. A case mixing files of no
unit with two declared units, or files declaring three, is one error naming every file and its unit, with the lines
that rewrite them in mm.

Until the hundred-and-eleventh session the label was judged against channel 0 alone: a label in micrometres beside a
channel 0 of no unit and a channel 1 in mm trained unjudged, and a channel 0 of no unit beside a channel 1 and a
label in micrometres was two errors, each offering channel 0's line (``benchmarks/results/case_units_2026-12-05/``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from accelerated_seg.data.case_readings import whole_case_readings, whole_case_words
from accelerated_seg.data.grid_agreement import Volume
from accelerated_seg.data.header_units import (UNIT_MM, and_listed, channel_units_words, counted, declare_code,
                                               factor_apart, header_numbers, likely_apart_words, mm_sizes,
                                               rewrite_code, same_sizes, spatial_unit, times_apart, unit_named)


@dataclass
class UnitsVerdict:
    """What the units of a case's files come to: ``errors``, each (which files, in words: "image channels", "label
    vs image", "image channels and label"; what is said of them), and ``off``, the paths whose grid is not to be
    judged, their unit's error said instead."""

    errors: list[tuple[str, str]] = field(default_factory=list)
    off: set = field(default_factory=set)


def judge_units(volumes: Sequence[Volume], resampled_to: str | None, channel_hint: str, label_hint: str = "",
                nearest: Callable | None = None) -> UnitsVerdict:
    """The units of a case's files judged together: ``volumes``, its channels in order (channel 0 the grid every
    other file is judged on), then its label, role "label", where it has one. ``resampled_to``: the spacing the files
    are resampled to, in words, None where nothing is (predict for a model of no spacing: the declared units then
    matter to nothing, the grids are compared); ``channel_hint``, ``label_hint``: the grid's advice to a channel and
    to a label, for voxels that differ indeed; ``nearest``: how far a file's numbers are off the spacing, where the
    nearest of the files declaring a unit is the one the others are judged against (predict: the first one was,
    and a first channel in micrometres beside a second in mm was told to rewrite the second in micrometres). Where no
    file declares mm and the file-by-file judgement would leave a file off, the case's voxel sizes are read as a
    whole instead (``case_readings``)."""
    verdict = _file_by_file(volumes, resampled_to, channel_hint, label_hint, nearest)
    if not verdict.errors or nearest is not None or resampled_to is None:
        return verdict
    if readings := _left_off_a_whole_reading(volumes, verdict):  # none declaring mm: the case read as a whole
        return UnitsVerdict([(_where(volumes[1:]), whole_case_words(volumes, readings, resampled_to))],
                            {volume.path for volume in volumes[1:]})
    return verdict


def _left_off_a_whole_reading(volumes, verdict: UnitsVerdict) -> list:
    """The case's whole readings (``case_readings``), where no file declares mm, a file declares none and the
    file-by-file judgement would leave a file off the first of them: files of no unit beside files declaring
    micrometres and metres (one error whose lines judged each unit against the file of none), or a file the
    judgement names in no line, off that voxel size as its header declares (a second file of no unit on micrometre
    numbers left to the grid's check, or taken, its numbers those of the first, as telling they are mm). Empty
    otherwise: the file-by-file words stand, their lines right there (predict, ``nearest``, has a model's spacing
    to tell, and keeps them, as for a model of none, which resamples nothing). Until the hundred-and-thirteenth
    session (helper h68) 78 of the probe's 512 cases were offered first lines that left a file off its true voxel
    size (``case_readings``' docstring). Every file declaring a unit, none mm: the file-by-file lines put each file
    in channel 0's unit, its numbers in its own or in that one, so a file whose numbers are mm under the first
    reading is told no line that reaches it (U M M~mm: the label, declaring metres on mm numbers, told to be
    rewritten in micrometres or declared so, 2,000 mm or 0.002 mm, until the review of h68), but where every file
    holds the same numbers, a unit alone wrong, which ``_same_numbers_words`` tells with the lines each way. Beside a
    file declaring mm, the case read as a whole only where ``_left_to_the_grid`` (h71)."""
    units = [spatial_unit(volume.image) for volume in volumes]
    if not (readings := whole_case_readings(volumes)):
        return []
    if "mm" in units:
        return readings if "unknown" not in units and _left_to_the_grid(volumes, units) else []
    if "unknown" not in units:  # the files all on one's numbers are told so (``_same_numbers_words``) already
        numbers = header_numbers(volumes[0].image)
        if all(same_sizes(header_numbers(volume.image), numbers) for volume in volumes):
            return []
        return readings if "mm" in readings[0][1] else []
    mixed = len({unit for unit in units if unit != "unknown"}) > 1
    unnamed = [volume for volume in volumes[1:] if volume.path not in verdict.off]
    if mixed or any(not same_sizes(mm_sizes(volume.image), readings[0][0]) for volume in unnamed):
        return readings
    return []


def _left_to_the_grid(volumes, units) -> bool:
    """Whether, beside a file declaring mm, the first file declaring a unit (the one the others are judged against)
    declares micrometres or metres and a file of its unit holds other numbers than it: that file's unit agrees with
    it, so it is judged on its grid alone, and the line told the file in mm put it in that unit, off where the
    first is the one off (U mm U~mm: channel 1 told `Rewrite it in micrometres`, the label then 0.002 mm; U~mm U mm:
    the label told `Declare it micrometres`, 0.002 mm), until the hundred-and-thirteenth session's leftovers (h71)."""
    against = next(volume for volume, unit in zip(volumes, units) if unit != "unknown")
    unit = spatial_unit(against.image)
    return unit in ("micron", "meter") and any(
        other is not against and spatial_unit(other.image) == unit and not _same_sizes(other.image, against.image)
        for other in volumes)


def _file_by_file(volumes, resampled_to, channel_hint, label_hint, nearest) -> UnitsVerdict:
    """Every file declaring a unit judged against the first channel declaring one (or the one ``nearest``), the
    files of no unit against channel 0 (``judge_units``' rule until the hundred-and-thirteenth session)."""
    units = [spatial_unit(volume.image) for volume in volumes]
    declared = list(dict.fromkeys(unit for unit in units if unit != "unknown"))
    if len(declared) > 1 and resampled_to is not None:
        if "unknown" in units or len(declared) > 2:
            return UnitsVerdict([(_where(volumes[1:]), _mixed_words(volumes, units, resampled_to))],
                                {volume.path for volume in volumes[1:]})
        return _apart_from_one(volumes, units, resampled_to, nearest)
    if "unknown" in units and set(declared) - {"mm"}:
        return _likely_apart(volumes, units, channel_hint, label_hint, resampled_to, nearest)
    return UnitsVerdict()


def _where(files: Sequence[Volume]) -> str:
    labelled = any(volume.role == "label" for volume in files)
    return ("label vs image" if len(files) == 1 and labelled
            else "image channels and label" if labelled else "image channels")


def _apart_from_one(volumes, units, resampled_to, nearest) -> UnitsVerdict:
    """Each file declaring another unit than the first channel declaring one (or the one ``nearest`` the spacing),
    one error for each such unit and numbers naming its files; the files in that one's unit are named where the
    other way round is offered, since rewriting it alone would leave them off (the hundred-and-tenth session and
    its review)."""
    declaring = [volume for volume, unit in zip(volumes, units) if unit != "unknown"]
    against = min(declaring, key=nearest) if nearest else declaring[0]  # min: the first of those alike
    agreeing = [volume.path for volume, unit in zip(volumes, units)
                if volume is not against and unit == spatial_unit(against.image)]
    verdict = UnitsVerdict()
    for files in _by_numbers([[volume for volume, unit in zip(volumes, units) if unit == other_unit]
                              for other_unit in dict.fromkeys(unit for unit in units
                                                              if unit not in ("unknown", spatial_unit(against.image)))]):
        labelled = any(volume.role == "label" for volume in files)
        named = {against.path, *agreeing, *(volume.path for volume in files)}
        beside_role = f"the case's {against.said}" if labelled else "a channel of the same case"
        verdict.errors.append((_where(files), channel_units_words(
            files[0].path, files[0].image, against.path, against.image, resampled_to, beside_role,
            alike=[volume.path for volume in files[1:]], beside_alike=agreeing,
            same_numbers=all(_same_sizes(volume.image, against.image) for volume in volumes if volume.path in named))))
        verdict.off.update(volume.path for volume in files)
    return verdict


def _by_numbers(groups: list) -> list:
    """Each group of files (those of one unit) split into those holding the same numbers: one line for files of one
    unit on different numbers was wrong for one of them (a channel declaring micrometres on micrometre numbers and
    a label declaring them on mm numbers, beside a channel 0 in mm: both told to be rewritten in mm, the label 0.002
    mm voxels then) until the hundred-and-thirteenth session (helper h68)."""
    split = []
    for files in groups:
        while files:
            alike = [volume for volume in files if _same_sizes(volume.image, files[0].image)]
            split.append(alike)
            files = [volume for volume in files if volume.path not in {other.path for other in alike}]
    return split


def _likely_apart(volumes, units, channel_hint, label_hint, resampled_to, nearest) -> UnitsVerdict:
    """Files of no unit beside files in micrometres or metres, their voxel sizes that unit's factor apart against
    channel 0, the grid they are judged on: one error naming them all (``likely_apart_words``). Where channel 0
    declares no unit, the files in the unit factor apart from it are named; where it declares the unit, the files
    of none factor apart from it, and it with the files of its unit on its grid, each to be rewritten."""
    first = volumes[0]
    named = {first.path: f"{first.path} (the case's {first.in_brackets})"}
    if units[0] == "unknown":
        unit_files = [volume for volume, unit in zip(volumes, units)
                      if unit != "unknown" and factor_apart(first.image, volume.image)]
        unit_files = [volume for volume in unit_files  # those of one unit, where metres and micrometres are both
                      if spatial_unit(volume.image) == spatial_unit(unit_files[0].image)]
        # the other files of no unit on channel 0's numbers are read with it: left unnamed, they were told nothing
        # where its lines rewrote it from micrometres (until h68)
        none_files = [first] + [volume for volume, unit in zip(volumes[1:], units[1:]) if unit == "unknown"
                                and _same_sizes(volume.image, first.image)] if unit_files else []
    else:
        none_files = [volume for volume, unit in zip(volumes, units)
                      if unit == "unknown" and factor_apart(volume.image, first.image)]
        unit_files = [first] + [volume for volume, unit in zip(volumes[1:], units[1:])
                                if unit == units[0] and _same_sizes(volume.image, first.image)]
    if not none_files:
        return UnitsVerdict()
    # the files declaring the unit with the mm numbers of the files of none: left in it, they would be off against
    # those declared mm as told
    in_unit = spatial_unit(unit_files[0].image)
    in_mm_numbers = [volume for volume, unit in zip(volumes, units) if unit == in_unit
                     and volume not in unit_files and _same_sizes(volume.image, none_files[0].image)]
    judged = (none_files[1:] if units[0] == "unknown" else none_files) + [
        volume for volume in unit_files + in_mm_numbers if volume is not first]
    where = _where(judged)
    hint = {"label vs image": label_hint, "image channels": channel_hint}.get(where, f"{channel_hint}, and {label_hint}")
    others = [volume for volume in volumes if volume not in none_files + unit_files + in_mm_numbers]
    reading, told = _numbers_of_none(none_files[0], unit_files, others, resampled_to, nearest)
    said = likely_apart_words([volume.path for volume in none_files], none_files[0].image,
                              [volume.path for volume in unit_files], unit_files[0].image, hint, named,
                              [volume.path for volume in in_mm_numbers], reading, told)
    return UnitsVerdict([(where, said)], {volume.path for volume in judged})


def _numbers_of_none(none_file, unit_files, others, resampled_to, nearest) -> tuple[str, str]:
    """Which unit the numbers of the files of no unit (the voxel sizes of ``none_file``) are in, beside
    ``unit_files`` in micrometres or metres, that unit's factor apart (``likely_apart_words``' ``reading``), and
    what tells it (``told``, where "other"): the case's ``others``, whose voxels in mm are those numbers (mm) or the
    numbers of the files in the unit ("other": those are mm under a wrong header); else the spacing they are
    ``resampled_to`` (predict), the one of the two nearer it (``nearest``). Where nothing tells, a file in metres
    leaves both open ("either"): its numbers mm under a header of metres, those of no unit micrometres, is as likely
    as the other way (a converter writing metres, a microscope micrometres), and was told "declare it mm, as its
    numbers are" until the hundred-and-eleventh session's leftovers (h61). Against micrometres the other way would
    be a file of no unit in metres, which no scanner writes: mm is told, whatever the others say (a channel of no
    unit in micrometres beside them, the one off, said so of a channel 0 in mm and a label in micrometres, had the
    two told to be rewritten in metres: h61's probe, before this)."""
    if spatial_unit(unit_files[0].image) == "micron":
        return "mm", ""
    none_sizes = header_numbers(none_file.image)
    unit_sizes = header_numbers(unit_files[0].image)
    # a file of no unit is read as mm whatever its numbers are in: holding those of ``none_file``, it tells nothing
    # (nU nU M~mm was told mm so, every file 2,000 mm once its lines were run, until h68)
    as_mm = [volume for volume in others if spatial_unit(volume.image) != "unknown"
             and same_sizes(mm_sizes(volume.image), none_sizes)]
    as_other = [volume.path for volume in others if same_sizes(mm_sizes(volume.image), unit_sizes)]
    in_unit = and_listed([volume.path for volume in unit_files])
    if as_other and not as_mm:
        return "other", (f"The voxels of {and_listed(as_other)} are {' x '.join(f'{size:.4g}' for size in unit_sizes)}"
                         f" mm, the numbers of {in_unit}")
    if not as_mm and nearest is not None and nearest(unit_files[0]) < nearest(none_file):
        return "other", f"The numbers of {in_unit} are nearer {resampled_to} than those of {none_file.path}"
    if as_mm or nearest is not None:
        return "mm", ""
    return "either", ""


def unit_likely_apart(path, image, beside_path, beside_image, beside_role: str, otherwise: str) -> str | None:
    """What is said of two files to be on one grid (a reference and its prediction, in evaluate; a case's files are
    judged together, ``judge_units``, in the same words, ``likely_apart_words``) where one header declares no unit and
    the other one of micrometres or metres, and their voxel sizes are that unit's factor apart
    (``header_units._UNIT_FACTOR_RTOL``): the unit is the likely cause, so the grid line ("resample onto one grid")
    would be the wrong advice, as it was until the hundred-and-seventh session (a header declaring no unit agrees with
    any: ``header_units.channel_in_another_unit``). None otherwise: their grids are judged. Reads the headers alone
    (the affines and xyzt_units already loaded). ``otherwise``: the caller's grid advice, for voxels that differ
    indeed ("resample the label onto the image grid"). Which unit the numbers of none are in is told as for a case
    (``_numbers_of_none``), nothing else beside the two telling: beside metres both readings are offered, with what
    to check; until the hundred-and-twelfth session's leftovers (h64) evaluate told such a file "declare it in mm, as
    its numbers are", where its numbers may be micrometres and those in metres mm (moved here from
    ``header_units`` then, to share that judgement)."""
    pair = [Volume("", path, image), Volume(beside_role, beside_path, beside_image)]
    unitless = [volume for volume in pair if spatial_unit(volume.image) == "unknown"]
    declared = [volume for volume in pair if spatial_unit(volume.image) not in ("unknown", "mm")]
    if len(unitless) != 1 or len(declared) != 1 or not factor_apart(unitless[0].image, declared[0].image):
        return None
    reading, told = _numbers_of_none(unitless[0], declared, [], None, None)
    named = {path: str(path), beside_path: f"{beside_path} ({beside_role})"}
    return likely_apart_words([unitless[0].path], unitless[0].image, [declared[0].path], declared[0].image,
                              otherwise, named, reading=reading, told=told, untold="the two files alone cannot tell")


def _same_sizes(image, other) -> bool:
    return same_sizes(header_numbers(image), header_numbers(other))


def _micrometre_pairs(volumes, units) -> list:
    """(file of no unit, file declaring mm) pairs where the numbers of the one are 1,000 times the voxels in mm of
    the other (of a file declaring a unit, where none declares mm)."""
    declared = [volume for volume, unit in zip(volumes, units) if unit != "unknown"]
    against = [volume for volume in declared if spatial_unit(volume.image) == "mm"] or declared
    return [(volume, other) for volume, unit in zip(volumes, units) if unit == "unknown" for other in against
            if same_sizes(header_numbers(volume.image), 1000 * mm_sizes(other.image))]


def _micrometres_by_numbers(volumes, units, pairs) -> list:
    """The paths of the files of no unit whose numbers are micrometres by the case's numbers: 1,000 times the
    voxels of a file declaring mm (``pairs``; not of one declaring another unit, itself maybe the one off), and the
    voxels in mm of no file declaring a unit. Their
    micrometre rewrite leads; it came after the line that declares them mm, which no number of the case supported,
    until the hundred-and-twelfth session's leftovers (h64): channel 0 of no unit on micrometre numbers beside a
    channel 1 in mm and a label declaring micrometres on mm numbers was left 2,000 mm voxels by the lines first
    offered."""
    declared = [volume for volume, unit in zip(volumes, units) if unit != "unknown"]
    mm_already = _mm_numbers_already(declared, volumes, units)  # their mm sizes as declared are no file's voxels
    declared_mm = [mm_sizes(volume.image) for volume in declared if volume not in mm_already]
    return list(dict.fromkeys(volume.path for volume, other in pairs if spatial_unit(other.image) == "mm" and not any(
        same_sizes(header_numbers(volume.image), sizes) for sizes in declared_mm)))


def _or_from_micrometres(pairs) -> str:
    """The micrometre rewrite of the files of no unit whose numbers are 1,000 times the voxels in mm of a file
    declaring mm (of a file declaring a unit, where none declares mm): a file of no unit in micrometres beside
    files in mm was offered the line for mm numbers alone until the hundred-and-eleventh session's leftovers (h61)."""
    if not pairs:
        return ""
    thousand_times = list(dict.fromkeys(volume.path for volume, _ in pairs))
    of = list(dict.fromkeys(other.path for _, other in pairs))
    return (f", or, where {'its' if len(thousand_times) == 1 else 'their'} numbers are micrometres (1,000 times the "
            f"voxels in mm of {and_listed(of)}), rewrite {and_listed(thousand_times)} from micrometres (nibabel: "
            f"{rewrite_code('0.001', 'mm')})")


def _mm_numbers_already(files, volumes, units) -> list:
    """Those of ``files`` (declaring micrometres or metres) whose numbers are the voxel sizes in mm of a file of the
    case declaring mm: a unit alone is wrong there, so the line that declares them mm leads. Until the
    hundred-and-twelfth session's leftovers (h64) the rewrite from their unit came first, wrong for such numbers: a
    channel declaring metres with mm numbers beside a label in mm and a channel of no unit was told to be rewritten
    from metres, 2,000 mm voxels then (``benchmarks/results/case_units_2026-12-05/``)."""
    return [volume for volume in files if _in_mm_as(volume, volumes, units)]


def _in_mm_as(volume, volumes, units) -> list:
    """The paths of the files declaring mm whose voxel sizes are ``volume``'s numbers."""
    numbers = header_numbers(volume.image)
    return [other.path for other, unit in zip(volumes, units) if unit == "mm" and same_sizes(mm_sizes(other.image),
                                                                                              numbers)]


def _and_none(volumes, units) -> str:
    """How the heading of a mixed case's error names its files of no unit: "and one none", a spatial code NIfTI
    gives no meaning (4 to 7) named as such, as the listing names it: the heading said "and one none" of a file the
    listing called "an unknown unit code 5" until the hundred-and-twelfth session's leftovers (h64)."""
    named = [unit_named(volume.image) for volume, unit in zip(volumes, units) if unit == "unknown"]
    if not named:
        return ""
    return f", and {counted(len(named))} {' or '.join(dict.fromkeys(named))}"


def _mixed_words(volumes, units, resampled_to) -> str:
    """One error for a case whose files declare two units or more beside a file declaring none, naming every file
    and its unit: judged file by file, such a case was two errors whose lines pulled either way (channel 1 to be
    rewritten in mm against channel 0, the label in micrometres against channel 1) until the hundred-and-eleventh
    session. A header of no unit agrees with any, so mm, the unit such a file is read in, is the one offered. A case
    whose files declare all three units (mm, micrometres, metres) is one such error too: it was one error for each
    unit off against the first channel's until the hundred-and-eleventh session's review, their lines pulling the
    case two ways where the first channel is the one off."""
    listing = "; ".join(f"{volume.path} ({volume.in_brackets}): {unit_named(volume.image)}" for volume in volumes)
    lines, after_all, rewritten = [], [], []
    for unit in dict.fromkeys(unit for unit in units if unit in UNIT_MM and unit != "mm"):
        files = [volume for volume, declared in zip(volumes, units) if declared == unit]
        rewrite = f"from {UNIT_MM[unit][0]} (nibabel: {rewrite_code(f'{UNIT_MM[unit][1]:g}', 'mm')})"
        if in_mm_numbers := _mm_numbers_already(files, volumes, units):
            paths = and_listed([volume.path for volume in in_mm_numbers])
            lines.append(f"declare {paths} mm, {'its' if len(in_mm_numbers) == 1 else 'their'} numbers the voxels "
                         f"in mm of {and_listed(_in_mm_as(in_mm_numbers[0], volumes, units))} already (nibabel: "
                         f"{declare_code('mm')})")
            after_all.append(f"; or, where the numbers of {paths} are {UNIT_MM[unit][0]} after all, rewrite "
                             f"{'it' if len(in_mm_numbers) == 1 else 'them'} {rewrite}")
        if rest := [volume.path for volume in files if volume not in in_mm_numbers]:
            lines.append(f"rewrite {and_listed(rest)} {rewrite}")
            rewritten += rest
    unitless = [volume.path for volume, unit in zip(volumes, units) if unit == "unknown"]
    pairs = _micrometre_pairs(volumes, units)
    if in_micrometres := _micrometres_by_numbers(volumes, units, pairs):
        one = len(in_micrometres) == 1
        of = and_listed(list(dict.fromkeys(other.path for volume, other in pairs if volume.path in in_micrometres)))
        lines.append(f"rewrite {and_listed(in_micrometres)} from micrometres, {'its' if one else 'their'} numbers 1,000 "
                     f"times the voxels in mm of {of} (nibabel: {rewrite_code('0.001', 'mm')})")
        after_all.append(f"; or, where the numbers of {and_listed(in_micrometres)} are mm after all, declare "
                         f"{'it' if one else 'them'} mm (nibabel: {declare_code('mm')})")
    if rest := [path for path in unitless if path not in in_micrometres]:
        lines.append(f"declare {and_listed(rest)} mm, the unit a header of none is read in, where "
                     f"{'its' if len(rest) == 1 else 'their'} numbers are mm (nibabel: {declare_code('mm')})"
                     f"{_or_from_micrometres([pair for pair in pairs if pair[0].path in rest])}")
    told = (", and a header of no unit agrees with any, so the case's one unit cannot be told" if unitless
            else ", and of three units, none is more the case's than another")
    return (f"the headers of the case's files declare different units for their voxel "
            f"sizes (xyzt_units){_and_none(volumes, units)}: {listing}. Their numbers are read as they "
            f"are, whatever the unit, so resampling them to {resampled_to} would scale the files of one unit "
            f"{times_apart([volume.image for volume in volumes])} against another's{told}. Rewrite "
            f"every file in mm: {'; '.join(lines)}{''.join(after_all)}{_or_declared_mm(rewritten)}")


def _or_declared_mm(rewritten: list) -> str:
    """The declaring line for the files told to be rewritten, where their numbers are mm already: said of "a file"
    until the hundred-and-twelfth session's leftovers (h64), the line offered a second time where every file
    declaring a unit had been told to be declared mm, or beside the line of the files of no unit."""
    if not rewritten:
        return ""
    one = len(rewritten) == 1
    return (f"; or, where the numbers of {and_listed(rewritten)} are mm already and {'its' if one else 'their'} unit "
            f"alone is wrong, declare {'it' if one else 'them'} mm (nibabel: {declare_code('mm')})")
