"""Voxel sizes, read from the headers alone: each image's along the RAS axes, its size once resampled,
the dataset's median (the default target spacing), and whether resampling to a target keeps every
case within the voxel budget. Apart from the transforms (``preprocess.py``), so that ``accelerated-seg
check`` judges the target spacing as training does without importing torch and MONAI.
"""

from __future__ import annotations

from typing import Sequence

import nibabel as nib
import numpy as np

from ..config import DataConfig
from ..dropped_interrupts import interrupts_kept, raise_a_dropped_interrupt
from .cases import Manifest
from .errors import DataError
from .grid_agreement import Volume
from .header_units import UNIT_MM, and_listed, declare_code, rewrite_code, spatial_unit
from .splits import is_one_fold_of_several


def ras_spacing(path) -> tuple[float, float, float]:
    """Voxel size along the R, A, S axes, from the header alone (no voxel data is read)."""
    return ras_spacing_of(nib.load(str(path)).affine)


def ras_spacing_of(affine) -> tuple[float, float, float]:
    """Voxel size along the R, A, S axes of a voxel-to-world ``affine``."""
    zooms = nib.affines.voxel_sizes(affine)  # per voxel axis, as the loader places them (NiftiReader)
    order = nib.orientations.io_orientation(affine)[:, 0].astype(int)  # voxel axis -> RAS axis
    spacing = np.empty(3)
    spacing[order] = zooms
    return tuple(float(s) for s in spacing)


def resampled_ras_shape(path, spacing: Sequence[float]) -> tuple[int, int, int]:
    """The image's size along the R, A, S axes once oriented and resampled to ``spacing`` (mm, RAS), from
    the header alone: as MONAI's Spacingd counts each axis (``compute_shape_offset``), the distance between
    its first and last voxel centres in target voxels, rounded, plus one. Equal to the preprocessed
    volume's on grids stored permuted, flipped and rotated (tested), as Spacingd keeps the rotation."""
    return resampled_shape_of(nib.load(str(path)), spacing)


def resampled_shape_of(image, spacing: Sequence[float]) -> tuple[int, int, int]:
    """``resampled_ras_shape`` of a loaded nibabel ``image``."""
    zooms = nib.affines.voxel_sizes(image.affine)
    order = nib.orientations.io_orientation(image.affine)[:, 0].astype(int)  # voxel axis -> RAS axis
    shape, stored = [0, 0, 0], (*image.shape[:3], 1, 1)[:3]  # a 2D file's as one slice, as _times_finer reads it
    for voxel_axis, ras_axis in enumerate(order):
        shape[ras_axis] = int(np.round((stored[voxel_axis] - 1) * zooms[voxel_axis] / spacing[ras_axis] + 1))
    return tuple(shape)


def median_spacing(image_paths: Sequence) -> tuple[float, float, float]:
    """The dataset's median voxel size per RAS axis: nnU-Net's default target spacing."""
    spacings = []
    for path in image_paths:
        raise_a_dropped_interrupt()  # one dropped as the header before was closed (dropped_interrupts.py)
        spacings.append(ras_spacing(path))
    return tuple(float(s) for s in np.median(spacings, axis=0))


def median_cases(manifest: Manifest) -> tuple[list, str]:
    """The cases whose median voxel size is the target when ``data.spacing`` is unset, and how to say so.

    The training cases, as nnU-Net takes its plan's; but where the split is one fold of several
    (``data.num_folds``, a splits_final.json), every case of the dataset, as nnU-Net does for all its
    folds: each fold's own training median differed, so each fold rebuilt the whole cache under a
    spacing of its own (a probe's cohort of 2000 cases) and the folds' models, prepared otherwise,
    could not be ensembled (seventy-fifth session).
    """
    if is_one_fold_of_several(manifest):
        return [*manifest.training, *manifest.validation], "every fold's cases' median"
    return list(manifest.training), "the training cases' median"


def target_spacing(cfg: DataConfig, manifest: Manifest) -> tuple[float, float, float]:
    """``data.spacing``, or the median of ``median_cases``: what every volume is resampled to
    (``target_spacing_and_unit``'s first)."""
    return target_spacing_and_unit(cfg, manifest)[0]


def target_spacing_and_unit(cfg: DataConfig, manifest: Manifest) -> tuple[tuple[float, float, float], str | None,
                                                                          tuple[float, float, float] | None]:
    """``target_spacing``, the unit its numbers are in: the one the cases' headers declare (``one_spatial_unit``),
    and, where ``data.spacing`` is set, the cases' median voxel size the far finer check weighs a case declaring mm
    against (``_cases_median``; None where the spacing is a median itself), both of which an export records. Taken
    from the headers the checks read, once: the export's record read them again on every rank at first, every
    header where none declares a unit (0.16-0.26 s for 300 phantoms,
    benchmarks/results/spacing_unit_startup_cost_2cpu_*.json), until the hundred-and-sixth session's review.

    Raises:
        DataError: the cases' headers declare different units (``one_spatial_unit``), a case resampled to it
            would hold more than ``data.max_voxels`` voxels, or a case's voxels are far finer than it.
    """
    # A Ctrl-C as nibabel closes a header's file is raised, not dropped (dropped_interrupts.py): the headers are
    # closed as _from_the_headers returns, inside
    with interrupts_kept():
        return _from_the_headers(cfg, manifest)


