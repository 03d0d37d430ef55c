"""Whether two volumes share one voxel grid (shape, orientation, voxel sizes, placement), and how they differ in
words that name them: a case's channels are stacked voxel by voxel and its label compared so (the checks), as
predict and evaluate compare theirs.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple

import nibabel as nib
import numpy as np

from accelerated_seg.data.cases import names_nothing
from accelerated_seg.data.check_report import CheckReport
from accelerated_seg.data.voxel_slabs import grid_shape

#: Largest per-entry difference (mm in the translation column) between two affines still one grid: a header's
#: float rounding. The checks' default, and what predict allows between the channels of a case.
GRID_ATOL_MM = 1e-3
# Grids that place every voxel within this share of a voxel of each other differ by a header's rounding
_ROUNDING_VOXELS = 0.05


class Volume(NamedTuple):
    """An opened file and how messages should call it ("image", "image channel 1", "label"), with the name of the
    channel it holds where the dataset or the model gives one (``name``: "FLAIR"; "" where nothing names it)."""

    role: str
    path: Path
    image: nib.Nifti1Image
    name: str = ""

    @property
    def said(self) -> str:
        """The file's role in a sentence, with its channel's name as ``cases.channel_said`` says a channel: "image
        channel 1 (FLAIR) voxels are 3 x 3 x 3 mm", where "image channel 1 voxels" was said of a named channel until
        the hundred-and-twenty-third session (helper h125); the role alone for a channel nothing names."""
        return f"{self.role} ({self.name})" if self.name else self.role

    @property
    def in_brackets(self) -> str:
        """The file's role inside brackets, beside its path: "b.nii.gz (image channel 1, FLAIR)", not "(image channel
        1 (FLAIR))", brackets in brackets (``said`` elsewhere)."""
        return f"{self.role}, {self.name}" if self.name else self.role


def channel_volume(role: str, path: Path, image: nib.Nifti1Image, name: str) -> Volume:
    """A case's channel file as a :class:`Volume`: ``role`` ("image channel 1", predict's "channel 1"), and the name
    a dataset or model gives the channel, kept where it is a user's (``cases.names_nothing``: ``image_1`` is the
    Dataset's own name for a channel nothing names, said by its index alone, and a blank name is none)."""
    return Volume(role, path, image, "" if names_nothing(name) else name)


def check_same_grid(
    reference: Volume, other: Volume, context: str, fix: str, affine_atol: float, report: CheckReport
) -> None:
    """Two volumes stacked or compared voxel-by-voxel must have the same shape and affine."""
    reference_shape, other_shape = grid_shape(reference.image), grid_shape(other.image)
    if reference_shape != other_shape:
        orientation = orientation_difference(reference, other)
        report.errors.append(
            f"{context}: {other.said} {other.path} has shape {other_shape} but {reference.said} {reference.path} "
            f"has shape {reference_shape}" + (f"; {orientation}" if orientation else "") + f"; {fix}"
        )
        return  # with different shapes the affine comparison adds nothing
    if not (what := _affine_difference(reference, other, affine_atol)):
        return
    if bare := [volume for volume in (reference, other) if without_orientation(volume.image)]:
        # The bare header's grid is nibabel's guess from its voxel sizes (x flipped, centred), so the other
        # file, the one with a true grid, is not the one to resample (sixty-seventh session)
        guessed, placed = bare[0], other if bare[0] is reference else reference
        fix = (f"the {guessed.said} carries no orientation (qform_code and sform_code 0), so its grid here is "
               f"guessed from its voxel sizes: if it was written on the grid of the {placed.said}, copy the "
               f"geometry of the {placed.said} onto it (SimpleITK's CopyInformation); else convert it again (dcm2niix "
               f"writes both codes)") if len(bare) == 1 else fix
    elif (shift := _largest_voxel_shift(reference, other)) < _ROUNDING_VOXELS:
        # An export tool's rounding, not another grid: resampling would blur nothing but is the wrong work
        # the nibabel lines run as they are: they wrote roles as variables ("image channel 0.affine") and, beside a
        # channel's name, two brackets in a row, until review r108 of the hundred-and-twenty-third session; "the
        # geometry of", not a possessive after a name's bracket ("the image (CT)'s geometry"), since helper h127
        fix = (f"no voxel moves by more than {shift:.2g} of a voxel between the two, as an export tool's rounding "
               f"leaves headers: copy the geometry of the {reference.said} onto the {other.said}, with SimpleITK's "
               f"CopyInformation or nibabel: img = nib.load({str(other.path)!r}, mmap=False); "
               f"nib.save(nib.Nifti1Image(np.asanyarray(img.dataobj), nib.load({str(reference.path)!r}).affine, "
               f"img.header), {str(other.path)!r})")
    report.errors.append(
        f"{context}: {other.said} {other.path} and {reference.said} {reference.path} are on different grids: "
        f"{what}; {fix}"
    )


def grid_difference(reference: Volume, other: Volume, affine_atol: float) -> str:
    """How two volumes' voxel grids differ, in words that name their roles (e.g. "image channel 1 is LPS,
    image channel 0 is RAS"), or "" where they share one: the shape, and the affine within
    ``affine_atol``."""
    reference_shape, other_shape = grid_shape(reference.image), grid_shape(other.image)
    if reference_shape != other_shape:
        orientation = orientation_difference(reference, other)
        return (f"{other.said} has shape {other_shape}, {reference.said} has {reference_shape}"
                + (f"; {orientation}" if orientation else ""))
    return _affine_difference(reference, other, affine_atol)


