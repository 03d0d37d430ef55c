"""A corpus of broken datasets, each with the one error the pre-flight must give for it.

Every entry writes a small dataset (one clean case, ``good``, next to one broken case,
``bad``) and says which file the error must name, a fragment saying what is wrong and a
fragment saying what to do. The clean case proves that the checks stay silent where
nothing is wrong. Files are written with plain nibabel so the corpus does not depend on
the code under test.

``write_corpus(folder)`` writes every entry into its own sub-folder, e.g. to try the
``check`` command or a loader by hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.checks import check_manifest
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_cases

SHAPE = (8, 8, 8)
AFFINE = np.array([[1.5, 0, 0, -10], [0, 1.5, 0, 4], [0, 0, 2.0, 7], [0, 0, 0, 1]])  # RAS, 1.5 x 1.5 x 2 mm
#: Voxel budget of every corpus check: the 8^3 = 512-voxel cases fit, the "too large" 16^3 one does not.
VOXEL_BUDGET = 1000
MSD_LABELS = {"0": "background", "1": "a", "2": "b"}


@dataclass(frozen=True)
class Written:
    """What a builder wrote: the path to load, and the files of the broken case."""

    source: Path
    images: tuple[Path, ...]
    label: Path


@dataclass(frozen=True)
class BrokenCase:
    """One broken dataset and the error it must produce.

    Args:
        name: Test id.
        build: Writes the dataset into an empty folder; returns the source to load and the
            file the error must name.
        problem: Fragment of the error saying what is wrong.
        fix: Fragment of the error saying what to do.
    """

    name: str
    build: Callable[[Path], tuple[Path, Path]]
    problem: str
    fix: str


def preflight_errors(source: Path, max_voxels: int = VOXEL_BUDGET) -> list[str]:
    """Everything a run does before training: load the description, then check every file."""
    try:
        manifest = load_cases(source)
    except DataError as error:
        return [str(error)]
    return check_manifest(manifest, max_voxels=max_voxels).errors


# --- clean volumes and writers ----------------------------------------------------------------


def clean_image(seed: int = 0, shape: tuple[int, ...] = SHAPE) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def clean_label(shape: tuple[int, ...] = SHAPE) -> np.ndarray:
    label = np.zeros(shape, dtype=np.uint8)
    label[2:5, 2:5, 2:5] = 1
    label[5:7, 5:7, 5:7] = 2
    return label


def save(path: Path, array: np.ndarray, affine: np.ndarray = AFFINE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(np.asarray(array), affine), path)
    return path


def write_msd(
    root: Path,
    *,
    image: np.ndarray | None = None,
    label: np.ndarray | None = None,
    image_affine: np.ndarray = AFFINE,
    label_affine: np.ndarray = AFFINE,
    channels: int = 1,
    labels: dict[str, str] = MSD_LABELS,
    image_suffix: str = ".nii.gz",
) -> Written:
    """An MSD dataset of ``good`` and ``bad``; the arguments shape ``bad`` (its first channel)."""
    entries, written = [], None
    for case_id in ("good", "bad"):
        bad = case_id == "bad"
        images = []
        for channel in range(channels):
            array = image if bad and channel == 0 and image is not None else clean_image(channel)
            suffix = image_suffix if bad else ".nii.gz"
            name = f"{case_id}_{channel:04d}{suffix}" if channels > 1 else f"{case_id}{suffix}"
            path = root / "imagesTr" / name
            if suffix in (".nii", ".nii.gz"):
                save(path, array, image_affine if bad else AFFINE)
            else:  # another format: the builder writes the content
                path.write_bytes(b"")
            images.append(path)
        label_path = save(
            root / "labelsTr" / f"{case_id}.nii.gz",
            label if bad and label is not None else clean_label(),
            label_affine if bad else AFFINE,
        )
        entries.append({"image": [str(p) for p in images] if channels > 1 else str(images[0]), "label": str(label_path)})
        written = Written(root / "dataset.json", tuple(images), label_path)
    # a one-channel dataset's MRI (the Decathlon's Hippocampus), which its grids' refusals say: "image (MRI)"
    modality = {"0": "MRI"} if channels == 1 else {str(channel): f"channel {channel}" for channel in range(channels)}
    (root / "dataset.json").write_text(
        json.dumps({"labels": labels, "modality": modality, "training": entries, "validation": []})
    )
    return written


def write_nnunet(root: Path, channels: int = 2) -> Written:
    """An nnU-Net v2 raw dataset of ``good`` and ``bad`` with ``channels`` channel files each."""
    for case_id in ("good", "bad"):
        for channel in range(channels):
            save(root / "imagesTr" / f"{case_id}_{channel:04d}.nii.gz", clean_image(channel))
        save(root / "labelsTr" / f"{case_id}.nii.gz", clean_label())
    (root / "dataset.json").write_text(json.dumps({
        "channel_names": {str(channel): f"MR{channel}" for channel in range(channels)},
        "labels": {"background": 0, "a": 1, "b": 2},
        "numTraining": 2,
        "file_ending": ".nii.gz",
    }))
    images = tuple(root / "imagesTr" / f"bad_{channel:04d}.nii.gz" for channel in range(channels))
    return Written(root, images, root / "labelsTr" / "bad.nii.gz")


def write_csv(root: Path, *, label: np.ndarray | None = None) -> Written:
    """A CSV dataset (binary labels by default, as a CSV declares none) with relative paths."""
    rows = ["image,label"]
    for case_id in ("good", "bad"):
        binary = (clean_label() > 0).astype(np.uint8)
        save(root / "images" / f"{case_id}.nii.gz", clean_image())
        save(root / "masks" / f"{case_id}.nii.gz", label if case_id == "bad" and label is not None else binary)
        rows.append(f"images/{case_id}.nii.gz,masks/{case_id}.nii.gz")
    (root / "cases.csv").write_text("\n".join(rows) + "\n")
    return Written(root / "cases.csv", (root / "images" / "bad.nii.gz",), root / "masks" / "bad.nii.gz")


def _with_label_value(value: float, dtype: type = np.int16) -> np.ndarray:
    label = clean_label().astype(dtype)
    label[0, 0, 0] = value
    return label


def _probability_map() -> np.ndarray:
    """A soft label: each voxel's probability of the foreground, none of them 0 or 1."""
    return np.random.default_rng(2).uniform(0.01, 0.99, size=SHAPE).astype(np.float32)


