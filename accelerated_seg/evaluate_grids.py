"""Where a prediction's voxels lie against its label's, for ``accelerated-seg evaluate``: the two must be on one
voxel grid (``check_same_grid``: shape and affine, or another axis order or direction of the same voxels, laid
onto the label's without resampling), and the distances are measured in mm along the label's axes
(``voxel_spacing``), approximate on a sheared grid (``shear_degrees``, a gantry tilt). Moved out of
``evaluate.py`` in the ninety-sixth session; importable from there as before.
"""

from __future__ import annotations

from pathlib import Path

import nibabel as nib
import numpy as np

from .data.checks import Volume, grid_difference, orientation_difference, without_orientation
from .data.errors import DataError
from .data.case_units import unit_likely_apart
from .data.header_units import channel_in_another_unit, channel_units_words
from .data.io import header_error
from .label_map_reading import nothing_but_nan_said

# Affines of a prediction and its label may differ by float32 rounding of the header (~1e-5 mm) but
# not by anything a viewer would show; 1e-3 mm is far below any voxel.
GEOMETRY_ATOL_MM = 1e-3
# A grid sheared more than this (a gantry tilt) is named in the summary: its distances are approximate.
# A float32 sform of perpendicular axes reads as sheared by up to ~4e-6 degrees (3.8e-6 the largest, 1.1e-6 the
# median, over 2000 random rotations at spacings 0.3-5 mm; a qform, a quaternion, ~1e-14): far below this.
SHEAR_NOTED_DEGREES = 0.5


def voxel_spacing(affine: np.ndarray) -> tuple[float, float, float]:
    """Voxel size in mm along each array axis: the lengths of the affine's first three columns."""
    return tuple(float(s) for s in nib.affines.voxel_sizes(np.asarray(affine))[:3])


def shear_degrees(affine: np.ndarray) -> float:
    """How far, in degrees, the grid's axes are from perpendicular (0 for any rotation or flip): a CT
    with a gantry tilt is stored sheared. ``voxel_spacing`` takes the axes as perpendicular, so the
    distances measured on such a grid are approximate."""
    axes = np.asarray(affine, dtype=float)[:3, :3]
    axes = axes / np.linalg.norm(axes, axis=0)
    cosines = [abs(float(axes[:, i] @ axes[:, j])) for i, j in ((0, 1), (0, 2), (1, 2))]
    return float(np.degrees(np.arcsin(min(max(cosines), 1.0))))


#: What a prediction off its reference's grid is told: the reference is the truth, never resampled
_ONTO_THE_LABELS_GRID = ("predict from the image this label belongs to (accelerated-seg predict writes the input's "
                         "grid), or resample the prediction onto the label's grid with nearest-neighbour interpolation")


def check_same_grid(pred: nib.spatialimages.SpatialImage, label: nib.spatialimages.SpatialImage, pred_path: Path,
                    label_path: Path, atol_mm: float = GEOMETRY_ATOL_MM) -> np.ndarray | None:
    """Require the prediction to lie on the label's voxel grid (shape and affine), as stored or in another
    axis order or direction (another tool's output written LPS against a RAS label, say).

    Returns:
        The nibabel orientation transform that puts the prediction's array on the label's grid, voxel for
        voxel (``nib.orientations.apply_orientation``); None where it lies there as stored.

    Raises:
        DataError: naming both files and what differs.
    """
    for path, image, role in ((label_path, label, "reference"), (pred_path, pred, "prediction")):
        if (error := header_error(path, image)) is not None:  # the distances are in mm from the affine
            raise error
        if len(image.shape) < 3:  # else "spacing (2.0, 2.0, 2.0) must give one voxel size per axis", no file named
            raise DataError(f"{path}: a {len(image.shape)}D image {image.shape}; evaluate scores 3D label maps "
                            f"(x, y, z): give the label map of the whole volume, as predict writes it")
        if int(np.prod(image.shape[3:])) > 1 and image.get_data_dtype().kind == "f":
            _refuse_nothing_but_nan(image, path, role)  # before "N volumes": their argmax would hide the NaN
        if image is pred and len(pred.shape) == 4 and tuple(pred.shape[1:]) == tuple(label.shape[:3]):
            # torch's and MONAI's (C, x, y, z) saved as it is: NIfTI reads z volumes of (C, x, y), which was
            # told as "39 volumes" alone before the ninety-fifth session
            raise DataError(f"{path}: shape {tuple(pred.shape)}, the label's {tuple(label.shape[:3])} behind a "
                            f"first axis of {pred.shape[0]}: a channels-first array (a one-hot or probability map, "
                            f"as torch and MONAI hold it) saved as it is; give the label map (its argmax over that "
                            f"first axis, saved with the label's affine)")
        if (volumes := int(np.prod(image.shape[3:]))) > 1:  # "not on one voxel grid ... resample" misled
            raise DataError(f"{path}: {volumes} volumes (shape {image.shape}), where evaluate scores one 3D label "
                            f"map per case: give the label map (a one-hot or probability map, such as predict's "
                            f"<case>_probs.nii.gz, is none)")
    _refuse_another_unit(pred, label, pred_path, label_path)
    if (reordering := _reordering_onto(pred, label, atol_mm)) is not None:
        return reordering
    reference, other = Volume("label", label_path, label), Volume("prediction", pred_path, pred)
    if pred.shape[:3] != label.shape[:3] or any(n > 1 for n in (*pred.shape[3:], *label.shape[3:])):
        orientation = orientation_difference(reference, other)
        raise DataError(f"{pred_path} (shape {pred.shape}) and {label_path} (shape {label.shape}) are not on "
                        f"one voxel grid{f' ({orientation})' if orientation else ''}; {_ONTO_THE_LABELS_GRID}")
    difference = float(np.abs(np.asarray(pred.affine) - np.asarray(label.affine)).max())
    if difference > atol_mm:
        # In words, as the pre-flight check says it: the largest entry's difference alone read as a distance
        # (94.5 "mm" for an LPS file against its RAS copy, sixty-eighth session)
        what = grid_difference(reference, other, atol_mm)
        bare = [role for role, image in (("prediction", pred), ("label", label)) if without_orientation(image)]
        guessed = (f"; the {' and the '.join(bare)} carr{'y' if len(bare) > 1 else 'ies'} no orientation (qform_code "
                   "and sform_code 0), so nibabel places its voxels from pixdim alone") if bare else ""
        raise DataError(f"{pred_path} and {label_path} are not on one voxel grid: {what} (their affines differ by "
                        f"up to {difference:.4g} in an entry, tolerance {atol_mm} mm){guessed}, so their voxels are "
                        f"not the same places in the patient; {_ONTO_THE_LABELS_GRID}\nprediction affine:\n"
                        f"{np.round(pred.affine, 4)}\nlabel affine:\n{np.round(label.affine, 4)}")