def _from_the_headers(cfg: DataConfig, manifest: Manifest) -> tuple[tuple[float, float, float], str | None,
                                                                    tuple[float, float, float] | None]:
    """``target_spacing_and_unit``, its headers read here and closed as it returns."""
    files = image_headers(manifest)  # every image file's header, each channel's, read once for every check
    headers = [(case, image) for case, path, image in files if path == case.images[0]]  # what the checks judge
    # first: a median or a budget judged across cases of two units is no sense, and those refusals blamed metres
    unit = one_spatial_unit(files, cfg.spacing)
    spacing = tuple(cfg.spacing or _median_of(median_cases(manifest)[0], headers))
    # what predict weighs a scan declaring mm against, as the far finer check below weighs a case (the export's
    # cases_median_spacing): a median spacing is a median already, so not taken there (each case's orientation costs)
    median = _cases_median(headers) if cfg.spacing is not None else None
    check_resampled_sizes(manifest, headers, spacing, cfg.max_voxels, configured=cfg.spacing is not None, unit=unit)
    if cfg.spacing is not None:  # a median resamples the middle case to itself: only a spacing chosen shrinks most
        # first where the cases are scans as they are (the spacing is the one off, given in micrometres), after the
        # far finer check otherwise, which names a case's header in metres
        check_cases_kept(headers, spacing, unit, scans_only=True)
    check_voxels_in_mm(manifest, headers, spacing, configured=cfg.spacing is not None, unit=unit, median=median)
    if cfg.spacing is not None:
        check_cases_kept(headers, spacing, unit)
    return spacing, unit, median


def _median_of(cases: Sequence, headers: list) -> tuple[float, float, float]:
    """``median_spacing`` of ``cases``' first images, from the headers read already (``headers``: (case, image));
    a case's unread header is read here (its error then nibabel's, as before). They were read once more for the
    median until the hundred-and-seventh session; that read saved offsets part of the other channels' headers the
    units' check reads since, not all: 200 two-channel cases load 400 headers where they loaded 360 with the median,
    and 200 with ``data.spacing`` set (``benchmarks/results/channel_units_check_cost_2026-12-05``); n channels, n
    per case."""
    read = {str(case.images[0]): image for case, image in headers}
    return tuple(float(s) for s in np.median(
        [ras_spacing_of(read[str(case.images[0])].affine) if str(case.images[0]) in read else
         ras_spacing(case.images[0]) for case in cases], axis=0))


def image_headers(manifest: Manifest) -> list:
    """(case, image file, that file loaded by nibabel: the header, no voxel data) for every image file (each
    channel's) of every case that reads; the pre-flight check reports those that do not (loader() has none)."""
    headers = []
    for case in manifest.training + manifest.validation:
        for path in case.images:
            raise_a_dropped_interrupt()  # headers are kept, but a failed read's file is closed: its drop raised here
            try:
                headers.append((case, path, nib.load(str(path))))
            except Exception:  # nibabel raises many types
                continue
    return headers


def one_spatial_unit(files: list, spacing: Sequence[float] | None = None) -> str | None:
    """The unit the cases' image files (``files``: ``image_headers``, each channel's) declare their voxel sizes in,
    None where none declares one: what an export records (``SPACING_UNIT_KEY``), which predict judges a scan's by.
    Cases whose headers declare different units, some mm and some metres or micrometres (converted with different
    tools), are refused: nibabel and MONAI read the numbers as they are, so resampling them to one spacing scaled the
    cases of one unit 1000 times against the others', without a word until the hundred-and-sixth session. A header
    that declares none ('unknown', nibabel's default) agrees with any: most such files are in mm, and those in metres
    are check_voxels_in_mm's. Every channel file is judged, not the first of each case alone: a second channel in
    micrometres among cases in mm, its first one declaring no unit, trained unjudged until the hundred-and-seventh
    session (a case's own channels of two declared units are the pre-flight check's: ``case_check``, before their
    grids are compared). Judged from the headers alone. The first case of another unit than most cases' is weighed
    as predict weighs a scan against a model's spacing (``_told_first``): ``spacing``, data.spacing, or, unset, the
    median of the cases of that unit.

    Raises:
        DataError: naming a file of each unit (and its case), counting the cases of each, and the nibabel lines
            that rewrite one in mm or declare its unit, those the spacing tells first; and every file of each unit
            but most cases', a line for each unit (``_every_file_of``).
    """
    declared = {}  # unit -> {case id: its files in that unit}, in the cases' order
    for case, path, image in files:
        if (unit := spatial_unit(image)) != "unknown":
            declared.setdefault(unit, {}).setdefault(case.id, []).append(path)
    if len(declared) < 2:
        return next(iter(declared), None)
    by_count = sorted(declared.items(), key=lambda item: -len(item[1]))  # stable: the first unit met first on a tie
    named = "; ".join(f"{len(cases)} in {UNIT_MM[unit][0]} ({_first_of(cases, listed=unit != by_count[0][0])})"
                      for unit, cases in by_count)
    apart = max(UNIT_MM[unit][1] for unit in declared) / min(UNIT_MM[unit][1] for unit in declared)
    # a line for each unit the cases declare: both were offered, "from metres" to cases in micrometres and mm alone,
    # until the hundred-and-twelfth session's review (37 of the units probe's errors)
    rewrites = "; ".join(f"from {UNIT_MM[unit][0]}: {code}" for unit, code in (
        ("meter", REWRITE_IN_MM_CODE), ("micron", REWRITE_FROM_MICROMETRES_CODE)) if unit in declared)
    told = _told_first(files, by_count, spacing)
    raise DataError(
        f"the cases' headers declare their voxel sizes in different units (xyzt_units): {named}. Their numbers are "
        f"read as they are, whatever the unit, so resampling them to one spacing would scale the cases of one unit "
        f"{apart:,.0f} times against the others'. {told}{'r' if told else 'R'}ewrite the files not in mm in mm, "
        f"their labels too (nibabel, {rewrites}), or, where a file's numbers are mm already and its unit alone is "
        f"wrong, declare it mm (nibabel: {DECLARE_MM_CODE}){_every_file_of(by_count[1:])}")


