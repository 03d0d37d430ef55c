"""Reading one case's channel files for prediction, and what is refused or warned of in them before any
network runs.

``read_channels`` reads every channel of a case: the headers first, their voxel sizes' units judged
against the model's and each other's in one refusal (``_refuse_channel_units``) before any voxel is
decompressed; then the voxels, which must share one grid, hold the volumes the model takes, and be
finite; a scan segmented all the same but perhaps not as meant (one slice, no orientation, two voxel
sizes, a label map of ours) is warned of. ``inference.prepare_case`` then refuses, from the first
channel's header, voxels far finer than the model's spacing (``refuse_voxels_far_finer``; a header of mm taken at its
word there, far finer than the training cases' median too: ``_refuse_far_finer_than_the_cases``) and a
resampling beyond the host's memory (``refuse_beyond_host_memory``), and warns of a few voxels that
make a channel's z-score (``warn_of_dominant_voxels``), before it preprocesses the case. Each refusal
is a ``DataError`` naming the file and what to do; nothing here preprocesses or knows the network.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Sequence

import nibabel as nib
import numpy as np

from .data.case_units import judge_units
from .data.checks import (GRID_ATOL_MM, Volume, channel_first_advice, dominant_voxels_said, grid_difference,
                          intensity_spread, non_finite_counts, one_volume, stacking_shift, vector_layout_advice,
                          volumes_in, without_orientation)
from .data.errors import DataError
from .data.formats.paths import is_gzipped
from .data.grid_agreement import channel_volume
from .data.header_units import spatial_unit
from .data.io import (PLACEMENT_CONFLICT_FIX, VOXEL_SIZE_CONFLICT_FIX, content_not_fetched, header_error,
                      placement_conflict, read_nifti, voxel_size_conflict)
from .data.preprocess_settings import CASES_MEDIAN_KEY, cases_median_spacing, spacing_unit, spacing_was_set
from .data.spacing import (DECLARE_MM, FINER_THAN_THE_TARGET, REWRITE_FROM_MICROMETRES_CODE, declared_in_mm,
                           far_finer, far_finer_words, finer_than_the_median_words, other_unit_words,
                           resampled_shape_of, times_coarser, times_off)
from .data.volume_opening import channel_file_of_several_said, one_file_for_channels_said
from .host_memory import memory_available
from .inference_case_units import spacing_case_words
from .inference_inputs import channel_order, channels_named, channels_taken, check_no_folder_as_a_channel
from .own_warnings import AcceleratedSegWarning
from .predict_marks import PREDICTION_DESCRIP
from .predict_names import PREDICT_CASE_NAMES


def _another_unit_refusal(config: dict, paths: Sequence[Path], images: Sequence, spacing) -> str | None:
    """The refusal of a scan whose header declares its voxel sizes in another unit than the model's training cases' did
    (config.json's ``spacing_unit``): its numbers are read as they are, so a scan in micrometres for a model in mm
    was resampled to 1000 times its size along each axis (memory for a billion times the voxels), and one in mm for
    a model in micrometres, declaring mm, to a voxel or two, until the hundred-and-sixth session. Where the model
    or the scan declares no unit (an export made before then, nibabel's default) nothing is judged: the far finer
    check below still refuses a header in metres. Every channel of the case (``images`` at ``paths``) in another
    unit is named in one refusal, a line for each unit: each was refused one after the other until the
    hundred-and-eleventh session (a channel in metres beside one in micrometres, until its review). The refusal's
    words, or None."""
    recorded = spacing_unit(config)
    if spacing is None or recorded is None:
        return None
    off: dict[str, list] = {}  # unit -> the channels declaring it, each unit's said once, all in one refusal
    for path, image in zip(paths, images):
        if spatial_unit(image) not in ("unknown", recorded):
            off.setdefault(spatial_unit(image), []).append((path, image))
    if not off:
        return None
    # a channel in micrometres and one in metres for a model in mm were refused one after the other (a case of one
    # file whose numbers the spacing tells are in another unit is told by spacing_case_words before this)
    return "\n".join(other_unit_words(path, image, recorded, spacing, alike=[other for other, _ in rest])
                     for (path, image), *rest in off.values())


def _refuse_channel_units(config: dict, paths: Sequence[Path], images: Sequence, spacing) -> None:
    """Refuse a case whose channels (``images`` at ``paths``) declare another unit than the model's
    (``_another_unit_refusal``), or than each other's, in one error naming every channel of a mix-up
    (``case_units.judge_units``, the pre-flight check's rule and words). Before the grids are compared, whose
    refusal would send the user the wrong way: the first channel's unit alone was judged, so a second one in
    micrometres beside one in mm for a model in mm was told to be resampled onto the first one's grid (1000 times
    apart), and one declaring micrometres with the first one's numbers was segmented unjudged, until the
    hundred-and-seventh session; each channel was judged as it was read, so two in micrometres beside a channel 0
    in mm were refused one after the other, and a channel 0 of no unit beside channels in micrometres and in mm was
    told to rewrite the one in micrometres alone, until the hundred-and-eleventh. A channel declaring no unit agrees
    with any, as a case's header does with the model's, but one beside a channel in micrometres or metres, voxel
    sizes that unit's factor apart, is told the unit is the likely cause (it was told to resample onto the first
    one's grid until a review of the hundred-and-seventh session); that is judged whatever the spacing, the declared
    units only against one, as they matter to the resampling alone. Of two channels in two units, the one whose
    numbers are farther off the model's spacing is named, its rewrite offered first: a first channel in
    micrometres beside a second in mm, for a model of no unit at 2.5, was told to rewrite the second in
    micrometres, after which the first was refused by the host's memory (a review's probe of the
    hundred-and-seventh session); numbers alike (a unit alone declared wrong), the later one is named.

    A case's channel files are read together first, as the pre-flight check reads a training case, the reading
    nearest the model's spacing told (``inference_case_units.spacing_case_words``): judged file by file, the first
    lines offered left a file 1,000 times off in 30 of the 64 two-channel combinations of eight kinds of file
    (beside 2 of two files alike), and 6 more were told the grid's "resample every channel onto the first one's
    grid", for a model in mm (benchmarks/results/predict_case_units_2026-12-06/; until the hundred-and-fourteenth
    session, helper h72); files alike, a model in micrometres or metres and one of no spacing were judged file by
    file until the hundred-and-fifteenth (h78). A case of one file is read so too, for a model that records its unit
    (a single file for a model in micrometres or metres was told a wrong line or none in 7 of 16 kinds until helper
    h81 of the hundred-and-fifteenth)"""
    volumes = _channel_volumes(config, paths, images)
    refusal = _another_unit_refusal(config, paths, images, spacing) or _units_judged_together(volumes, spacing)
    # the case's channel files read together against the model's spacing, as training's check reads a case
    if said := spacing_case_words(volumes, spacing, refusal is not None, spacing_unit(config),
                                  mm_at_its_word=spacing_was_set(config)):
        raise DataError(said)
    if refusal is not None:
        raise DataError(refusal)


def _channel_volumes(config: dict, paths: Sequence[Path], images: Sequence) -> list[Volume]:
    """A case's channel files (``images`` at ``paths``) as the grids' and units' refusals name them: "channel 1", and
    the name config.json gives it, "channel 1 (FLAIR)", where each file is one of the model's channels (one file for
    a model of several holds them all, and is no one of them) and the name is a user's (``channel_volume``). Said by
    the index alone until the hundred-and-twenty-third session (helper h125): "channel 1 voxels are 3 x 3 x 3 mm"
    of a model of named channels, where its other refusals said "channel 1 (FLAIR)"
    (``inference_inputs.channel_order``)."""
    names = channels_named(config) if len(paths) == int(config["in_channels"]) else {}
    return [channel_volume(f"channel {index}", path, image, names.get(index, ""))
            for index, (path, image) in enumerate(zip(paths, images))]


def channel_units_refusal(config: dict, paths: Sequence[Path], spacing) -> str | None:
    """What predict says of the units of a case's channel files at ``paths`` (``_refuse_channel_units``, from
    their headers alone, ``spacing``: the model's), or None where it takes them or a header cannot be read (the
    caller's check says that). ``Segmentation.evaluate`` judges its validation cases so before the pre-flight
    check, whose words, without the model's spacing, contradicted predict's (review of h72: a channel of no unit on
    micrometre numbers beside one in mm was told ``resample the channels onto one grid``, predict's refusal
    ``rewrite ... from micrometres``)."""
    try:
        headers = [_header_of(Path(path)) for path in paths]
    except DataError:
        return None
    try:
        _refuse_channel_units(config, [Path(path) for path in paths], headers, spacing)
    except DataError as refusal:
        return str(refusal)
    return None


def _units_judged_together(volumes: Sequence[Volume], spacing) -> str | None:
    """The pre-flight check's judgement of a case's units (``case_units.judge_units``) for ``volumes``, its channels:
    the refusal's words, or None."""
    to = None if spacing is None else f"the model's spacing {' x '.join(f'{size:g}' for size in spacing)}"
    verdict = judge_units(volumes, to, "resample every channel onto the first one's grid",
                          nearest=None if spacing is None else lambda volume: times_off(volume.image, spacing))
    # one for each unit off against the same channel: several only where three units are mixed
    return "\n".join(said for _, said in verdict.errors) if verdict.errors else None


