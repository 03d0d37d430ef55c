"""The unit a NIfTI header declares its voxel sizes in (``xyzt_units``), and the nibabel lines that rewrite a file's
geometry in another or declare it: read by the spacing's checks (``spacing.py``), evaluate, and the units of a case's
channels and label judged together (``case_units.py``, for predict and the pre-flight check of a case, whose
findings are recorded: hence modules of their own, in ``check_records.CHECKING_CODE``).
"""

from __future__ import annotations

from collections.abc import Sequence

import nibabel as nib
import numpy as np


#: How the checks name each unit nibabel's get_xyzt_units() reports, and its size in mm
UNIT_MM = {"mm": ("mm", 1.0), "meter": ("metres", 1000.0), "micron": ("micrometres", 0.001)}
#: How near a file's voxel sizes in its declared unit, converted to mm, must come to those of a file declaring no
#: unit for the unit to be told the likely cause of their grids' difference: a converter's rounding (0.7 mm written
#: as 700.2 micrometres), not another resolution, which steps of 5% or more make
_UNIT_FACTOR_RTOL = 0.01


def spatial_unit(image) -> str:
    """The unit ``image``'s header declares its voxel sizes in (xyzt_units): 'mm', 'meter', 'micron', or 'unknown'
    (nibabel's default, written by every nibabel script that sets none; a code NIfTI gives no spatial meaning too).
    Read from the field's spatial bits alone: get_xyzt_units() raises for a time code nibabel has no name for (56
    and up), which made a header in mm 'unknown' here and declared_in_mm's traceback (hundred-and-sixth session's
    review)."""
    return nib.nifti1.unit_codes.label.get(_spatial_code(image), "unknown")  # 4 to 7 have no name: no meaning


def _spatial_code(image) -> int:
    try:
        return int(image.header["xyzt_units"]) % 8  # the bits below 8 are the spatial unit's, the rest the time's
    except (AttributeError, KeyError, TypeError, ValueError):  # a header with no such field
        return 0


def unit_named(image) -> str:
    """How a case's unit error lists the unit ``image``'s header declares: its name, "none" for no unit (code 0),
    "an unknown unit code N" for a spatial code NIfTI gives no meaning (4 to 7), which was listed "none" until the
    hundred-and-eleventh session's leftovers (h61), though its header declares a code, written by some tool."""
    unit = spatial_unit(image)
    if unit in UNIT_MM:
        return UNIT_MM[unit][0]
    code = _spatial_code(image)
    return f"an unknown unit code {code}" if code else "none"


def header_numbers(image) -> np.ndarray:
    """``image``'s voxel sizes as its header's numbers, whatever unit it declares them in."""
    return nib.affines.voxel_sizes(image.affine)[:3]


def mm_sizes(image) -> np.ndarray:
    """``image``'s voxel sizes in mm as its header declares them, those of a header of no unit read as mm."""
    return header_numbers(image) * UNIT_MM.get(spatial_unit(image), ("mm", 1.0))[1]


def off_1mm(sizes) -> float:
    """How far voxel sizes in mm are from 1 mm, as scans' are, by the largest factor: the way of reading a header
    offered first is the one nearest (a size of 0, no scan's, furthest)."""
    return float(np.abs(np.log(np.maximum(sizes, 1e-30))).max())


def same_sizes(sizes, other) -> bool:
    """Whether two voxel sizes are the same numbers but for a converter's rounding (``_UNIT_FACTOR_RTOL``)."""
    return bool(np.allclose(sizes, other, rtol=_UNIT_FACTOR_RTOL, atol=0))


def channel_in_another_unit(image, earlier: Sequence[tuple]) -> tuple | None:
    """The first of a case's channels before ``image`` (``earlier``: (path, image) pairs) whose header declares
    another unit than ``image``'s, or None: what evaluate judges of a reference label and its prediction before
    their grids are compared (``evaluate_grids``), as predict and the pre-flight check of a case judged their files
    until the hundred-and-eleventh session (``case_units.judge_units`` since): a refusal of the grids told the user
    to resample channels 1000 times apart onto one grid (hundred-and-seventh session). A header declaring no unit
    agrees with any, as a case's does with the other cases' and the model's: most such files are in mm."""
    unit = spatial_unit(image)
    if unit == "unknown":
        return None
    return next(((path, other) for path, other in earlier if spatial_unit(other) not in ("unknown", unit)), None)