def _first_of(cases: dict, listed: bool) -> str:
    """The first of ``cases`` (case id -> its files in one unit) and its first file, as the units refusal names
    them, "case_001: …/case_001.nii.gz", and, where there are more files and they are ``listed``
    (``_every_file_of``), that every one is listed below."""
    (case_id, paths), many = next(iter(cases.items())), sum(len(paths) for paths in cases.values()) > 1
    return f"{case_id}: {paths[0]}" + (", every file listed below" if many and listed else "")


def _every_file_of(units: list) -> str:
    """A heading for each of ``units`` ((unit, {case id: its files in that unit}), those of fewer cases than
    most cases' unit) that holds more than one file, and a line for each case under it, naming every file: a
    dataset with 40 cases in micrometres among cases in mm was told the first alone, and fixed it, to be told the
    next at the next launch, until the hundred-and-seventeenth session (helper h88,
    ``benchmarks/results/units_edges_2026-12-06/``). Most cases' unit is left out: where it is the one off, the
    lines rewrite every file of the dataset."""
    lines = []
    for unit, cases in units:
        if (count := sum(len(paths) for paths in cases.values())) > 1:
            # a case a line: 1,000 files on one line (71,028 characters in the review's thousand_files.py) could
            # only be copied, not read
            lines.append(f"\n  in {UNIT_MM[unit][0]}, {count} files:" + "".join(
                f"\n    {case_id}: {and_listed(paths)}" for case_id, paths in cases.items()))
    return "".join(lines)


def _told_first(files: list, by_count: list, spacing: Sequence[float] | None) -> str:
    """What predict says of the first case of another unit than most cases' (``by_count``: (unit, {case id: its
    files}), most first) against ``spacing`` (data.spacing, or, None, the median of the cases of most cases' unit), as a
    model trained on those cases would judge it (``spacing_readings.one_file_words``), and the words that lead to
    the general lines then; "" where the spacing tells no reading other than its own. A case declaring micrometres
    (or metres) on mm numbers among cases in mm at 2 mm was told the rewrite from micrometres first, 0.002 mm
    voxels then, where predict told its declaring line, until the hundred-and-sixteenth session (helper h84,
    ``benchmarks/results/units_train_vs_predict_2026-12-06/``)."""
    from .spacing_readings import one_file_words  # it reads FINER_THAN_THE_TARGET from here

    most = by_count[0][0]
    first: dict = {}  # case id -> (its first image file, loaded), as image_headers lists them
    for case, path, image in files:
        first.setdefault(case.id, (path, image))
    source = "data.spacing"
    if spacing is None:
        of_most = [image for _, image in first.values() if spatial_unit(image) in (most, "unknown")]
        if not of_most:
            return ""
        spacing = tuple(float(s) for s in np.median([ras_spacing_of(image.affine) for image in of_most], axis=0))
        source = f"the median spacing of the cases in {UNIT_MM[most][0]} (data.spacing unset)"
    for unit, cases in by_count[1:]:
        case_id, (path, *_) = next(iter(cases.items()))
        if first[case_id][0] != path:  # a channel after the first: its case's own check judges it
            continue
        image = first[case_id][1]
        said = one_file_words(Volume("image", path, image), spacing, most, source, "most cases'", what="case",
                              scan_sized_only=True)
        if said:
            return f"{case_id}: {said}, its label too; else, "
    return ""


def other_unit_words(path, image, unit: str, spacing, alike: Sequence = ()) -> str:
    """What predict says of a scan (``image`` at ``path``) whose header declares another unit than ``unit``, the
    model's training cases', and how to rewrite it in that one or declare it so; ``alike``: the paths of the case's
    other channels declaring ``image``'s unit, named with it (each was its own refusal, one after the other, until
    the hundred-and-eleventh session). A case of one file whose numbers the model's spacing tells are in another unit
    than its header's is told its reading's line before this (``inference_case_units.spacing_case_words``): this
    offered the declaring line first where its numbers alone came near the spacing, from the review of helper h78 of
    the hundred-and-fifteenth session to its helper h81, and the rewrite first before then."""
    scan = spatial_unit(image)
    scale = UNIT_MM[scan][1] / UNIT_MM[unit][1]
    one = not alike
    named = path if one else and_listed([path, *alike])
    its, it = ("its", "it") if one else ("their", "them")
    said = (f"{named}: {'its header declares' if one else 'their headers declare'} {its} voxel sizes in "
            f"{UNIT_MM[scan][0]} (xyzt_units), the model's training cases' in {UNIT_MM[unit][0]} (its config.json's "
            f"spacing_unit). ")
    rewrite = f"{'it' if one else 'each'} in {UNIT_MM[unit][0]} (nibabel: {rewrite_code(f'{scale:g}', unit)})"
    return (f"{said}{its.capitalize()} numbers are read as they are, whatever the unit, so resampling {it} "
            f"to the model's spacing {_mm(spacing)} would scale {it} {max(scale, 1 / scale):,.0f} times "
            f"{'smaller' if scale > 1 else 'larger'} than the scans the model learned from. Rewrite {rewrite}, or, "
            f"where {its} numbers are {UNIT_MM[unit][0]} already and {its} unit alone is wrong, declare "
            f"{'it' if one else 'each'} so (nibabel: {declare_code(unit)})")


