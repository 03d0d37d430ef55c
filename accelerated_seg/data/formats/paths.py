"""Paths and case ids as the readers see them: listed paths made absolute, ids from file names."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import Union

NIFTI_SUFFIXES = (".nii.gz", ".nii")

PathLike = Union[str, "os.PathLike[str]"]


def is_blank(path: object) -> bool:
    """An empty (or all-space) path as listed: made absolute, it named the dataset's own folder, and the
    checks said that folder was "a folder, not a NIfTI file" (ninety-second session's probe)."""
    return isinstance(path, str) and not path.strip()


def folder_named(path: object) -> str | None:
    """How a listed path names a folder where a file belongs, by its text alone (no folder is looked at), or
    None: ``"."`` or ``"./"`` (and ``Path("")``, which pathlib makes ``Path(".")``) is the folder the paths
    start from, and ``"imagesTr/"`` or ``".."`` a folder by its ending. Made absolute, they were read as
    folders, which the pre-flight checks called "a folder, not a NIfTI file", naming a folder never listed
    and no entry (ninety-third session's probe). An empty path is ``is_blank``'s, said in each reader's words."""
    if not isinstance(path, (str, os.PathLike)) or is_blank(path):
        return None
    text = os.fspath(path)
    if Path(text) == Path("."):
        return f"{text!r}, the folder itself" + (" (Path('') is '.')" if isinstance(path, os.PathLike) else "")
    if text.rstrip().endswith("/") or Path(text).name == "..":
        return f"{text!r}, a folder"
    return None


def resolve(relative: str, root: Path) -> Path:
    """Make a listed path absolute; MSD writes them as "./imagesTr/x.nii.gz"."""
    while relative.startswith("./"):
        relative = relative[2:]
    return root / Path(relative).expanduser()  # an absolute path stays as it is


def nifti_stem(path: str | Path) -> str | None:
    """File name without ``.nii.gz``/``.nii`` in any case (``CT_1.NII.GZ`` -> ``CT_1``, as nibabel reads
    it), or None for a file that is not NIfTI."""
    name = Path(path).name
    for suffix in NIFTI_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


# The image formats nnU-Net and SimpleITK read that nibabel here does not: an nnU-Net dataset's "file_ending" or a
# folder of scans in one of them (Grand Challenge's .mha) is converted to NIfTI first
OTHER_IMAGE_FORMATS = (".mha", ".mhd", ".nrrd", ".nhdr", ".gipl", ".gipl.gz", ".tif", ".tiff", ".png", ".bmp",
                       ".dcm")
# Those of them that hold no voxel spacing, which SimpleITK then writes as 1 mm (hundred-and-fifth session's review)
WITHOUT_SPACING = (".tif", ".tiff", ".png", ".bmp")


def conversion(name: str, ending: str | None = None) -> str:
    """How to convert the file ``name`` of ``ending`` (``a_0000.mha``, ``.mha``; by default the ending of
    :data:`OTHER_IMAGE_FORMATS` it has) to NIfTI, said by each refusal of one. Written to the NIfTI file of its
    own name, whose ``_0000`` (an nnU-Net channel) or none (a label map) pairs it as before: a label map ``a.mha``
    was told to write ``case_0000.nii.gz``, named as no case's label is. A DICOM file is one slice of a series,
    which dcm2niix reads into one volume: SimpleITK.ReadImage of it wrote one slice; a TIFF, PNG or BMP file holds
    no spacing, written as 1 mm voxels unless set (hundred-and-fifth session)."""
    ending = ending if ending is not None else other_ending(name)
    if ending.lower() == ".dcm":
        return ("e.g. with dcm2niix, which reads a DICOM series, one file per slice, as one volume: "
                "dcm2niix -z y <folder>")
    nifti = f"{name[:-len(ending)] or 'case'}.nii.gz"
    if ending.lower() in WITHOUT_SPACING:  # written as 1 mm voxels unless set: the geometry lost
        nnunets = " (nnU-Net reads it from the .json beside it)" if ending.lower() in (".tif", ".tiff") else ""
        return (f"e.g. with SimpleITK (nnU-Net's own reader): image = SimpleITK.ReadImage({name!r}); "
                f"image.SetSpacing((x, y, z)); SimpleITK.WriteImage(image, {nifti!r}), with the voxel size in mm, "
                f"which a {ending} file does not hold{nnunets}")
    return f"e.g. with SimpleITK (nnU-Net's own reader): SimpleITK.WriteImage(SimpleITK.ReadImage({name!r}), {nifti!r})"


def other_image_files(folder: Path) -> str | None:
    """What a folder without NIfTI files holds of the other image formats (:data:`OTHER_IMAGE_FORMATS`), to
    follow "holds no .nii/.nii.gz file", or None where it holds none: an nnU-Net user's imagesTs of .mha scans was
    told to "check the path" (hundred-and-fifth session)."""
    others = sorted(path.name for path in folder.iterdir() if not path.name.startswith(".")
                    and path.name.lower().endswith(OTHER_IMAGE_FORMATS) and path.is_file())
    if not others:
        return None
    endings = sorted({other_ending(name) for name in others})
    shown = ", ".join(others[:3]) + (f" (and {len(others) - 3} more)" if len(others) > 3 else "")
    return (f", but {len(others)} {' and '.join(endings)} file(s) ({shown}), which are not read: only NIfTI is; "
            f"convert them to NIfTI, {conversion(others[0])}")


def other_ending(name: str) -> str:
    """The ending of :data:`OTHER_IMAGE_FORMATS` that ``name`` has, as written there (``.gipl.gz`` over ``.gz``)."""
    return max((ending for ending in OTHER_IMAGE_FORMATS if name.lower().endswith(ending)), key=len)


def is_gzipped(path: str | Path) -> bool:
    """Whether nibabel reads and writes ``path`` gzip-compressed: its name ends in ``.gz``, in any case."""
    return Path(path).name.lower().endswith(".gz")


def file_stem(path: Path) -> str:
    """File name without .nii / .nii.gz (Path.stem would leave ".nii" behind)."""
    return nifti_stem(path) or path.stem


def natural_key(text: str) -> list:
    """``text`` as a person orders it: its runs of digits compared as numbers, so case_2 comes before case_10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def unique_ids(label_paths: list[Path], explicit: list[str | None]) -> list[str]:
    """Case ids: an explicit id, else the label's file name; folders are added only where names repeat.

    Layouts such as ``sub-01/mask.nii.gz``, ``sub-02/mask.nii.gz`` would otherwise give every
    case the id "mask"; ids must be unique and usable as file names, hence "_" not "/".
    """
    stems = [file_stem(path) for path in label_paths]
    repeated = {stem for stem, count in Counter(stems).items() if count > 1}
    common = Path(os.path.commonpath([str(path.parent) for path in label_paths])) if repeated else None
    ids = []
    for given, stem, path in zip(explicit, stems, label_paths):
        if given:
            ids.append(given)
        elif stem in repeated:
            ids.append("_".join((*path.parent.relative_to(common).parts, stem)))
        else:
            ids.append(stem)
    return ids
