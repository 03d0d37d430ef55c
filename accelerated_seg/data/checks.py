"""Pre-flight validation: find every problem in the dataset before the first training step.

A bad file found by a data-loader worker mid-run costs the run and names one
problem at a time; here every case is opened once, up front, and all problems
are reported together, each naming the file, what is wrong and what to do.
Cases are processed one at a time and voxels are scanned in slabs, so memory
stays around one decompressed volume however large the dataset is.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.io import read_nifti
from accelerated_seg.data.manifest import Case, Manifest

_VOXELS_PER_SLAB = 16 * 1024 * 1024  # bounds the temporary arrays of one scan step
_MAX_VALUES_SHOWN = 8  # enough to recognise the mistake without flooding the message
_RESAMPLE_HINT = "resample the label onto the image grid (nearest-neighbour interpolation)"


@dataclass
class CheckReport:
    """Problems found by a check.

    Args:
        errors: Problems that would break or silently spoil training; each names the
            file, what is wrong and what to do.
        warnings: Suspicious but usable findings (e.g. a label with no foreground).
        root: Dataset folder, quoted in the summary line of :meth:`raise_if_errors`.
    """

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    root: Path | None = None

    @property
    def ok(self) -> bool:
        """True when there are no errors (warnings allowed)."""
        return not self.errors

    def raise_if_errors(self) -> None:
        """Raise one DataError listing every error, one per line, so all can be fixed in one pass."""
        if not self.errors:
            return
        where = f"the dataset {self.root}" if self.root is not None else "the dataset"
        lines = [f"{len(self.errors)} problem(s) in {where}; fix them before training:"]
        lines += [f"  - {error}" for error in self.errors]
        raise DataError("\n".join(lines))


def check_manifest(manifest: Manifest) -> CheckReport:
    """Check every training and validation case of ``manifest``.

    Args:
        manifest: The dataset to check; ``manifest.num_classes`` bounds the label values.

    Returns:
        A CheckReport naming the dataset root.
    """
    report = check_cases([*manifest.training, *manifest.validation], manifest.num_classes)
    report.root = manifest.root
    return report


def check_cases(cases: Sequence[Case], num_classes: int, *, affine_atol: float = 1e-3) -> CheckReport:
    """Open every file of every case and report all problems found.

    Args:
        cases: Cases to check, one at a time.
        num_classes: Number of classes declared in dataset.json; label values must lie in 0..num_classes-1.
        affine_atol: Largest per-entry difference between affines still treated as the same grid
            (in mm for the translation column); absorbs float rounding from export tools.

    Returns:
        A CheckReport with every error and warning (never raises for bad data).
    """
    report = CheckReport()
    for case in cases:
        _check_case(case, num_classes, affine_atol, report)
    return report


def _check_case(case: Case, num_classes: int, affine_atol: float, report: CheckReport) -> None:
    """Check one case's channels, its label, and that they share one voxel grid."""
    channels: list[tuple[Path, nib.Nifti1Image]] = []
    for channel, path in enumerate(case.images):
        role = "image" if len(case.images) == 1 else f"image channel {channel}"
        image = _open_3d(path, f"{case.id} ({role})", report)
        if image is not None:
            _check_finite(path, image, f"{case.id} ({role})", report)
            channels.append((path, image))

    # Every channel is fed to the network as one stacked tensor, so they must share a grid.
    for path, image in channels[1:]:
        _check_same_grid(
            channels[0], (path, image), f"{case.id} (image channels)", "resample the channels onto one grid",
            affine_atol, report,
        )

    if case.label is None:
        return
    label = _open_3d(case.label, f"{case.id} (label)", report)
    if label is None:
        return
    _check_label_values(case.label, label, num_classes, f"{case.id} (label)", report)
    if channels:
        _check_same_grid(
            channels[0], (case.label, label), f"{case.id} (label vs image)", _RESAMPLE_HINT, affine_atol, report
        )


def _open_3d(path: Path, context: str, report: CheckReport) -> nib.Nifti1Image | None:
    """Read and fully verify a file; return it only if it is a readable 3D volume."""
    try:
        image = read_nifti(path, verify_stream=True)
    except DataError as err:
        report.errors.append(f"{context}: {err}")
        return None
    if _spatial_shape(image) is None:
        report.errors.append(
            f"{context}: {path}: shape {image.shape} is not 3D (x, y, z; a trailing size-1 axis is allowed); "
            "store each channel as its own 3D file and list them under 'image' in dataset.json"
        )
        return None
    return image