# How many times finer than the target spacing a case's voxels may be: a header in metres is 1000 times off
# (one in microns reads 1000 times coarser, the budget's to refuse), and no dataset we know of resamples scans a
# hundred times coarser on purpose
FINER_THAN_THE_TARGET = 100


def check_voxels_in_mm(manifest: Manifest, headers: list, spacing: tuple[float, float, float],
                       configured: bool = True, unit: str | None = None, median=None) -> None:
    """Refuse cases (of ``headers``: (case, its first image)) whose voxels are ``FINER_THAN_THE_TARGET`` times finer
    than the target spacing along an axis: a header written in metres (0.0015 for 1.5 mm) is read as mm, and
    resampling leaves such a case a voxel or two, every structure in it gone. Training took it without a word,
    Dice unmoved by a case that was all padding (hundred-and-fourth session's probe); too coarse a header is
    check_resampled_sizes'. A header that declares its unit mm is taken at its word against a data.spacing set
    (``configured``), a coarser one chosen on purpose for voxels that fine (micro-CT, microscopy): refused with no
    way past until the hundred-and-fifth session (``DECLARE_MM``). Judged from the headers alone; ``unit``: the one
    the cases' headers declare (``one_spatial_unit``), which names the rewrite of a header that declares none.
    Not a case far finer than the cases' own median voxel size too (``_cases_median``): its unit taken at its word,
    one case in metres under a header of mm (as ITK writes any numbers) among cases of 5 mm, against a data.spacing
    coarser on purpose, trained as a voxel or two without a word until the hundred-and-seventeenth session (helper
    h88, ``benchmarks/results/units_edges_2026-12-06/``): scans resampled coarser on purpose are most cases, their
    median as fine as they are, where a case a hundred times finer than the others' is no such scan. Cases of
    resolutions that differ as scanners' do (0.5 mm and 5 mm, thin and thick slices) lie within a hundred times.
    ``median``: that median where the caller has it already (``_from_the_headers``, for the export's record).

    Raises:
        DataError: naming the cases, their voxel sizes and the ways on.
    """
    if not (shrunk := [(case, image) for case, image in headers if far_finer(image, spacing)]):
        return
    median = (median or _cases_median(headers)) if configured else spacing
    shrunk = [(case, image) for case, image in shrunk
              if not (configured and declared_in_mm(image) and not far_finer(image, median))]
    if not shrunk:
        return
    case, image = shrunk[0]
    source = "data.spacing" if configured else f"{median_cases(manifest)[1]} spacing (data.spacing unset)"
    more = f" (and {len(shrunk) - 1} more case(s) so)" if len(shrunk) > 1 else ""
    # a coarse data.spacing set on purpose for scans of truly fine voxels (microscopy) is the other way on; its unit
    # declared mm, among cases in micrometres, is refused as another unit (one_spatial_unit)
    declare = "" if unitless_among_micrometres(image, unit) else f", or, where it is coarser on purpose, {DECLARE_MM}"
    nearer = f"; or, if its voxels are that fine indeed, set data.spacing nearer to them{declare}" if configured else ""
    if configured and declared_in_mm(image):  # taken at its word, but far finer than the cases' median too
        said_of_the_median = finer_than_the_median_words(image, median, "this check", "the cases' median voxel size")
        nearer = f" ({said_of_the_median})"
    if not configured and _median_in_micrometres(image, spacing, unit):
        raise DataError(
            f"{case.id}: {case.images[0]}: voxels of {_mm(ras_spacing_of(image.affine))} mm, "
            f"{_times_finer(image, spacing):,.0f} times finer than {source + more} {_mm(spacing)} mm: the median is "
            f"{_times_finer(image, spacing):,.0f} times coarser than its voxels, so most headers it is taken from are "
            f"probably in micrometres, not mm: rewrite those in mm, their labels too (nibabel, from micrometres: "
            f"{REWRITE_FROM_MICROMETRES_CODE}); or set data.spacing")
    said = far_finer_words(case.images[0], image, spacing, source + more, unit)
    raise DataError(f"{case.id}: {case.images[0]}: {said}, {_and_the_cases_other_files(case, spacing)}, or leave "
                    f"the case out{nearer}")


def _and_the_cases_other_files(case, spacing) -> str:
    """Whose geometry the rewrite of a case's first image is for besides: its label's, and those of its other
    channel files that are as far finer (as a case's channels are, on one grid). Said of the first image alone until
    the review r120 of the hundred-and-twenty-fifth session: a case of two channels at 0.02 mm for a data.spacing
    of 2 mm, its first channel rewritten as told, was then refused as channels "on different grids" to be resampled
    onto one, its second told a round later, and in another way."""
    others = []
    for path in case.images[1:]:
        try:
            if far_finer(nib.load(str(path)), spacing):
                others.append(path)
        except Exception:  # nibabel raises many types for a damaged file; the other checks say why
            continue
    if not others:
        return "its label's too"
    return (f"the same for the case's other channel file{'s' if len(others) > 1 else ''} {and_listed(others)} "
            "and its label")