def channel_units_words(path, image, beside_path, beside_image, resampled_to: str,
                        beside_role: str = "a channel of the same case", read_as: str | None = None,
                        alike: Sequence = (), beside_alike: Sequence = (), same_numbers: bool | None = None) -> str:
    """What is said of a case's channel (``image`` at ``path``) whose header declares another unit than another
    channel's of the case (``beside_image`` at ``beside_path``), and how to rewrite it in the other's unit or declare
    it so; ``resampled_to``: the spacing both are resampled to, in words. Said by predict for a model whose training
    cases declared no unit (against a model's unit each channel is judged by ``spacing.other_unit_words``) and by the
    pre-flight check of a case: before their grids are compared, whose refusal told the user to resample channels
    1000 times apart onto one grid. Said too of a label against its case's image (``beside_role``) and of a
    reference label against its prediction in evaluate, which resamples nothing (``read_as``: what reading their
    numbers as they are would do), where a label in micrometres was told to be resampled onto the image's grid, or
    trained unjudged with the image's numbers (hundred-and-seventh session).

    ``alike``: the paths of the case's other files that declare ``image``'s unit against the same file, said in the
    same words, once: a case whose first channel alone was in micrometres was refused twice, its second channel and
    its label each against it (until the hundred-and-tenth session). ``beside_alike``: the paths of the case's other
    files that declare ``beside_image``'s unit, named with ``beside_path`` where the other way round is offered:
    "where channel 0 is the one off" was said of a case whose channel 1 was in channel 0's unit too, and rewriting
    channel 0 alone left channel 1 off (the hundred-and-tenth session's review). ``same_numbers``: whether every one
    of these files holds the same numbers (a unit alone wrong: ``_same_numbers_words``), read from ``image`` and
    ``beside_image`` where None."""
    unit, beside = spatial_unit(image), spatial_unit(beside_image)
    off = (f"{and_listed([beside_path, *beside_alike])} are the ones off" if beside_alike
           else f"{beside_path} is the one off")
    scale = UNIT_MM[unit][1] / UNIT_MM[beside][1]
    times = f"{max(scale, 1 / scale):,.0f} times"
    if alike:
        named, its, it = f"{and_listed([path, *alike])}: their headers declare", "their", "each"
        scaled = f"the files of one unit {times} against the other's"
    else:
        named, its, it, scaled = f"{path}: its header declares", "its", "it", f"one {times} against the other"
    read_as = (read_as.format(times=times) if read_as  # the caller's words, "{times}" in them
               else f"resampling them to {resampled_to} would scale {scaled}")
    said = (f"{named} {its} voxel sizes in {UNIT_MM[unit][0]} (xyzt_units), that of {beside_path}, "
            f"{beside_role}, in {UNIT_MM[beside][0]}. Their numbers are read as they are, whatever the unit, so "
            f"{read_as}. ")
    numbers = header_numbers(image)
    if same_sizes(numbers, header_numbers(beside_image)) if same_numbers is None else same_numbers:
        return said + _same_numbers_words(numbers, [path, *alike], unit, [beside_path, *beside_alike], beside, times)
    rewrite = f"rewrite {it} in {UNIT_MM[beside][0]} (nibabel: {rewrite_code(f'{scale:g}', beside)})"
    if _ratio_off(numbers, header_numbers(beside_image)) < _ratio_off(numbers * scale, header_numbers(beside_image)):
        # its numbers as they are come nearer the other's than rewritten: a label declaring micrometres on 1 mm
        # numbers beside images of 2 mm was told the rewrite first, 0.001 mm voxels then, until the
        # hundred-and-thirteenth session (helper h68)
        return (f"{said}Declare {it} {UNIT_MM[beside][0]} (nibabel: {declare_code(beside)}), {its} numbers nearer "
                f"those of {beside_path} as they are than rewritten: {its} unit alone is likely wrong; or, where "
                f"{its} numbers are {UNIT_MM[unit][0]} indeed, {rewrite}; or the other way round, where {off}")
    return (f"{said}{_capitalised(rewrite)}, or, where {its} numbers are {UNIT_MM[beside][0]} already and "
            f"{its} unit alone is wrong, declare {it} so (nibabel: {declare_code(beside)}); or the other way round, "
            f"where {off}")


