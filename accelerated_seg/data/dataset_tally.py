"""What the files of a whole dataset hold, gathered case by case (and recorded with a case that passed), for the
warnings said once of the dataset, not per case: labels of background alone, a declared class in no label, headers
without orientation or with two voxel sizes or placements, single slices, voxels the foreground crop cuts away, CT.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import nibabel as nib
import numpy as np

from accelerated_seg.data.check_report import CheckReport, listed
from accelerated_seg.data.declared_labels import DeclaredLabels
from accelerated_seg.data.grid_agreement import without_orientation
from accelerated_seg.data.io import (PLACEMENT_CONFLICT_FIX, VOXEL_SIZE_CONFLICT_FIX, placement_conflict,
                                     voxel_size_conflict)
from accelerated_seg.data.voxel_slabs import grid_shape

if TYPE_CHECKING:
    from accelerated_seg.regions import Regions


class Tally:
    """What the files of the whole dataset hold, for warnings that are listed once, not per case."""

    def __init__(self, declared: DeclaredLabels, ignore_value: int | None = None):
        # Binarized, the declared values are merged, so one never seen is no unlearnable class.
        self.unseen = [] if declared.any_foreground else [value for value in declared.values
                                                           if value not in (0, ignore_value)]
        self.background_only: list[Path] = []
        self.without_orientation: list[Path] = []
        self.two_voxel_sizes: list[str] = []  # "path (sform ... mm, pixdim ... mm)"
        self.two_placements: list[str] = []  # "path (the qform puts voxel (0, 0, 0) 10 mm from ...)"
        self.single_slices: list[str] = []  # "path (shape)"
        self.cropped_away: list[str] = []  # "case: lost of total labelled voxels"
        self.hounsfield: list[str] = []  # "path (minimum)": CT that the foreground crop would cut down
        self.scanned = 0
        # Declared values that voxels an error refused may stand for: 1 behind 0.9999999, those a label stores
        # under its header's scaling. A class whose every voxel was refused is no class the labels lack:
        # "[1] appear in none of the 2 label file(s)" said again, and wrongly, what the error said (h15's probe).
        self.refused: set = set()

    _LISTS = ("background_only", "without_orientation", "two_voxel_sizes", "two_placements", "single_slices",
              "cropped_away", "hounsfield")
    _PATHS = ("background_only", "without_orientation")  # of Path; the other lists hold descriptions

    def add(self, other: "Tally") -> None:
        """Take in what another tally of other cases saw (``check_cases``' threads and ranks)."""
        self.unseen = [value for value in self.unseen if value in other.unseen]
        for name in self._LISTS:
            getattr(self, name).extend(getattr(other, name))
        self.scanned += other.scanned
        self.refused |= other.refused

    def to_record(self) -> dict:
        """As JSON holds it (``check_records``)."""
        return {"unseen": [int(value) for value in self.unseen], "scanned": self.scanned,
                "refused": sorted(int(value) for value in self.refused),
                **{name: [str(item) for item in getattr(self, name)] for name in self._LISTS}}

    @classmethod
    def from_record(cls, record: dict) -> "Tally":
        tally = cls.__new__(cls)
        tally.unseen, tally.scanned = list(record["unseen"]), int(record["scanned"])
        tally.refused = set(record["refused"])
        for name in cls._LISTS:
            setattr(tally, name, [Path(item) if name in cls._PATHS else item for item in record[name]])
        return tally

    def see(self, slab: np.ndarray) -> None:
        # Each declared value is searched for only until first found, so this costs little.
        self.unseen = [value for value in self.unseen if not np.any(slab == value)]

    def see_refused(self, values: np.ndarray) -> None:
        """Non-integer label values, which an error refuses: a declared class within 1 of one (0.9999999)
        may be what they were meant to hold."""
        finite = values[np.isfinite(values)]
        self.refused.update(value for value in self.unseen
                            if value not in self.refused and np.any(np.abs(finite - value) < 1))

    def see_header(self, path: Path, image: nib.Nifti1Image) -> None:
        if without_orientation(image):
            self.without_orientation.append(path)
        if conflict := voxel_size_conflict(image):
            self.two_voxel_sizes.append(f"{path} ({conflict})")
        if conflict := placement_conflict(image):
            self.two_placements.append(f"{path} ({conflict})")

    def see_image(self, path: Path, image: nib.Nifti1Image) -> None:
        if 1 in grid_shape(image):
            self.single_slices.append(f"{path} {grid_shape(image)}")

    def add_warnings(self, report: CheckReport, normalization: str = "zscore", regions: Regions | None = None) -> None:
        if len(self.background_only) == 1:
            report.warnings.append(
                f"{self.background_only[0]}: label contains only background (0); the case teaches no foreground"
            )
        else:
            _warn_of(report, self.background_only, "labels contain only background (0) and teach no foreground", "")
        # nibabel then builds the affine from pixdim alone, and prints its own notice only for a pixdim of 0.
        # Image and label stay consistent, so training works; the world grid may not.
        _warn_of(report, self.without_orientation, "file(s) carry no orientation (qform_code and sform_code both 0)",
                 ". nibabel places their voxels from pixdim alone, as ANALYZE did (x flipped, no rotation, centred; a "
                 "pixdim of 0 becomes 1 mm), and so do training and predict, consistently with each other but not "
                 "necessarily as the scanner did; if they came from DICOM, convert them again (dcm2niix writes both "
                 "codes)")
        # Training reads them as this check does (preprocess.NiftiReader); MONAI's loader would not
        _warn_of(report, self.two_voxel_sizes, "file(s) whose header gives two voxel sizes",
                 f"; {VOXEL_SIZE_CONFLICT_FIX}")
        _warn_of(report, self.two_placements, "file(s) whose qform and sform place the voxels apart",
                 f"; {PLACEMENT_CONFLICT_FIX}")
        # Usable (the patches are padded), but a 3D network learns nothing across slices there
        _warn_of(report, self.single_slices, "image(s) hold a single slice, one voxel thick along an axis",
                 "; the 3D network sees each padded to its patch, without the context above and below that 3D "
                 "segmentation learns from: give each case's whole volume")
        _warn_of(report, self.cropped_away, "case(s) have labelled voxels outside the box that data.crop_foreground "
                 "crops them to (the image voxels above 0), which training never sees",
                 ". Images whose background is not 0 (scans normalised before, negative tissue) lose structures this "
                 "way: set data.crop_foreground: false")
        _warn_of(report, self.hounsfield, "image(s) hold values as low as CT's air in Hounsfield units",
                 _HOUNSFIELD_ADVICE_UNDER_CT if normalization == "ct" else _HOUNSFIELD_ADVICE)
        unseen = [value for value in self.unseen if value not in self.refused] if self.scanned else []
        if unseen and regions is not None:  # a value beside seen ones in its regions, or in none, is never scored
            if empty := [name for name, values in zip(regions.names, regions.values) if set(values) <= set(unseen)]:
                alone = sorted({value for name, values in zip(regions.names, regions.values) if name in empty
                                for value in values})
                report.warnings.append(
                    f"region(s) {', '.join(empty)} hold only label value(s) {alone}, which appear in none of the "
                    f"{self.scanned} label file(s) checked; a region never seen cannot be learned, and validation and "
                    "evaluate score it 1 wherever the network predicts none of it (both empty), which lifts the mean "
                    "Dice — check the label files, or the regions' values")
        elif unseen:
            report.warnings.append(
                f"declared label value(s) {unseen} appear in none of the {self.scanned} label file(s) "
                "checked; a class never seen cannot be learned, and validation and evaluate score it 1 wherever "
                "the network predicts none of it (both empty), which lifts the mean Dice — check the label files, "
                "or remove the class from the dataset's labels"
            )


#: What to do of images holding CT's air in Hounsfield units under data.normalization: ct, where the crop was
#: asked for ("set ct" was no advice), and under any other normalization.
_HOUNSFIELD_ADVICE_UNDER_CT = (". data.crop_foreground: true crops them to the voxels above 0 HU, cutting fat, lung "
                               "and air away: set data.crop_foreground: false (its default under "
                               "data.normalization: ct)")
_HOUNSFIELD_ADVICE = (". data.crop_foreground (on for zscore) would crop them to the voxels above 0 HU, cutting fat, "
                      "lung and air away, and zscore ignores CT's fixed scale: for CT set data.normalization: ct (or "
                      "name the channel CT in dataset.json's \"modality\", which auto follows); if these are not CT, "
                      "set data.crop_foreground: false")


def _warn_of(report: CheckReport, items: list, what: str, advice: str) -> None:
    """One warning of the dataset's ``items`` (files, or descriptions of them), where there are any: how many are
    ``what`` they are, the first of them (``listed``), then ``advice``, its separator (". " or "; ") first."""
    if items:
        report.warnings.append(f"{len(items)} {what}: {listed(items)}{advice}")