#: How many voxels a case must keep along its longest axis once resampled to a data.spacing set: the U-Nets here halve
#: a case twice at least (the smallest, tests' strides [2, 2]), so one of fewer is under a voxel at their deepest
#: level, no structure left in it. Real coarsening on purpose keeps far more: hippocampus crops of 35 x 50 x 35 at 1 mm
#: resampled to 4 mm keep 13, 32-voxel patches 4 times coarser 9, micro-CT of 0.05 mm 400 along at 1 mm 21, where a
#: data.spacing given in micrometres leaves each of r76's twelve real geometries 3 or fewer
#: (``benchmarks/results/spacing_far_coarser_2026-12-06/``)
KEPT_ALONG_THE_LONGEST = 4


def check_cases_kept(headers: list, spacing: tuple[float, float, float], unit: str | None = None,
                     scans_only: bool = False) -> None:
    """Refuse a data.spacing that resamples more than half the cases of ``headers`` ((case, its first image)) to
    fewer than ``KEPT_ALONG_THE_LONGEST`` voxels along their longest axis, where they held more as stored: one given
    in micrometres (600 x 600 x 3600 for prostate MRI of 0.6 x 0.6 x 3.6 mm) passed every check, its cases declaring
    mm taken at their word as coarsened on purpose, and trained on cases of one voxel until the
    hundred-and-seventeenth session (helper h92, found by r76, ``benchmarks/results/spacing_far_coarser_2026-12-06/``).
    Judged by the cases' count of voxels, not by how many times coarser the spacing is: micro-CT resampled 100 times
    coarser on purpose keeps its structures where it is 2,000 voxels across. ``scans_only``: only where the first such
    case's own reading is a scan's (``spacing_readings.beyond_scans``), so that the spacing is the one off; cases of
    0.002 mm 20 voxels across (0.04 mm, no scan) are the far finer check's first, a header in metres.

    Raises:
        DataError: naming data.spacing, a case and its file (its id alone until the review of h92) and what it
            would become, the cases' median voxel size, and the way on.
    """
    from .spacing_readings import beyond_scans  # it reads FINER_THAN_THE_TARGET from here

    # only the cases no voxel axis alone keeps whole at the coarsest target axis are oriented and resampled: the
    # orientation (io_orientation) cost 0.27 ms a case, 0.96 s of 1,000 cases for both calls on 2 loaded cores where
    # the headers' whole pre-flight took 1.2 s (the review of h92, ``benchmarks/results/review_cases_kept_2026-12-06/``)
    resampled = [(case, image, resampled_shape_of(image, spacing)) for case, image in headers
                 if _kept_at_the_coarsest(image, spacing) < KEPT_ALONG_THE_LONGEST]
    # a case stored as small is no spacing's doing: each only where it held more voxels along an axis as stored
    shrunk = [(case, image, shape) for case, image, shape in resampled
              if max(shape) < min(KEPT_ALONG_THE_LONGEST, max(image.shape[:3]))]
    if 2 * len(shrunk) <= len(headers):
        return
    case, image, shape = shrunk[0]
    zooms = ras_spacing_of(image.affine)
    # the case's own reading, in mm: its sizes in its voxels' order, as its shape is (RAS sizes beside the stored
    # shape took CT stored coronally, 30 slices of 10 mm, 300 mm across, for 10 mm x another axis' 210 voxels, 2,100
    # mm, no scan, and told headers of no unit they were in metres), in the unit its header declares (metres read as
    # mm took crops of 1 mm written 0.001, 0.05 mm across, for no scan, and told headers declaring metres the same)
    own = nib.affines.voxel_sizes(image.affine) * (UNIT_MM[unit][1] if unit in UNIT_MM else 1.0)
    a_scan = beyond_scans(own, image.shape[:3]) == 0
    if scans_only and not a_scan:
        return
    median = _cases_median(headers)
    ratios = np.asarray(spacing, dtype=float) / np.maximum(np.asarray(median), 1e-12)
    # 1,000 times explains it where data.spacing / 1000 lies within 4 times of the median along every axis, as a
    # spacing chosen for these cases does (the median, or 4 times coarser), where micro-CT 100 times coarser does not,
    # and the case's own reading is a scan's, as where it is told first (scans_only), so that it is the
    # spacing (no case of 0.002 mm 20 voxels across, 0.04 mm, no scan: its header is likelier in metres)
    thousand = bool(np.all((ratios >= 250) & (ratios <= 4000))) and a_scan
    told = {"mm": " (given in micrometres? it is in mm)", None: " (given in micrometres? it is in mm)",
            "meter": " (given in mm? it is in metres, the unit the cases' headers declare)"}.get(unit, "")
    named = UNIT_MM[unit][0] if unit in UNIT_MM else "mm"  # the headers' numbers, which spacings are read in
    raise DataError(
        f"data.spacing {_mm(spacing)} {named} would resample {len(shrunk)} of {len(headers)} cases to fewer than "
        f"{KEPT_ALONG_THE_LONGEST} voxels along their longest axis, no structure left in them: {case.id}: "
        f"{case.images[0]} ({' x '.join(map(str, image.shape[:3]))} voxels of {_mm(zooms)} {named}) would become "
        f"{' x '.join(map(str, shape))} voxels. The cases' median voxel size is {_mm(median)} {named}, "
        f"{float(ratios.max()):,.0f} times finer than data.spacing{told if thousand else ''}: set data.spacing "
        f"nearer the cases' voxels (unset, it is their median), coarse enough for the model, fine enough that the "
        f"cases keep {KEPT_ALONG_THE_LONGEST} voxels or more along their longest axis")