def refuse_voxels_far_finer(config: dict, path: Path, image, spacing) -> None:
    """Refuse a scan whose voxels are ``far_finer`` than the model's spacing, as training refused such a case
    (``check_voxels_in_mm``): resampled to a voxel or two and segmented as such, exit 0, until the
    hundred-and-fourth session. A header that declares mm is taken at its word where the model's spacing was
    set (``spacing_was_set``), not where it is its training cases' median, which training refuses such a case
    against: predict took it for either model until the hundred-and-fifth session, which has the export say; nor
    where it is far finer than the training cases' median too (``_refuse_far_finer_than_the_cases``)."""
    if spacing is None or not far_finer(image, spacing):
        return
    if spacing_was_set(config):
        if declared_in_mm(image):
            _refuse_far_finer_than_the_cases(config, path, image, spacing)
            return
        said = far_finer_words(path, image, spacing, "the model's spacing", spacing_unit(config))
        raise DataError(f"{path}: {said}; or, if its voxels are that fine indeed and the model was trained "
                        f"coarser on purpose, {DECLARE_MM}")
    # an ensemble's is a median where one member's is (load_for_prediction): "this model's" named no member, and
    # the members whose spacing was set take the header at its word alone (a review of the hundred-and-fifth session)
    ensemble = "ensemble" in config
    source = ("the members' spacing (one member's or more is its training cases' median)" if ensemble else
              "the model's spacing (its training cases' median)")
    said = far_finer_words(path, image, spacing, source, spacing_unit(config))
    # the header's mm, which a spacing set takes at its word, is no way past a median: said where it is given
    whose = ("a member's of this ensemble is a median: predict with the members whose config.json says "
             '"spacing_set": true alone') if ensemble else "this model's is a median"
    declared = (". Its header declares mm, which is taken at its word only against a spacing set "
                f"(data.spacing), and {whose}") if declared_in_mm(image) else ""
    raise DataError(f"{path}: {said}{declared}")


