"""The unit a NIfTI header declares its voxel sizes in (``xyzt_units``), and the nibabel lines that rewrite a file's
geometry in another or declare it: read by the spacing's checks (``spacing.py``), predict, and the pre-flight check
of a case's channels (``case_check.py``, whose findings are recorded: hence a module of its own, in
``check_records.CHECKING_CODE``).
"""

from __future__ import annotations

from collections.abc import Sequence

import nibabel as nib


#: How the checks name each unit nibabel's get_xyzt_units() reports, and its size in mm
UNIT_MM = {"mm": ("mm", 1.0), "meter": ("metres", 1000.0), "micron": ("micrometres", 0.001)}


def spatial_unit(image) -> str:
    """The unit ``image``'s header declares its voxel sizes in (xyzt_units): 'mm', 'meter', 'micron', or 'unknown'
    (nibabel's default, written by every nibabel script that sets none; a code NIfTI gives no spatial meaning too).
    Read from the field's spatial bits alone: get_xyzt_units() raises for a time code nibabel has no name for (56
    and up), which made a header in mm 'unknown' here and declared_in_mm's traceback (hundred-and-sixth session's
    review)."""
    try:
        code = int(image.header["xyzt_units"]) % 8  # the bits below 8 are the spatial unit's, the rest the time's
    except (AttributeError, KeyError, TypeError, ValueError):  # a header with no such field
        return "unknown"
    return nib.nifti1.unit_codes.label.get(code, "unknown")  # 4 to 7 have no name: no spatial meaning


def channel_in_another_unit(image, earlier: Sequence[tuple]) -> tuple | None:
    """The first of a case's channels before ``image`` (``earlier``: (path, image) pairs) whose header declares
    another unit than ``image``'s, or None: what predict and the pre-flight check of a case both judge before the
    channels' grids are compared, whose refusal told the user to resample channels 1000 times apart onto one grid
    (hundred-and-seventh session). A header declaring no unit agrees with any, as a case's does with the other
    cases' and the model's: most such files are in mm."""
    unit = spatial_unit(image)
    if unit == "unknown":
        return None
    return next(((path, other) for path, other in earlier if spatial_unit(other) not in ("unknown", unit)), None)


def channel_units_words(path, image, beside_path, beside_image, resampled_to: str) -> str:
    """What is said of a case's channel (``image`` at ``path``) whose header declares another unit than another
    channel's of the case (``beside_image`` at ``beside_path``), and how to rewrite it in the other's unit or declare
    it so; ``resampled_to``: the spacing both are resampled to, in words. Said by predict for a model whose training
    cases declared no unit (against a model's unit each channel is judged by ``spacing.other_unit_words``) and by the
    pre-flight check of a case: before their grids are compared, whose refusal told the user to resample channels
    1000 times apart onto one grid."""
    unit, beside = spatial_unit(image), spatial_unit(beside_image)
    scale = UNIT_MM[unit][1] / UNIT_MM[beside][1]
    return (f"{path}: its header declares its voxel sizes in {UNIT_MM[unit][0]} (xyzt_units), that of {beside_path}, "
            f"a channel of the same case, in {UNIT_MM[beside][0]}. Their numbers are read as they are, whatever the "
            f"unit, so resampling them to {resampled_to} would scale one {max(scale, 1 / scale):,.0f} times against "
            f"the other. Rewrite it in {UNIT_MM[beside][0]} (nibabel: "
            f"{rewrite_code(f'{scale:g}', beside)}), or, where its numbers are {UNIT_MM[beside][0]} already and its "
            f"unit alone is wrong, declare it so (nibabel: {declare_code(beside)}); or the other way round, where "
            f"{beside_path} is the one off")


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