def finer_than_the_median_words(image, median, judge: str, median_named: str) -> str:
    """Why a file declaring mm, ``far_finer`` than a data.spacing set and than its cases' ``median`` voxel size too, is
    not taken at its word: training's words (``judge``: "this check", ``median_named``: "the cases' median voxel
    size") and predict's (``inference_reading.refuse_voxels_far_finer``), one sentence for both. An ensemble names
    its median as the coarsest of its members' along each axis: "the members' training cases' median voxel size 2 x 3
    x 2 mm" quoted sizes no member's config.json records, until the review of helper h105."""
    times = _times_finer(image, median)
    return (f"its header declares mm, which {judge} takes at its word against a data.spacing coarser on purpose, but "
            f"its voxels are {times:,.0f} times finer than {median_named} {_mm(median)} mm too: scans "
            f"resampled coarser on purpose are most of a dataset's cases, not one {times:,.0f} times finer than the "
            f"others")


def _kept_at_the_coarsest(image, spacing) -> int:
    """The most voxels ``image`` keeps along a voxel axis resampled to the coarsest axis of ``spacing``, as
    ``resampled_shape_of`` counts them: no more than along its longest RAS axis resampled to ``spacing``, whatever
    its orientation, found from its voxel sizes alone."""
    zooms, stored = nib.affines.voxel_sizes(image.affine), (*image.shape[:3], 1, 1)[:3]
    return int(max(np.round((count - 1) * zoom / max(spacing) + 1) for count, zoom in zip(stored, zooms)))


def _cases_median(headers: list) -> tuple[float, float, float]:
    """The median voxel size per RAS axis of the cases of ``headers`` ((case, its first image), read already),
    training's and validation's: what the far finer check weighs a case taken at its word against."""
    return tuple(float(s) for s in np.median([ras_spacing_of(image.affine) for _, image in headers], axis=0))


def _median_in_micrometres(image, spacing, unit: str | None) -> bool:
    """Whether a median ``spacing`` far coarser than ``image``'s voxels, of cases declaring mm or no unit (``unit``),
    is the one off, taken from headers mostly in micrometres: its micrometre reading lies within the sizes scans are
    acquired at (``spacing_readings.SCAN_SIZES_MM``), the median itself outside, and the case's own voxels nearer
    them than the case read in metres. Cases truly in mm among cases mostly written in micrometres under mm (2 mm
    voxels written 2000) were told "its header is probably in metres, not mm" and the line from metres, 2000 mm
    voxels once run, until the review of helper h84 (r72,
    ``benchmarks/results/review_units_train_vs_predict_2026-12-06/``).
    """
    from .spacing_readings import beyond_scans  # it reads FINER_THAN_THE_TARGET from here

    zooms, target = np.asarray(ras_spacing_of(image.affine)), np.asarray(spacing, dtype=float)
    # the median read in micrometres within scans' sizes along every axis, and outside them in mm along every axis:
    # nnU-Net's 2D cases (slices 999 mm thick, rows of 0.8 mm) make a median no unit's reading puts there, which is
    # no median in micrometres (its rows' micrometre reading, 0.0008 mm, a synchrotron's since the
    # hundred-and-seventeenth session's sizes, helper h88: every axis outside in mm keeps it so)
    return unit in ("mm", None) and beyond_scans(zooms) < beyond_scans(zooms * 1000) and \
        beyond_scans(target / 1000) == 0 < min(beyond_scans([size]) for size in target)


def declared_in_mm(image) -> bool:
    """Whether ``image``'s header declares its unit mm (xyzt_units), as ITK's writers and dcm2niix do, where a
    header in metres says 'meter' or nothing ('unknown': nibabel's default). One in micrometres ('micron') is read
    as mm, by nibabel and MONAI alike: nothing converts it, so it is no header in mm."""
    return spatial_unit(image) == "mm"


def far_finer(image, spacing) -> bool:
    """Whether ``image``'s voxels are ``FINER_THAN_THE_TARGET`` times finer than ``spacing`` along an axis."""
    return _times_finer(image, spacing) >= FINER_THAN_THE_TARGET


def _times_finer(image, spacing) -> float:
    """How many times finer than ``spacing`` ``image``'s voxels are, along the axis where most, of those it holds
    more than one voxel along: a single slice is one voxel once resampled, whatever thickness its header gives
    (a 2-D-like volume's slice axis was refused so in the hundred-and-fourth session, though nothing is lost)."""
    return max((target / max(zoom, 1e-12) for target, zoom in _zooms_of_several(image, spacing)), default=0.0)


def times_coarser(image, spacing) -> float:
    """How many times coarser than ``spacing`` ``image``'s voxels are, along the axis where most, of those it holds
    more than one voxel along (``_times_finer``'s other way)."""
    return max((zoom / max(target, 1e-12) for target, zoom in _zooms_of_several(image, spacing)), default=0.0)


def times_off(image, spacing) -> float:
    """How many times finer or coarser than ``spacing`` ``image``'s voxels are, along the axis where most
    (``times_coarser`` and ``_times_finer`` together): 1 where they are the spacing itself."""
    return max(times_coarser(image, spacing), _times_finer(image, spacing))