def _ratio_off(sizes, other) -> float:
    """How far voxel sizes are from ``other`` by the largest factor along an axis (a size of 0 furthest)."""
    return off_1mm(np.maximum(sizes, 1e-30) / np.maximum(other, 1e-30))


def _same_numbers_words(numbers, paths: Sequence, unit: str, beside_paths: Sequence, beside: str, times: str) -> str:
    """What ``channel_units_words`` offers where the files of two units hold the same numbers: a unit alone is wrong,
    so the lines declare, and the way whose voxels come nearer 1 mm, as scans' are, is offered first, with what to
    check. Until the hundred-and-twelfth session's leftovers (h64) the rewrite came first, wrong for such numbers:
    two channels declaring micrometres with mm numbers beside a label in mm had the label told "Rewrite it in
    micrometres", which left it 1,000 times off them (``benchmarks/results/case_units_2026-12-05/``)."""
    ways = [(numbers * UNIT_MM[beside][1], beside, paths), (numbers * UNIT_MM[unit][1], unit, beside_paths)]
    if "mm" not in (unit, beside):  # both headers wrong (metres and micrometres on mm numbers): mm is a way too
        ways.append((numbers, "mm", [*paths, *beside_paths]))
    lines = [f"where they are {UNIT_MM[named][0]} (voxels of {_sizes(voxels)} mm), declare {and_listed(declared)} "
             f"{UNIT_MM[named][0]} (nibabel: {declare_code(named)})"
             for voxels, named, declared in sorted(ways, key=lambda way: off_1mm(way[0]))]
    return (f"Their numbers are the same ({_sizes(numbers)}): a unit alone is wrong, not the numbers, and rewriting "
            f"either would leave them {times} apart; which one, the numbers cannot tell: check the voxel size the scan "
            f"was acquired at. {_capitalised(lines[0])}; or, {'; or, '.join(lines[1:])}")


def and_listed(paths: Sequence) -> str:
    """``a, b and c``: every one of ``paths`` (a unit's refusal names each file to rewrite)."""
    said = [str(path) for path in paths]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"


def counted(count: int) -> str:
    """A count of files as a person writes it in a sentence: "two", not "2" (a case's unit error said "micrometres
    and 2 none" until the hundred-and-thirteenth session's leftovers, h71)."""
    return ("no", "one", "two", "three", "four", "five")[count] if count < 6 else str(count)


def times_apart(images: Sequence) -> str:
    """How many times apart reading every one of ``images``' numbers as they are (no unit as mm) puts those of
    different units: 1,000 between mm (or no unit) and micrometres or metres, 1,000,000 between micrometres and
    metres, "1,000 or 1,000,000 times" where both pairs are there. Said "1,000 times" of a case read as a whole
    whatever its units (until h71), and "1,000,000 times" of a mix of all three units (until the review of h71).

    Raises:
        ValueError: ``images`` read in one unit (mm and no unit are one): nothing puts them apart, where the words
            were " times" (a case whose files the callers, ``case_units`` and ``case_readings``, judge mixed has
            two units at least: a caller that passed one would have said that blank, until the
            hundred-and-fourteenth session).

    Example:
        >>> def declaring(unit):
        ...     image = nib.Nifti1Image(np.zeros((2, 2, 2), np.float32), np.eye(4))
        ...     image.header.set_xyzt_units(unit)
        ...     return image
        >>> times_apart([declaring("unknown"), declaring("micron")])
        '1,000 times'
        >>> times_apart([declaring("micron"), declaring("meter"), declaring("micron")])
        '1,000,000 times'
        >>> times_apart([declaring("mm"), declaring("micron"), declaring("meter")])
        '1,000 or 1,000,000 times'
        >>> times_apart([declaring("mm"), declaring("unknown")])
        Traceback (most recent call last):
        ...
        ValueError: times_apart takes files of two units at least (no unit counts as mm), not of one: mm, none
    """
    factors = sorted({UNIT_MM.get(spatial_unit(image), UNIT_MM["mm"])[1] for image in images})
    if len(factors) < 2:
        named = ", ".join(dict.fromkeys(unit_named(image) for image in images)) or "no file"
        raise ValueError(f"times_apart takes files of two units at least (no unit counts as mm), not of one: {named}")
    apart = sorted({high / low for at, low in enumerate(factors) for high in factors[at + 1:]})
    return f"{' or '.join(f'{times:,.0f}' for times in apart)} times"