def _refuse_far_finer_than_the_cases(config: dict, path: Path, image, spacing) -> None:
    """Refuse a scan whose header declares mm, ``far_finer`` than the model's spacing set coarser on purpose, where it
    is far finer than the training cases' median voxel size too (config.json's ``cases_median_spacing``), as training
    refuses such a case (``spacing.check_voxels_in_mm``): micro-CT resampled coarser on purpose is most of a dataset's
    cases, its median as fine, where a scan in metres under a header of mm (as ITK writes any numbers) is 1,000 times
    finer than the cases it is meant to be like. Predict took it at its word, a voxel or two once resampled, exit 0,
    the export having no record of the cases' voxels, until the hundred-and-nineteenth session (helper h105,
    ``benchmarks/results/predict_training_voxels_2026-12-06/``); an export made before then records none, and is
    judged as before. An ensemble's median is the coarsest of its members' along each axis (``ensemble``)."""
    median = cases_median_spacing(config)
    if median is None or not far_finer(image, median):
        return
    ensemble = "ensemble" in config
    said = far_finer_words(path, image, spacing, "the members' spacing" if ensemble else "the model's spacing",
                           spacing_unit(config))
    # an ensemble's is no member's where theirs differ: said so (the review of h105)
    named = ("the coarsest along each axis of the members' training cases' median voxel sizes," if ensemble else
             "the model's training cases' median voxel size")
    raise DataError(f"{path}: {said} ({finer_than_the_median_words(image, median, 'predict', named)}; config.json's "
                    f"{CASES_MEDIAN_KEY})")