def _refuse_another_unit(pred: nib.spatialimages.SpatialImage, label: nib.spatialimages.SpatialImage,
                         pred_path: Path, label_path: Path) -> None:
    """Refuse a reference and a prediction whose headers declare two units (``xyzt_units``), or one none and the
    other micrometres or metres with voxel sizes that unit's factor apart, as the pre-flight check judges a label
    against its image: before their grids, whose refusal ("resample the prediction onto the label's grid") sent the
    user the wrong way, and the same numbers under two units were scored unjudged, until the hundred-and-seventh
    session. The reference is named first: its unit is the one the distances are measured in."""
    if channel_in_another_unit(label, [(pred_path, pred)]) or channel_in_another_unit(pred, [(label_path, label)]):
        raise DataError(channel_units_words(
            label_path, label, pred_path, pred, "", "its prediction",
            "comparing them voxel for voxel would take one grid for the other, {times} apart, and measure the "
            "distances in the reference's numbers"))
    if said := unit_likely_apart(label_path, label, pred_path, pred, "its prediction", _ONTO_THE_LABELS_GRID):
        raise DataError(said)


def _refuse_nothing_but_nan(image: nib.spatialimages.SpatialImage, path: Path, role: str) -> None:
    """Refuse a map of several volumes that holds nothing but NaN (or Inf), a diverged model's probabilities,
    as such (``label_map_reading.nothing_but_nan_said``): refused as "3 volumes" with their argmax as the remedy
    until the ninety-seventh session, though that argmax is class 0 everywhere, a map scored without a word of
    the NaN. Its voxels are read, on this error's way alone: any other map of several volumes is refused too."""
    array = np.asanyarray(image.dataobj)
    if not np.isfinite(array).any():
        raise DataError(f"{path}: {nothing_but_nan_said(array, role)}")


def _reordering_onto(pred: nib.spatialimages.SpatialImage, label: nib.spatialimages.SpatialImage,
                     atol_mm: float) -> np.ndarray | None:
    """The orientation transform that lays the prediction's voxels onto the label's, each on the same place
    in the patient (its axes permuted or flipped, nothing resampled), or None where there is none or none is
    needed: such a prediction was refused as "not the same places in the patient" before the ninety-fifth
    session, with resampling as the remedy, though its voxels are the label's."""
    orientations = nib.orientations
    reordering = orientations.ornt_transform(orientations.io_orientation(pred.affine),
                                             orientations.io_orientation(label.affine))
    if np.array_equal(reordering, [[0, 1], [1, 1], [2, 1]]):
        return None
    shape = [0, 0, 0]
    for axis, (to, _) in enumerate(reordering):
        shape[int(to)] = pred.shape[axis]
    affine = np.asarray(pred.affine) @ orientations.inv_ornt_aff(reordering, pred.shape[:3])
    same = tuple(shape) == tuple(label.shape[:3]) and np.abs(affine - np.asarray(label.affine)).max() <= atol_mm
    return reordering if same else None