def factor_apart(none_image, unit_image) -> bool:
    """Whether the voxel sizes of ``none_image`` (a header declaring no unit) are those of ``unit_image`` (one
    declaring micrometres or metres) in mm, within ``_UNIT_FACTOR_RTOL``: the same voxels in two units."""
    unit = spatial_unit(unit_image)
    if unit not in UNIT_MM or unit == "mm":
        return False
    none_sizes = header_numbers(none_image)
    unit_sizes = header_numbers(unit_image)
    return bool(np.all(none_sizes > 0) and np.allclose(unit_sizes * UNIT_MM[unit][1], none_sizes,
                                                       rtol=_UNIT_FACTOR_RTOL, atol=0))


#: The unit the numbers of a file of no unit are in where those of a file declaring metres, 1,000 times finer, are
#: mm under a wrong header (``case_units._numbers_of_none`` asks it of metres alone)
_OTHER_WAY = {"meter": "micron", "micron": "meter"}


def likely_apart_words(none_paths: Sequence, none_image, unit_paths: Sequence, unit_image, otherwise: str,
                       named: dict | None = None, declared_in_mm_numbers: Sequence = (), reading: str = "mm",
                       told: str = "", untold: str = "nothing else in the case tells") -> str:
    """What ``case_units.unit_likely_apart`` says, of every file of no unit (``none_paths``, the voxel sizes of
    ``none_image``) against every file in the other unit (``unit_paths``, those of ``unit_image``) at once: a case
    whose channel 0 declared none beside a channel 1 and a label in micrometres was two errors, each offering
    channel 0's line (until the hundred-and-eleventh session). ``named``: how a path is named where it is first said
    (its role beside it). ``declared_in_mm_numbers``: the files declaring the other unit with the numbers of the files
    of none, to be declared mm with them: a label in micrometres with channel 0's numbers, beside a channel 0 of no
    unit and a channel 1 in micrometres 1,000 times them, was refused once the lines offered had been run.

    ``reading``: which unit the numbers of the files of none are in. "mm" (the unit a header of none is read in):
    declare them mm, rewrite the others in mm. "other": what ``told`` says (the case's other files are in mm the
    numbers of the files in the unit) has those be mm under a wrong header, the numbers of none in ``_OTHER_WAY``'s
    unit (a channel 0 declaring metres with mm numbers beside a channel 1 of no unit in micrometres was told "declare
    channel 1 mm, as its numbers are", until the hundred-and-eleventh session's leftovers, h61). "either": nothing
    in the case tells, both are offered, the one whose voxels come nearer 1 mm first, with what to check (``untold``:
    the words that say nothing tells, evaluate's of two files alone)."""
    named = named or {}
    unit = spatial_unit(unit_image)
    factor = UNIT_MM[unit][1]
    none_sizes = header_numbers(none_image)
    unit_sizes = header_numbers(unit_image)
    nones = and_listed([named.get(path, str(path)) for path in none_paths])
    units = and_listed([named.get(path, str(path)) for path in unit_paths])
    one_none, one_unit = len(none_paths) == 1, len(unit_paths) == 1
    its = "its" if one_none else "their"
    said = (f"{nones}: {'its header declares' if one_none else 'their headers declare'} no unit for {its} voxel "
            f"sizes (xyzt_units), while {'that of' if one_unit else 'those of'} {units} "
            f"{'declares' if one_unit else 'declare'} {UNIT_MM[unit][0]}, "
            f"and their voxel sizes ({_sizes(none_sizes)} against {_sizes(unit_sizes)}) are "
            f"{max(factor, 1 / factor):,.0f} times apart, as the same voxels are in mm and in {UNIT_MM[unit][0]}: "
            f"the unit is the likely cause, not another grid, and their numbers are read as they are, whatever the "
            f"unit. ")
    in_mm = (f"declare {and_listed(none_paths)} in mm{f', as {its} numbers are' if reading == 'mm' else ''} "
             f"(nibabel: {declare_code('mm')}), and rewrite {and_listed(unit_paths)} in mm (nibabel: "
             f"{rewrite_code(f'{factor:g}', 'mm')}){_declared_too(declared_in_mm_numbers, unit)}")
    other = _OTHER_WAY[unit]
    in_other = (f"rewrite {and_listed([*none_paths, *declared_in_mm_numbers])} from {UNIT_MM[other][0]} (nibabel: "
                f"{rewrite_code(f'{UNIT_MM[other][1]:g}', 'mm')}), and declare {and_listed(unit_paths)} mm, "
                f"{'its' if one_unit else 'their'} numbers mm already (nibabel: {declare_code('mm')})")
    if reading == "other":
        said += (f"{told}: so {'its' if one_unit else 'their'} numbers are likely mm under a header of "
                 f"{UNIT_MM[unit][0]}, and those of {and_listed(none_paths)} {UNIT_MM[other][0]}. "
                 f"{_capitalised(in_other)}")
    elif reading == "either":
        ways = sorted([(none_sizes, f"where {its} numbers are mm (voxels of {_sizes(none_sizes)} mm), {in_mm}"),
                       (unit_sizes, f"where {its} numbers are {UNIT_MM[other][0]}, and those of "
                                    f"{and_listed(unit_paths)} mm under a header of {UNIT_MM[unit][0]} (voxels of "
                                    f"{_sizes(unit_sizes)} mm), {in_other}")],
                      key=lambda way: off_1mm(way[0]))
        said += (f"Which unit the numbers of {and_listed(none_paths)} are in, {untold}: check "
                 f"the voxel size the scan was acquired at. {_capitalised(ways[0][1])}; or, {ways[1][1]}")
    else:
        said += _capitalised(in_mm)
    return f"{said}; or, where their voxels differ indeed, {otherwise}"