def refuse_beyond_host_memory(config: dict, path: Path, image, spacing) -> None:
    """Refuse a scan whose resampled volume alone, in float32, would take more memory than the host has left
    (``host_memory.memory_available``): a scan whose header is in micrometres for a model whose training cases
    declared no unit (or one declaring none for a model in micrometres), 1000 times coarser than its spacing, was
    resampled to a billion times its voxels, torch's allocator traceback for 44 TB (hundred-and-sixth session's
    review), where training refuses such a case by its budget (data.max_voxels, which the export does not record).
    The host's memory, as the preprocessing runs there where a GPU cannot hold it (``transforms_device``), without
    swap: this figure is a floor, the prediction's peak 8.6-8.7 times it (benchmarks/results/
    predict_memory_refusal_swap_2026-12-05), and each stage sweeps the whole volume, so one that fits only with swap
    would page all of it at every stage (hundred-and-seventh session's choice, docs/inference.md). The
    micrometres' rewrite is named for a model in mm or of no unit alone: for one in micrometres it was named too,
    and made the scan one of another unit than the model's, refused so, until the hundred-and-sixth session's read
    of the whole change."""
    available = memory_available()
    if spacing is None or available is None:
        return
    shape = resampled_shape_of(image, spacing)  # as MONAI's Spacingd counts each axis
    need = 4 * int(config["in_channels"]) * float(np.prod(shape, dtype=np.float64))
    if need <= available:
        return
    coarser = times_coarser(image, spacing)
    # micrometres for a model in mm, or of no unit: for one in micrometres the line to mm made a scan of another unit,
    # and for one in metres (a file of metres on 0.5 x 0.5 x 300, which no reading the spacing tells) it was named too
    # until the review of helper h81 of the hundred-and-fifteenth session
    in_micrometres = coarser >= FINER_THAN_THE_TARGET and spacing_unit(config) in (None, "mm")
    unit = (f" Its voxels are {coarser:,.0f} times coarser than the model's spacing: its header is probably in "
            f"another unit than the model's training scans' (micrometres where theirs were mm: rewrite it in mm, "
            f"nibabel: {REWRITE_FROM_MICROMETRES_CODE}); else," if in_micrometres else "")
    if coarser >= FINER_THAN_THE_TARGET and spacing_unit(config) in ("micron", "meter"):
        # a reading in another unit near the spacing is told before this (inference_case_units): none is, so no
        # unit's line would bring it there; such a scan was told to crop or resample it alone, as if merely large,
        # until the hundred-and-sixteenth session (helper h84)
        unit = (f" Its voxels are {coarser:,.0f} times coarser than the model's spacing, and read in no other unit "
                f"do its numbers come within {FINER_THAN_THE_TARGET} times of it: check the voxel size it was acquired "
                f"at; else,")
    zooms = " x ".join(f"{zoom:g}" for zoom in nib.affines.voxel_sizes(image.affine))
    raise DataError(f"{path}: resampled to the model's spacing {' x '.join(f'{s:g}' for s in spacing)}, its "
                    f"{' x '.join(map(str, image.shape[:3]))} voxels of {zooms} would become "
                    f"{' x '.join(map(str, shape))}, at least {need / 2**30:,.1f} GiB, and {available / 2**30:,.1f} "
                    f"GiB is available.{unit} {'c' if unit else 'C'}rop it to the region of interest or resample it "
                    f"coarser before predicting, or predict on a machine with more memory")