def _affine_difference(reference: Volume, other: Volume, affine_atol: float) -> str:
    """How the affines of two volumes of one shape differ (orientation, voxel sizes, or else placement)."""
    difference = float(np.max(np.abs(other.image.affine - reference.image.affine)))
    if difference <= affine_atol:  # written this way round so that a NaN affine fails
        return ""
    what = [
        part for part in (orientation_difference(reference, other), _spacing_difference(reference, other, affine_atol))
        if part
    ] or [_placement_difference(reference, other, affine_atol)]
    return "; ".join(what)


def stacking_shift(reference: Volume, other: Volume) -> str:
    """How far ``other``'s grid places a voxel from where ``reference``'s does, in words, where that is a
    share of a voxel beyond a header's rounding (``_ROUNDING_VOXELS``); "" within it (or where an affine
    cannot say: the other checks do). For channels whose affines agree within ``GRID_ATOL_MM`` an entry:
    they are stacked voxel by voxel on the first one's grid (``preprocess.NiftiReader``), and an entry's
    1e-3 over an axis's length is more than a rounding (a voxel size 1e-3 mm off moves the far end of a
    512-voxel axis by half a voxel), which MONAI's stacking refused and a review's probe found stacked
    without a word."""
    shift = _largest_voxel_shift(reference, other)
    if not shift >= _ROUNDING_VOXELS:  # NaN: a damaged affine, said by the header checks
        return ""
    return (f"their affines differ by {GRID_ATOL_MM} or less in every entry, yet {other.said} places a voxel "
            f"{shift:.2g} of a voxel from where {reference.said} does, more than a header's rounding "
            f"({_ROUNDING_VOXELS} of a voxel), and the channels are stacked voxel by voxel")


def without_orientation(image: nib.Nifti1Image) -> bool:
    header = image.header
    return header.get("qform_code", 1) == 0 and header.get("sform_code", 1) == 0


def _largest_voxel_shift(reference: Volume, other: Volume) -> float:
    """How far, in the reference's voxels, the other grid places any corner of the volume from where the
    reference places it (NaN where either affine cannot be inverted or holds NaN)."""
    shape = np.array(grid_shape(reference.image), dtype=float) - 1
    corners = np.array([[x, y, z, 1.0] for x in (0, shape[0]) for y in (0, shape[1]) for z in (0, shape[2])]).T
    try:
        in_reference_voxels = np.linalg.inv(reference.image.affine) @ other.image.affine @ corners
    except np.linalg.LinAlgError:
        return math.nan
    return float(np.max(np.abs(in_reference_voxels[:3] - corners[:3])))


def orientation_difference(reference: Volume, other: Volume) -> str:
    """E.g. "label is LPS, image is RAS", or "" when both point the same way."""
    reference_codes, other_codes = _axcodes(reference.image), _axcodes(other.image)
    if reference_codes == other_codes:
        return ""
    return f"{other.said} is {other_codes}, {reference.said} is {reference_codes}"


def _spacing_difference(reference: Volume, other: Volume, atol: float) -> str:
    """E.g. "label voxels are 1 x 1 x 3 mm, image voxels 1 x 1 x 2 mm", or ""."""
    reference_spacing = nib.affines.voxel_sizes(reference.image.affine)
    other_spacing = nib.affines.voxel_sizes(other.image.affine)
    if np.allclose(reference_spacing, other_spacing, rtol=0, atol=atol):
        return ""
    return f"{other.said} voxels are {_mm(other_spacing)}, {reference.said} voxels {_mm(reference_spacing)}"


def _placement_difference(reference: Volume, other: Volume, atol: float) -> str:
    """Same orientation and spacing: the grids are shifted, or tilted by less than an axis swap."""
    reference_affine, other_affine = reference.image.affine, other.image.affine
    if np.allclose(reference_affine[:3, :3], other_affine[:3, :3], rtol=0, atol=atol):
        shift = float(np.linalg.norm(other_affine[:3, 3] - reference_affine[:3, 3]))
        # the points follow their roles outside brackets: "(image channel 1 (FLAIR) (5, 0, 0) mm, ...)" nested three
        return (
            f"the origins differ by {shift:.3g} mm, {other.said} at {_mm_point(other_affine[:3, 3])} and "
            f"{reference.said} at {_mm_point(reference_affine[:3, 3])}"
        )
    difference = float(np.max(np.abs(other_affine[:3, :3] - reference_affine[:3, :3])))
    return f"the axis directions differ (largest direction/spacing matrix difference {difference:.3g} > {atol})"


def _mm_point(point: np.ndarray) -> str:
    return "(" + ", ".join(f"{float(value):.4g}" for value in point) + ") mm"


def _axcodes(image: nib.Nifti1Image) -> str:
    try:
        return "".join(code or "?" for code in nib.aff2axcodes(image.affine))
    except Exception:  # a degenerate (e.g. zero or NaN) affine has no orientation
        return "undefined"


def _mm(spacing: np.ndarray) -> str:
    return " x ".join(f"{float(size):.4g}" for size in spacing) + " mm"