def _capitalised(words: str) -> str:
    return words[:1].upper() + words[1:]


def _declared_too(paths: Sequence, unit: str) -> str:
    if not paths:
        return ""
    its = "its" if len(paths) == 1 else "their"
    return (f", and declare {and_listed(paths)} mm, which {'declares' if len(paths) == 1 else 'declare'} "
            f"{UNIT_MM[unit][0]} with {its} numbers mm already (nibabel: {declare_code('mm')})")


def _sizes(sizes) -> str:
    return " x ".join(f"{float(size):.4g}" for size in sizes)


def rewrite_code(scale: str, unit: str = "mm") -> str:
    """The line that rewrites a file's geometry in ``unit``, ``scale`` (as written) of it to the file's unit, its
    declared unit with it (ITK reads the unit)."""
    return ("img = nib.load(path, mmap=False); "
            f"{_set_unit_code(unit)}; "
            "nib.save(nib.Nifti1Image(np.asanyarray(img.dataobj), "
            f"np.diag([{scale}, {scale}, {scale}, 1]) @ img.affine, img.header), path)")


def declare_code(unit: str = "mm") -> str:
    """The line that declares a file's unit ``unit``, its geometry as it is."""
    return ("img = nib.load(path, mmap=False); img = nib.Nifti1Image(np.asanyarray(img.dataobj), img.affine, "
            f"img.header); {_set_unit_code(unit)}; nib.save(img, path)")


def _set_unit_code(unit: str) -> str:
    """The statement that declares ``img``'s unit ``unit``, its time bits kept whatever code they hold."""
    return f"img.header['xyzt_units'] = img.header['xyzt_units'] & 56 | nib.nifti1.unit_codes['{unit}']"