def _warn_of_doubtful_geometry(paths: Sequence[Path], images: Sequence[nib.spatialimages.SpatialImage]) -> None:
    """Warn of a scan that is segmented all the same, but perhaps not as its user means it: one slice
    alone, a header without orientation, or one that gives two voxel sizes. The demo's model, on its
    phantoms (benchmarks/results/header_variants_2cpu.json): Dice 0.44 and 0.11 on a middle slice
    alone against 0.98 and 0.88 there from the whole volume; 0.90-0.92 on copies without orientation
    whose axes nibabel's guess swaps, 0.96 with their codes."""
    reference = images[0]
    if 1 in reference.shape[:3]:
        warnings.warn(f"{paths[0]}: a single slice, shape {reference.shape[:3]}: the 3D network sees it padded to "
                      "its patch, without the context above and below that it learned from; give the whole volume",
                      AcceleratedSegWarning, stacklevel=3)
    if without_orientation(reference):
        guess = "".join(nib.aff2axcodes(reference.affine))
        warnings.warn(f"{paths[0]}: its header gives no orientation (qform_code and sform_code 0), so nibabel guesses "
                      f"one from pixdim ({guess}, no rotation) and the network sees the anatomy placed so, perhaps "
                      "mirrored from what it learned; copy the geometry of the scan it came from onto it, or convert "
                      "it again (dcm2niix writes both codes)", AcceleratedSegWarning, stacklevel=3)
    for path, image in zip(paths, images):
        if conflict := voxel_size_conflict(image):
            warnings.warn(f"{path}: its header gives two voxel sizes ({conflict}); {VOXEL_SIZE_CONFLICT_FIX}",
                          AcceleratedSegWarning, stacklevel=3)
        if conflict := placement_conflict(image):  # the label map is written with both: the same disagreement
            warnings.warn(f"{path}: its qform and sform place the voxels apart ({conflict}); {PLACEMENT_CONFLICT_FIX}",
                          AcceleratedSegWarning, stacklevel=3)
    if reference.header["descrip"].item().startswith(PREDICTION_DESCRIP):  # a folder of ours given as the scans
        warnings.warn(f"{paths[0]}: its header says predict wrote it, so it is a label map, not a scan; it is "
                      f"segmented all the same (give the scans' folder, not the predictions')",
                      AcceleratedSegWarning, stacklevel=3)


def warn_of_dominant_voxels(paths: Sequence[Path], images: Sequence[nib.spatialimages.SpatialImage]) -> None:
    """Warn of a channel one voxel of which, or a few, make its z-score (``data/intensity_spread.py``), as
    training's pre-flight check does: the network sees the rest of the scan squeezed towards 0, and segments
    little or nothing of it. One more pass over the voxels read already."""
    for path, image in zip(paths, images):
        spread = intensity_spread(image)
        for channel, what, way_on in dominant_voxels_said(spread, image):
            which = f" (volume {channel} of the file)" if len(spread.count) > 1 else ""
            warnings.warn(f"{path}{which}: {what}, and the network may segment less of it; {way_on}",
                          AcceleratedSegWarning, stacklevel=3)


def channel_volumes_refusal(config: dict, paths: Sequence[Path], shapes: Sequence[tuple[int, ...]]) -> str | None:
    """What predict says of a case whose channel files at ``paths``, of ``shapes`` (their headers'), do not hold the
    model's channels: one 3D volume each, or, one file given, all of them as (x, y, z, C); None where they do. One
    file of another number of volumes for a model of several channels is said in the words of training's check of it
    (``one_file_for_channels_said``); evaluate judges its cases by this too, from their headers (review r92 of the
    hundred-and-twentieth session: a case of one (x, y, z, 2) file predict took, evaluate refused)."""
    in_channels = config["in_channels"]
    expected = in_channels if len(paths) == 1 else 1
    for path, shape in zip(paths, shapes):
        if (held := volumes_in(shape)) == expected:
            continue
        if advice := vector_layout_advice(shape) or channel_first_advice(shape, "image"):
            return f"{path}: {advice}"  # "holds not 3D volume(s)" said nothing of either
        if expected > 1:
            return f"{path}: {one_file_for_channels_said(shape, in_channels, 'the model takes', channel_order(config))}"
        if in_channels > 1:  # one of its several files: "the model takes one channel" said of a 2-channel model
            said = channel_file_of_several_said(shape, in_channels, "the model takes", channel_order(config))
            return f"{path}: {said}"
        return (f"{path}: a {len(shape)}D image {tuple(shape)} holds {held or 'not'} 3D volume(s), but the model takes "
                f"{channels_taken(config)}: give the one 3D volume it was trained on")
    return None