def _mask_of(value: int) -> np.ndarray:
    """A two-class label saved with ``value`` for its foreground (0/255 masks are common)."""
    return np.where(clean_label() > 0, value, 0).astype(np.uint8)


def _rgb_image() -> np.ndarray:
    """A colour volume, NIfTI's RGB24: one record of three bytes per voxel."""
    rgb = np.zeros(SHAPE, dtype=[("R", "u1"), ("G", "u1"), ("B", "u1")])
    rgb["R"] = np.arange(np.prod(SHAPE)).reshape(SHAPE) % 256
    return rgb


def _with_image_value(value: float) -> np.ndarray:
    image = clean_image()
    image[1, 2, 3] = value
    return image


def _affine(spacing: tuple[float, float, float] = (1.5, 1.5, 2.0), shift: float = 0.0) -> np.ndarray:
    affine = AFFINE.copy()
    affine[:3, :3] = np.diag(spacing)
    affine[0, 3] += shift
    return affine


# --- the corpus -------------------------------------------------------------------------------


def _missing_image(root: Path) -> tuple[Path, Path]:
    written = write_msd(root)
    written.images[0].unlink()
    return written.source, written.images[0]


def _image_is_a_folder(root: Path) -> tuple[Path, Path]:
    """A DICOM series' folder listed as the image: "file not found" sent users looking for a typo."""
    written = write_msd(root)
    written.images[0].unlink()
    written.images[0].mkdir()
    return written.source, written.images[0]


def _missing_label(root: Path) -> tuple[Path, Path]:
    written = write_msd(root)
    written.label.unlink()
    return written.source, written.label