def _spatial_shape(image: nib.Nifti1Image) -> tuple[int, int, int] | None:
    """The (x, y, z) shape, or None if the volume is not 3D (x, y, z, 1 counts as 3D)."""
    shape = image.shape
    if len(shape) == 3 or (len(shape) == 4 and shape[3] == 1):
        return tuple(int(size) for size in shape[:3])
    return None


def _slabs(image: nib.Nifti1Image) -> Iterator[np.ndarray]:
    """Yield the voxels in runs of z-slices; z is the slowest axis on disk, so each slab is one contiguous read."""
    nx, ny, nz = _spatial_shape(image)
    step = max(1, _VOXELS_PER_SLAB // max(1, nx * ny))
    for start in range(0, nz, step):
        yield np.asanyarray(image.dataobj[:, :, start : start + step])


def _check_finite(path: Path, image: nib.Nifti1Image, context: str, report: CheckReport) -> None:
    """NaN/Inf intensities turn the loss into NaN on the first batch that contains them."""
    if image.get_data_dtype().kind not in "fc":
        return  # integer storage (even scaled by a finite slope) cannot hold NaN/Inf
    bad = sum(int(np.count_nonzero(~np.isfinite(slab))) for slab in _slabs(image))
    if bad:
        report.errors.append(
            f"{context}: {path}: {bad} NaN/Inf voxel(s) in the image; replace them with a finite value "
            "(e.g. the background intensity) or re-export the image"
        )


def _check_label_values(
    path: Path, label: nib.Nifti1Image, num_classes: int, context: str, report: CheckReport
) -> None:
    """Labels must be whole numbers 0..C-1: anything else breaks one-hot encoding or the loss."""
    non_integer: set[float] = set()
    out_of_range: set[float] = set()
    has_foreground = False
    for slab in _slabs(label):
        if slab.dtype.kind in "fc":
            fractional = slab != np.round(slab)  # NaN compares unequal, so it is caught too
            _collect(non_integer, slab[fractional])
            slab = np.where(fractional, 0, slab)  # report each bad voxel once, as non-integer
        _collect(out_of_range, slab[(slab < 0) | (slab >= num_classes)])
        has_foreground = has_foreground or bool(np.any(slab != 0))

    if non_integer:
        report.errors.append(
            f"{context}: {path}: non-integer label values {_show(non_integer)}; a label map holds class "
            "indices — it was probably resampled with linear interpolation; use nearest-neighbour, or round it"
        )
    if out_of_range:
        report.errors.append(
            f"{context}: {path}: label values {_show(out_of_range)} outside 0..{num_classes - 1} "
            f"(num_classes={num_classes}); labels must be 0..C-1 as declared in dataset.json 'labels' — "
            "fix the label file or add the missing classes to 'labels'"
        )
    if not has_foreground and not non_integer:
        report.warnings.append(
            f"{context}: {path}: label contains only background (0); the case teaches no foreground"
        )


def _collect(found: set[float], values: np.ndarray) -> None:
    """Add a few distinct offending values to ``found`` (a sample, not all of them)."""
    if values.size and len(found) < _MAX_VALUES_SHOWN:
        found.update(np.unique(values)[: _MAX_VALUES_SHOWN - len(found)].tolist())


def _show(values: set[float]) -> str:
    """Sorted, with whole numbers shown as integers (3 not 3.0) and NaN last."""
    shown = [int(v) if float(v).is_integer() else v for v in sorted(values, key=lambda v: (np.isnan(v), v))]
    return str(shown) + (" (and possibly more)" if len(values) >= _MAX_VALUES_SHOWN else "")


def _check_same_grid(
    reference: tuple[Path, nib.Nifti1Image],
    other: tuple[Path, nib.Nifti1Image],
    context: str,
    fix: str,
    affine_atol: float,
    report: CheckReport,
) -> None:
    """Two volumes stacked or compared voxel-by-voxel must have the same shape and affine."""
    (reference_path, reference_image), (other_path, other_image) = reference, other
    reference_shape, other_shape = _spatial_shape(reference_image), _spatial_shape(other_image)
    if reference_shape != other_shape:
        report.errors.append(
            f"{context}: {other_path} has shape {other_shape} but {reference_path} has shape "
            f"{reference_shape}; {fix}"
        )
        return  # with different shapes the affine comparison adds nothing
    difference = float(np.max(np.abs(other_image.affine - reference_image.affine)))
    if not difference <= affine_atol:  # "not <=" also catches a NaN affine
        report.errors.append(
            f"{context}: {other_path} and {reference_path} have different affines (largest difference "
            f"{difference:.3g} > {affine_atol}); {fix}"
        )