def channel_files_refusal(config: dict, paths: Sequence[Path], images: Sequence) -> str | None:
    """What predict and ``Segmentation.evaluate`` say of a case whose channel files at ``paths`` (``images``, their
    headers read) are not the model's channels on one voxel grid, or None where they are: the volumes each file holds
    first (``channel_volumes_refusal``), then whether they share the first one's grid. Volumes first, as training's
    check does (a file of another number of volumes is not compared there): they say whether the right files are
    given at all, and a file that is the wrong one, or holds every channel where one was expected, is no file to
    resample; its grid told first sent the user to resample a file the next refusal then sent back. evaluate named
    the volumes first and predict the grid, for the same case, until the hundred-and-twenty-first session (helper
    h112, benchmarks/results/channel_words_2026-12-07/). From the headers alone, before any voxel is decompressed,
    but for a case refused for its grids, whose files shorter than their headers need (or of a length a gzip stream
    does not tell) are read whole to name any that is truncated or corrupt (``_damaged_files``) in the same refusal."""
    if (refusal := channel_volumes_refusal(config, paths, [image.shape for image in images])) is not None:
        return refusal
    first, *others = _channel_volumes(config, paths, images)
    for this in others:
        # Training's tolerance (a header's rounding): 1e-4 here refused a case whose channels training took
        if what := grid_difference(first, this, affine_atol=GRID_ATOL_MM) or stacking_shift(first, this):
            # after a colon, as training's check says it: "(channel 1 (FLAIR) voxels are ...)" nested brackets
            grid = (f"{this.path} and {first.path} are channels of one case but do not share a voxel grid: {what}; "
                    f"resample every channel onto the first one's grid")
            return "; besides, ".join([*_damaged_files(paths, images), grid])
    return None


def _damaged_files(paths: Sequence[Path], images: Sequence) -> list[str]:
    """``read_nifti``'s refusal of each of ``paths`` (``images``, their headers read) whose voxels cannot be read
    whole (truncated, a bad gzip CRC), for a case refused for its grids: its headers alone judged, a truncated
    channel on another grid than the first was told the grid, and its truncation once the grid was mended, a round
    later, by predict and evaluate alike (a file that cannot be read is no file to resample either) until the
    hundred-and-twenty-second session (helper h119, benchmarks/results/channel_words_left_2026-12-07/). A file as long
    as its header needs (``_as_long_as_its_header_needs``) is not decompressed: every file of every such case was,
    so evaluate's refusal of 6 cases of 2 channels of 8.6 MB, each on two grids, took 1.4-4.4 s, not 0.03-0.15 s,
    as long as reading them to score them (that session's review, benchmarks/results/review_channel_words_2026-12-07/);
    a flipped bit in a stream of the right length is told when the file is read, as before that session."""
    damaged = []
    for path, image in zip(paths, images):
        if _as_long_as_its_header_needs(path, image):
            continue
        try:
            read_nifti(path)  # the whole gzip stream, its length and CRC; the bytes dropped at once
        except DataError as refusal:
            damaged.append(str(refusal))
    return damaged


def _as_long_as_its_header_needs(path: Path, image) -> bool:
    """Whether the file at ``path`` (``image``, its header read) holds the bytes its header needs, judged without
    decompressing it: an uncompressed file's size (``read_nifti``'s own test of it), a gzip stream's last four bytes
    (ISIZE, the length it decompresses to, modulo 2**32; those of a stream cut short are its compressed middle, that
    length by a chance of 2**-32). False where it cannot tell: another length (a stream of several gzip members, the
    bgzip's, or bytes after the voxels), which ``read_nifti`` then judges, reading it whole."""
    try:
        proxy = image.dataobj
        needed = int(proxy.offset) + int(np.prod(proxy.shape, dtype=np.int64)) * proxy.dtype.itemsize
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if not is_gzipped(path):
                return size >= needed
            if size < 18:  # a gzip stream's header and trailer
                return False
            stream.seek(-4, os.SEEK_END)
            return int.from_bytes(stream.read(4), "little") == needed % 2**32
    except Exception:  # noqa: BLE001 - any doubt is read_nifti's to judge, reading the file whole
        return False