def _truncated_gzip(root: Path) -> tuple[Path, Path]:
    written = write_msd(root)
    content = written.images[0].read_bytes()
    written.images[0].write_bytes(content[: len(content) // 2])
    return written.source, written.images[0]


def _corrupted_gzip(root: Path) -> tuple[Path, Path]:
    written = write_msd(root)
    content = bytearray(written.images[0].read_bytes())
    content[len(content) // 2] ^= 0x01  # one flipped bit: may decode fine, then only the CRC notices
    written.images[0].write_bytes(bytes(content))
    return written.source, written.images[0]


def _random_bytes(suffix: str) -> Callable[[Path], tuple[Path, Path]]:
    def build(root: Path) -> tuple[Path, Path]:
        written = write_msd(root, image_suffix=suffix)
        written.images[0].write_bytes(np.random.default_rng(0).bytes(2000))
        return written.source, written.images[0]
    return build


def _msd_with(which: str, **bad: object) -> Callable[[Path], tuple[Path, Path]]:
    """A builder whose bad case is shaped by ``write_msd`` arguments; the error names ``which`` file."""

    def build(root: Path) -> tuple[Path, Path]:
        written = write_msd(root, **bad)
        return written.source, written.label if which == "label" else written.images[0]
    return build


def _binary_mask_of_255(root: Path) -> tuple[Path, Path]:
    """A binary dataset whose bad mask is saved as 0 and 255; the good one holds 0 and 1."""
    written = write_msd(root, labels={"0": "background", "1": "mask"}, label=_mask_of(255))
    save(root / "labelsTr" / "good.nii.gz", _mask_of(1))
    return written.source, written.label


def _channels_disagree(root: Path) -> tuple[Path, Path]:
    written = write_msd(root, channels=2)
    save(written.images[1], clean_image(1, (8, 8, 4)))
    return written.source, written.images[1]


def with_header_affine(path: Path, first_row: list[float]) -> Path:
    """Rewrite ``path`` with its sform's first row replaced and no qform, as a damaged converter
    leaves it (``nib.save`` with an affine would recompute the header, so the header is set directly)."""
    image = nib.load(path)
    header = image.header.copy()
    header.set_qform(None, code=0)
    header["sform_code"], header["srow_x"] = 1, first_row
    nib.save(nib.Nifti1Image(np.asanyarray(image.dataobj), None, header=header), path)
    return path


def _damaged_geometry(first_row: list[float]) -> Callable[[Path], tuple[Path, Path]]:
    def build(root: Path) -> tuple[Path, Path]:
        written = write_msd(root)
        return written.source, with_header_affine(written.images[0], first_row)
    return build


def _nnunet_missing_channel(root: Path) -> tuple[Path, Path]:
    written = write_nnunet(root, channels=2)
    written.images[1].unlink()
    return written.source, written.images[1]


def _csv_missing_label(root: Path) -> tuple[Path, Path]:
    written = write_csv(root)
    written.label.unlink()
    return written.source, written.label


def _csv_windows_paths(root: Path) -> tuple[Path, Path]:
    """A CSV written on Windows: the files are there, but ``images\\bad.nii.gz`` names none here."""
    written = write_csv(root)
    written.source.write_text(written.source.read_text().replace("images/bad", "images\\bad"))
    return written.source, root / "images\\bad.nii.gz"


def _csv_multiclass_without_labels(root: Path) -> tuple[Path, Path]:
    written = write_csv(root, label=clean_label())  # values 0, 1, 2 but the CSV default is binary
    return written.source, written.label


BROKEN_CASES: list[BrokenCase] = [
    BrokenCase("missing_image", _missing_image, "file not found", "restore the file"),
    BrokenCase("image_is_a_folder", _image_is_a_folder, "a folder, not a NIfTI file", "list the image or label file"),
    BrokenCase("missing_label", _missing_label, "file not found", "restore the file"),
    BrokenCase("truncated_gzip", _truncated_gzip, "truncated", "re-export or re-download"),
    BrokenCase("corrupted_gzip_crc", _corrupted_gzip, "corrupt", "re-export or re-download"),
    BrokenCase("random_bytes_nii_gz", _random_bytes(".nii.gz"), "not a gzip file", "re-export or re-download"),
    BrokenCase("random_bytes_nii", _random_bytes(".nii"), "not a valid NIfTI file", "re-export or re-download"),
    BrokenCase("other_format_nrrd", _random_bytes(".nrrd"), "not a valid NIfTI file", "convert the file"),
    BrokenCase("label_shape_mismatch", _msd_with(which="label", label=clean_label((8, 8, 6))),
               "has shape (8, 8, 6)", "resample the label onto the image grid"),
    BrokenCase("affine_origin_mismatch", _msd_with(which="label", label_affine=_affine(shift=1.0)),
               "the origins differ by 1 mm", "resample the label onto the image grid"),
    # 0.01 mm, 1/150 of a voxel: a header's rounding, whose remedy is no resampling (sixty-seventh session)
    BrokenCase("affine_rounding_mismatch", _msd_with(which="label", label_affine=_affine(shift=0.01)),
               "no voxel moves by more than 0.0067 of a voxel", "copy the geometry of the image (MRI) onto the label"),
    BrokenCase("spacing_mismatch", _msd_with(which="label", label_affine=_affine((1.5, 1.5, 3.0))),
               "label voxels are 1.5 x 1.5 x 3 mm, image (MRI) voxels 1.5 x 1.5 x 2 mm", "resample the label"),
    BrokenCase("orientation_mismatch", _msd_with(which="label", label_affine=_affine((-1.5, -1.5, 2.0))),
               "label is LPS, image (MRI) is RAS", "resample the label"),
    BrokenCase("label_value_not_declared",
               _msd_with(which="label", labels={"0": "bg", "1": "edema", "2": "core", "4": "enhancing"},
                         label=_with_label_value(3)),
               "label values [3] are not declared (declared: [0, 1, 2, 4])", "declare the missing classes"),
    BrokenCase("label_value_above_classes", _msd_with(which="label", label=_with_label_value(5)),
               "label values [5] are not declared (declared: 0..2, num_classes=3)", "fix the label file"),
    BrokenCase("binary_mask_of_0_and_255", _binary_mask_of_255,
               "label values [255] are not declared (declared: 0..1, num_classes=2)", "data.binarize: true"),
    BrokenCase("non_integer_label", _msd_with(which="label", label=_with_label_value(0.5, np.float32)),
               "non-integer label values [0.5]", "nearest-neighbour"),
    # a scan given as the label (image and label swapped) was told it had been resampled linearly (ninety-second)
    BrokenCase("scan_as_label", _msd_with(which="label", label=clean_image(seed=1)),
               "100% of this file's voxels hold others, as a scan's intensities do",
               "if the case's image and label are swapped, give the scan as its image and the label map as its label"),
    # a probability map given as the label was told its image and label might be swapped (ninety-second session's review)
    BrokenCase("probability_map_as_label", _msd_with(which="label", label=_probability_map()),
               "100% of this file's voxels hold others, all within 0..1, as a probability map's do",
               "give the label map of class values (a probability map thresholded, or the argmax of one per class)"),
    BrokenCase("negative_label", _msd_with(which="label", label=_with_label_value(-1)),
               "label values [-1] are not declared", "fix the label file"),
    BrokenCase("nan_image", _msd_with(which="image", image=_with_image_value(np.nan)),
               "(1 NaN, 0 Inf)", "replace them with a finite value"),
    BrokenCase("inf_image", _msd_with(which="image", image=_with_image_value(np.inf)),
               "(0 NaN, 1 Inf)", "replace them with a finite value"),
    BrokenCase("image_4d_multichannel", _msd_with(which="image", image=np.zeros((*SHAPE, 2), np.float32)),
               "is 4D with 2 volumes", "split it into one 3D file per channel"),
    BrokenCase("label_4d_one_hot", _msd_with(which="label", label=np.zeros((*SHAPE, 3), np.uint8)),
               "a label must be one 3D map", "argmax"),
    BrokenCase("image_2d", _msd_with(which="image", image=np.zeros((8, 8), np.float32)),
               "is 2D", "stack the slices"),
    # passed the checks as "only background" and then failed inside MONAI's Orientationd (seventieth session)
    BrokenCase("image_with_an_empty_axis", _msd_with(which="image", image=np.zeros((8, 0, 6), np.float32)),
               "has an axis of length 0: it holds no voxel", "re-export the volume"),
    BrokenCase("too_large_for_budget",
               _msd_with(which="image", image=clean_image(0, (16, 16, 16)), label=clean_label((16, 16, 16))),
               f"4,096 voxels, over the budget of {VOXEL_BUDGET:,}", "crop it to the region of interest"),
    BrokenCase("complex_image", _msd_with(which="image", image=clean_image().astype(np.complex64)),
               "its voxels are complex64 values, not real numbers", "store its magnitude"),
    BrokenCase("rgb_image", _msd_with(which="image", image=_rgb_image()),
               "its voxels are RGB values, not real numbers", "convert it to one grey-level channel"),
    BrokenCase("zero_voxel_size_in_affine", _damaged_geometry([0.0, 0.0, 0.0, -10.0]),
               "the affine (voxel-to-world matrix) is singular: a voxel size of 0", "convert the scan again"),
    BrokenCase("nan_in_affine", _damaged_geometry([np.nan, 0.0, 0.0, -10.0]),
               "the affine (voxel-to-world matrix) holds NaN",
               "the header's geometry (sform/qform, pixdim) is damaged"),
    BrokenCase("channels_disagree_in_shape", _channels_disagree, "has shape (8, 8, 4)", "resample the channels"),
    BrokenCase("nnunet_missing_channel_file", _nnunet_missing_channel, "case 'bad' has no", "restore them"),
    BrokenCase("csv_missing_label", _csv_missing_label, "file not found", "restore the file"),
    BrokenCase("csv_windows_paths", _csv_windows_paths, "images/bad.nii.gz is there",
               "write paths in the dataset description with forward slashes"),
    BrokenCase("csv_multiclass_label_without_labels_argument", _csv_multiclass_without_labels,
               "label values [2] are not declared (declared: 0..1", "data.labels"),
]


def write_corpus(folder: Path) -> dict[str, tuple[Path, Path]]:
    """Write every broken dataset into ``folder/<name>``; returns name -> (source, offending file). The
    folder is made absolute first: the cases' dataset.json files name their files by the paths given,
    and a relative folder left them relative to where the corpus was written, not to each file."""
    return {case.name: case.build(Path(folder).resolve() / case.name) for case in BROKEN_CASES}