def _zooms_of_several(image, spacing) -> list[tuple[float, float]]:
    """(target, voxel size) along each RAS axis that ``image`` holds more than one voxel along."""
    order = nib.orientations.io_orientation(image.affine)[:, 0].astype(int)  # voxel axis -> RAS axis
    sizes = np.empty(3, dtype=int)
    sizes[order] = (*image.shape[:3], 1, 1)[:3]  # a 2D file's (the checks refuse it) as one slice, not a traceback
    return [(target, zoom) for target, zoom, size in zip(spacing, ras_spacing_of(image.affine), sizes) if size > 1]


def far_finer_words(path, image, spacing, source: str, unit: str | None = None) -> str:
    """What is wrong with a file whose voxels are ``far_finer`` than ``spacing`` (``source``'s), and how to
    rewrite it; the checks and predict add their own way on. The rewrite sets the header's unit to mm too:
    ITK (SimpleITK, nnU-Net, 3D Slicer) scales a file whose unit says metres by 1000, so the geometry alone
    rewritten read 1000 times too coarse there (the hundred-and-fourth session's line left it so). ``unit``: the
    training cases' (``one_spatial_unit``); a file that declares none among cases in micrometres is told to be
    rewritten in micrometres, where the line from metres made its numbers theirs and declared it mm, which the
    cases' one unit then refused (hundred-and-sixth session's review)."""
    zooms = ras_spacing_of(image.affine)
    shape = " x ".join(map(str, resampled_ras_shape(path, spacing)))
    lost = (f"voxels of {_mm(zooms)} mm, {_times_finer(image, spacing):,.0f} times finer than {source} "
            f"{_mm(spacing)} mm, so resampling leaves it {shape} voxels, every structure in it lost")
    if unitless_among_micrometres(image, unit):
        return (f"{lost}: its header declares no unit (xyzt_units) where the training cases' declare micrometres, "
                f"so its numbers are probably mm. Rewrite it in micrometres (nibabel: {rewrite_code('1000', 'micron')})")
    return f"{lost}: its header is probably in metres, not mm. Rewrite its geometry in mm ({REWRITE_IN_MM})"


def unitless_among_micrometres(image, unit: str | None) -> bool:
    """Whether ``image``'s header declares no unit where the training cases' declare micrometres (``unit``)."""
    return unit == "micron" and spatial_unit(image) == "unknown"


# The nibabel lines offered (run as they are written by test_checks). Both read the voxels into memory first
# (mmap=False): an uncompressed .nii is otherwise mapped, not read, and saved over itself it lost its voxels, 119
# of 120 changed in the hundred-and-fifth session's probe. The time unit of a 4-D file is kept, where
# set_xyzt_units('mm') alone sets it to unknown: its bits (56) are kept as they are, as spatial_unit reads the
# unit's alone, where get_xyzt_units() raised for a time code nibabel has no name for (hundred-and-sixth session).
#: Rewrites a file's geometry from metres to mm
REWRITE_IN_MM_CODE = rewrite_code("1000")
#: Rewrites a file's geometry from micrometres to mm (one_spatial_unit)
REWRITE_FROM_MICROMETRES_CODE = rewrite_code("0.001")
#: Declares a file's unit mm, its geometry as it is
DECLARE_MM_CODE = declare_code()
REWRITE_IN_MM = f"nibabel, from metres: {REWRITE_IN_MM_CODE}"


# The way past far_finer for voxels that fine indeed, resampled coarser on purpose: their files' unit declared mm
# (declared_in_mm), the geometry as it is
DECLARE_MM = f"declare the unit of its files mm, which this check takes at its word (nibabel: {DECLARE_MM_CODE})"


def _mm(sizes) -> str:
    return " x ".join(f"{size:g}" for size in sizes)


def check_resampled_sizes(manifest: Manifest, headers: list, spacing: tuple[float, float, float], max_voxels: int,
                          configured: bool = True, unit: str | None = None) -> None:
    """Refuse a target spacing that would resample a case (of ``headers``: (case, its first image)) beyond the
    voxel budget.

    The pre-flight check judges each file as stored; resampling multiplies its voxels along each axis by
    the ratio of voxel sizes, so a spacing ten times finer than the scans asks for a thousand times the
    memory: MONAI's Spacingd then failed to allocate (terabytes, a traceback), or, at a few times the
    machine's memory, the kernel killed the process without a word. Judged from the headers alone, per
    axis as Spacingd counts (``resampled_shape_of``): until the hundred-and-fourth session from the ratio
    of voxel volumes, which took a single slice of nnU-Net's 999 mm for 500 slices at 2 mm and refused
    such 2D data over a budget it was far inside.
    """
    over = []
    for case, image in headers:
        shape, zooms = image.shape[:3], tuple(nib.affines.voxel_sizes(image.affine))  # as NiftiReader reads
        voxels = float(np.prod(resampled_shape_of(image, spacing), dtype=np.float64))
        if voxels > max_voxels:
            over.append((voxels, case, shape, zooms, image))
    if not over:
        return
    voxels, case, shape, zooms, image = max(over, key=lambda item: item[0])
    source = "data.spacing" if configured else f"{median_cases(manifest)[1]} spacing (data.spacing unset)"
    spacing_off = configured and _finer_than_most(headers, spacing)
    metres = _told_reading(case, image, spacing, source, configured, unit, spacing_off) or _in_metres(
        image, spacing, configured, unit)
    raise DataError(
        f"{source} {' x '.join(f'{s:g}' for s in spacing)} mm would resample {len(over)} case(s) beyond the "
        f"budget of {max_voxels:,} voxels per volume (data.max_voxels): {case.id} "
        f"({' x '.join(map(str, shape))} voxels of {' x '.join(f'{z:g}' for z in zooms)} mm) would hold about "
        f"{voxels:,.0f}{metres}; {'else, ' if metres else ''}choose a coarser data.spacing, crop the scans to "
        "the region of interest, or raise data.max_voxels on a machine with more memory")