def read_channels(paths: Sequence[Path], config: dict,
                  spacing: Sequence[float] | None) -> list[nib.spatialimages.SpatialImage]:
    """Read every channel (verifying each gzip stream now, and keeping the decompressed bytes); require
    each header's unit to be the model's and the other channels' (``_refuse_channel_units``, ``spacing``: the
    model's), one voxel grid for all and finite voxels in each; return the images in the order of ``paths``, one stored
    behind size-1 axes, (x, y, z, 1, 1), as its (x, y, z) volume (``one_volume``, as the checks read it). One
    path for several channels must hold them along a fourth axis (x, y, z, channel), as the Decathlon's
    BrainTumour files do."""
    check_no_folder_as_a_channel(paths, PREDICT_CASE_NAMES)  # predict_file's callers are told before the model loads
    for path in paths:  # read_nifti's own message speaks of a dataset description
        if (absent := content_not_fetched(path)) is not None:  # a git-annex link is no file either
            raise DataError(f"{path}: {absent}")
        if not path.is_file():
            raise DataError(f"{path}: no such file; give the scan's NIfTI file (one per channel)")
    # Every channel's header first (a lazy load reads nothing else), its units judged with the others' in one
    # refusal (_refuse_channel_units), before any voxel is decompressed: every channel was read whole first, so a
    # 4-channel case of 192^3 whose channel 0 declared micrometres took 1.1-1.9 s and 81 MB more to refuse, not
    # 0.01-0.03 s (hundred-and-eleventh session's review)
    headers = [_header_of(path) for path in paths]
    if len(headers[0].shape) < 3:
        raise DataError(f"{paths[0]}: a {len(headers[0].shape)}D image {headers[0].shape}; the model segments 3D "
                        f"volumes: give the whole volume, not a slice")
    for path, header in zip(paths, headers):
        _require_usable_header(path, header)
    _refuse_channel_units(config, paths, headers, spacing)  # every channel's, in one error
    # the volumes each file holds, then their grids, from the headers as evaluate judges them (channel_files_refusal)
    if (refusal := channel_files_refusal(config, paths, headers)) is not None:
        raise DataError(refusal)
    channel_images = [read_nifti(path) for path in paths]
    # one volume behind size-1 axes, (x, y, z, 1, 1), read as (x, y, z), as the checks and training read it
    channel_images = [one_volume(image) for image in channel_images]
    # after the refusals: a scan saved channel first, (1, x, y, z), was warned of as "a single slice" above the
    # error that says what it is (hundred-and-fourth session)
    _warn_of_doubtful_geometry(paths, channel_images)
    for path, image in zip(paths, channel_images):
        # Checked on the stored voxels, not after preprocessing: the foreground crop keeps only voxels
        # above 0, so NaN outside it (or an all-NaN image, cropped to nothing) would vanish there and
        # come back as a background map without a word.
        nan, infinite = non_finite_counts(image)
        if nan or infinite:
            raise DataError(f"{path}: {nan + infinite} non-finite voxel(s) ({nan} NaN, {infinite} Inf); replace "
                            f"them (e.g. with the background intensity) before predicting, as training's "
                            f"pre-flight check requires")
    return channel_images


def _header_of(path: Path):
    """``path``'s image, its header read and its voxels left where they are (a lazy load); a file that cannot be
    read so is read whole, for the words of that read ("corrupt or not a gzip file (BadGzipFile: ...)" of a file
    that is not gzip at all, where nibabel's lazy load says "File ... is not a gzip file")."""
    try:
        return read_nifti(path, verify_stream=False)
    except DataError:
        return read_nifti(path)


def _require_usable_header(path: Path, image) -> None:
    if (error := header_error(path, image)) is not None:  # MONAI's loading or reorientation would fail on it
        raise error