def _finer_than_most(headers: list, spacing) -> bool:
    """Whether ``spacing`` (data.spacing) is ``FINER_THAN_THE_TARGET`` times finer than the voxels of more than half
    the cases of ``headers`` ((case, its first image)): where a case's own reading and the one the spacing tells are
    both a scan's (``spacing_readings.spacing_doubted``), the spacing is then the one off, given in metres, not most
    cases (``_told_reading``)."""
    coarser = sum(times_coarser(image, spacing) >= FINER_THAN_THE_TARGET for _, image in headers)
    return 2 * coarser > len(headers)


def _told_reading(case, image, spacing, source: str, configured: bool, unit: str | None,
                  spacing_off: bool = False) -> str:
    """What predict says of the case's first image against the same spacing (``spacing_readings.one_file_words``,
    the cases' ``unit`` for the model's, mm where none declares one): the reading of its numbers the spacing tells,
    where it is not the one its header declares, with the line that puts it there; "" otherwise. A case declaring mm
    on micrometre numbers (2 mm voxels written 2000) among cases in mm was told "data.spacing is 1,000 times finer
    than its voxels (given in metres? it is in mm)", or, against the median, that most headers were in metres, where
    predict told its micrometre reading, until the hundred-and-sixteenth session (helper h84,
    ``benchmarks/results/units_train_vs_predict_2026-12-06/``). A reading is told only where it lies no farther
    outside the sizes scans are acquired at than the case's own (``spacing_readings.SCAN_SIZES_MM``): the spacing may
    be the one off (a median of cases mostly in metres, a data.spacing given in metres), which ``_in_metres`` says;
    where both the reading told and the case's own are a scan's (``spacing_readings.spacing_doubted``: micro-CT at 5
    micrometres, 200 voxels across, written in micrometres under mm, is 1 mm across, and 1,000 mm in mm), its words
    are offered after the reading's, where they asserted one or the other until the hundred-and-seventeenth session
    (helper h88, ``benchmarks/results/units_edges_2026-12-06/``). ``spacing_off``: data.spacing is far finer than
    most cases' voxels (``_finer_than_most``), so where both readings are a scan's it is the one off, and
    ``_in_metres`` says so alone: a case's reading in micrometres is a scan's wherever it is 0.1 mm across or more,
    as a scan of 1 mm voxels 100 along is, so a dataset whose every case was right, under a data.spacing given in
    metres, was told to rewrite its cases from micrometres first ("unless data.spacing ... is the one off itself"),
    where it was told "given in metres?" before h88, until the review of h88 (r76,
    ``benchmarks/results/review_units_edges_2026-12-06/``); a case whose own reading is no scan's (2 mm voxels
    written 2000) is told its reading still, however many are so."""
    from .spacing_readings import one_file_words, spacing_doubted  # they read FINER_THAN_THE_TARGET from here

    target = unit if unit in UNIT_MM else "mm"
    cases = "the dataset's cases'" if unit in UNIT_MM else "the dataset's cases', none declaring one, read in"
    volume = Volume("image", case.images[0], image)
    said = one_file_words(volume, spacing, target, source, cases, what="case", scan_sized_only=True)
    doubted = bool(said) and spacing_doubted(volume, spacing, target)
    if not said or doubted and spacing_off:
        return ""
    off = _in_metres(image, spacing, configured, unit) if doubted else ""
    return f": {said}, its label too" + (f"; or, where {source} is the one off{off}" if off else "")


def _in_metres(image, spacing, configured: bool, unit: str | None = None) -> str:
    """What to say of a target spacing ``FINER_THAN_THE_TARGET`` times finer than ``image``'s voxels (along an
    axis of several): the median of a dataset whose headers are mostly in metres, or a data.spacing given so (in
    mm for headers in micrometres, whose numbers it is read in: said so since the hundred-and-sixth session), ""
    otherwise. Such a median was told to be coarser or to crop alone, where check_voxels_in_mm names the
    metres of a case or two (hundred-and-fourth session's review). A case that declares no unit among cases that
    declare mm (``unit``) is the one off, its numbers probably micrometres: it was told the spacing or most headers
    were in metres (hundred-and-sixth session's review)."""
    ratio = times_coarser(image, spacing)
    if ratio < FINER_THAN_THE_TARGET:
        return ""
    if unit == "mm" and spatial_unit(image) == "unknown":
        return (f": its voxels are {ratio:,.0f} times coarser than the spacing, and its header declares no unit "
                f"(xyzt_units) where the training cases' declare mm, so its numbers are probably micrometres: "
                f"rewrite it in mm, its label too (nibabel: {REWRITE_FROM_MICROMETRES_CODE})")
    if configured and spatial_unit(image) == "micron":  # "it is in mm" sent microscopy's users the wrong way
        return (f": data.spacing is {ratio:,.0f} times finer than its voxels, whose header declares micrometres: "
                f"spacings are read in the headers' numbers, so give data.spacing in micrometres (docs/data.md)")
    if configured:
        return f": data.spacing is {ratio:,.0f} times finer than its voxels (given in metres? it is in mm)"
    return (f": the median is {ratio:,.0f} times finer than its voxels, so most headers it is taken from are "
            f"probably in metres, not mm: rewrite those in mm ({REWRITE_IN_MM})")
