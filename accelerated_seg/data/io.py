"""NIfTI reading and writing that keeps voxels and geometry (affine/header) together.

``nib.load`` only parses the header and defers the voxels; a truncated ``.nii.gz``
then fails deep inside a data-loader worker hours into training, and a flipped
bit can even decode silently unless gzip's CRC at the end of the stream is
checked. :func:`read_nifti` therefore reads the whole stream up front, and
:func:`write_nifti` never leaves a half-written file behind.
"""

from __future__ import annotations

import contextlib
import gzip
import logging
import math
import os
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import nibabel as nib
import numpy as np

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.formats.paths import OTHER_IMAGE_FORMATS, conversion, is_gzipped, nifti_stem
from accelerated_seg.data.header_units import UNIT_MM, spatial_unit
from accelerated_seg.files import sync_directory, sync_file, temporary_name, written_through

if TYPE_CHECKING:
    from hashlib import _Hash as Hash

_FIX = "re-export or re-download this file"
_NIFTI1_HEADER_SIZE, _NIFTI2_HEADER_SIZE = 348, 540  # the first int32 of the file tells them apart
_GZIP_MAGIC = b"\x1f\x8b"
# The first bytes of an AppleDouble file: macOS writes "._<name>" beside each file it copies to a disk or into an
# archive that cannot keep its metadata; the Decathlon's archives hold one beside every scan.
_APPLE_DOUBLE_MAGIC = b"\x00\x05\x16\x07"
# The first line of the text file Git LFS leaves in a scan's place when its content was not fetched
_GIT_LFS_POINTER = b"version https://git-lfs.github.com/spec/"
# What git-annex writes in an unlocked file's place (DataLad's datasets on Windows or an adjusted branch) while its
# content is not fetched: "/annex/objects/<key>", where a locked file is a link into .git/annex/objects
_ANNEX_POINTER = b"/annex/objects/"
_ANNEX_NOT_FETCHED = ("a git-annex {} whose content is not fetched (a DataLad dataset, OpenNeuro's, installed "
                      "without its files): fetch the files with datalad get <dataset folder> (or git annex get)")


def read_nifti(path: str | Path, *, verify_stream: bool = True, digest: Hash | None = None) -> nib.Nifti1Image:
    """Open a ``.nii`` / ``.nii.gz`` file, failing now (not mid-training) if it is damaged.

    Args:
        path: File to read.
        verify_stream: Decompress the whole file once, so truncation and gzip CRC
            errors surface here, and keep the decompressed bytes so the voxels are
            served from memory without a second decompression. With ``False``
            this is a plain lazy ``nib.load`` (header checked only).
        digest: A hashlib object (``hashlib.sha256()``) updated with the file's bytes (as stored, compressed
            or not) as this one read takes them, so a caller that records them (evaluate's ``inputs_sha256``)
            reads the file once, not a second time to hash it (hundredth session). Needs ``verify_stream``.

    Returns:
        The image (``Nifti2Image`` for NIfTI-2 files, a subclass of ``Nifti1Image``);
        ``img.dataobj`` / ``img.get_fdata()`` give the voxels, ``img.affine`` the geometry.

    Raises:
        DataError: The file is missing, not NIfTI, truncated or corrupt; the message
            names the file and says what to do.
    """
    path = Path(path)
    if (absent := content_not_fetched(path)) is not None:
        raise DataError(f"{path}: {absent}")
    if path.is_dir():  # "file not found" of a path that is there sent users looking for a typo
        raise DataError(f"{path}: a folder, not a NIfTI file; list the image or label file itself (a DICOM series "
                        f"must be converted to NIfTI first, e.g. with dcm2niix)")
    if not path.is_file():
        raise DataError(f"{path}: file not found; {_missing_file_fix(path)}")
    if (fork := resource_fork(path)) is not None:
        raise DataError(f"{path}: {fork}")
    if not verify_stream:
        if digest is not None:
            raise ValueError("read_nifti's digest needs verify_stream=True: a lazy load reads the header alone")
        try:
            return nib.load(path)
        except Exception as err:  # nibabel raises many unrelated types for bad headers
            raise DataError(f"{path}: cannot be read as NIfTI ({_describe(err)}); {_fix_for(path)}") from err

    raw = _read_all_bytes(path, digest)
    image = _image_from_bytes(raw, path)
    _require_complete_voxel_data(image, len(raw), path)
    return image


def resource_fork(path: str | Path) -> str | None:
    """What to do about a macOS resource fork ("._case.nii.gz", named like a scan), or None for any other file.
    Read as NIfTI it was "corrupt or not a gzip file ...; re-export or re-download this file", advice a new
    download repeats (ninety-seventh session's probe). The words name no file, so the checks' one line tells
    of them all."""
    if not Path(path).name.startswith("._"):
        return None
    try:
        with open(path, "rb") as stream:
            if stream.read(len(_APPLE_DOUBLE_MAGIC)) != _APPLE_DOUBLE_MAGIC:
                return None
    except OSError:
        return None
    return ("a macOS resource fork (an AppleDouble \"._\" file: Finder's record of the file of the same name "
            "without \"._\"), not a scan; list the file itself, and remove such files: find <dataset folder> "
            "-name '._*' -delete")


def content_not_fetched(path: str | Path, what: str = "the NIfTI file itself") -> str | None:
    """What to do about a scan whose content was never fetched, or None for any other path: a dataset cloned
    from a Git repository (Hugging Face's, GitHub's) without Git LFS holds a text pointer of about 130 bytes in
    each scan's place, and one installed by DataLad (OpenNeuro's) without ``datalad get`` a link into
    ``.git/annex/objects`` that leads nowhere; an empty file is a download or copy that wrote nothing. They were
    "corrupt or not a gzip file", "file not found" and "WrapStructError: Binary block is wrong size", advice that
    a download of the same repository repeats (hundred-and-fourth session's probe). The words name no file, so
    the checks' one line tells of them all; ``what`` names what the pointer stands in for (an export's weights)."""
    path = Path(path)
    # every link followed: one of the user's own into an annexed dataset was "file not found" (realpath)
    if path.is_symlink() and not path.exists() and "annex/objects" in os.path.realpath(path).replace(os.sep, "/"):
        return _ANNEX_NOT_FETCHED.format("link")
    try:
        if not path.is_file():
            return None
        if path.stat().st_size == 0:
            return f"an empty file (0 bytes, e.g. a download or copy that wrote nothing); {_FIX}"
        with open(path, "rb") as stream:
            head = stream.read(len(_GIT_LFS_POINTER))
    except OSError:
        return None
    if head.startswith(_ANNEX_POINTER):  # an unlocked file's pointer, "corrupt or not a gzip file" before
        return _ANNEX_NOT_FETCHED.format("pointer file")
    if head != _GIT_LFS_POINTER:
        return None
    return (f"a Git LFS pointer (the small text file Git leaves in place of a large file it did not fetch), not "
            f"{what}: the repository was cloned without Git LFS; in it, run git lfs install && git lfs pull")


def file_or_unfetched(path: str | Path) -> bool:
    """Whether a folder's listing keeps ``path``: a file, or a git-annex link whose content is not fetched, so
    that reading it says how to fetch it. Until the hundred-and-fourth session predict's and evaluate's
    listings passed over such links: predict left the scan out without a word, and evaluate scored the cases
    left, or told the case to write its prediction."""
    path = Path(path)
    return path.is_file() or (path.is_symlink() and content_not_fetched(path) is not None)


@contextlib.contextmanager
def header_notes_unsaid():
    """nibabel's own notes on the headers read meanwhile, kept off stderr (its logger's level is raised above
    them): those of headers it repairs or gives up on ("sizeof_hdr should be 348 ...", "pixdim[1,2,3] should be
    non-zero ...") printed above the data check's report on the same files, which says what is wrong and what to
    do; and a refusal ("data code 999 not recognized; not attempting fix") where the read answers nibabel's
    HeaderDataError itself: predict's mark for evaluate's advice and predict's check of its outputs printed it
    until the ninety-ninth session. The logger is the process's: another thread's note meanwhile goes unsaid too."""
    logger = nib.imageglobals.logger
    level = logger.level
    logger.setLevel(logging.ERROR + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def affine_problem(affine, unit: str = "mm") -> str | None:
    """What makes a voxel-to-world matrix unusable, or None when it is a usable one.

    A 4x4 matrix must be finite and its 3x3 part invertible: a zero or NaN there (a damaged sform or
    qform) gives no voxel size or orientation, and resampling, reorientation and the distance metrics
    all divide by it. nibabel reads such a header without complaint, so the readers check it here.
    Judged against the voxel sizes, whatever their unit (``unit``: how the sizes listed are named): a
    determinant under 1e-12 was singular until the hundred-and-twelfth session's review, which refused
    a scan declaring metres with voxels of 0.05 mm (5e-05 m, a determinant of 1.25e-13) as "two voxel
    axes along one direction (voxel sizes 5e-05 x 5e-05 x 5e-05 mm)".
    """
    matrix = np.asarray(affine, dtype=float)
    if matrix.shape != (4, 4):
        return f"the affine has shape {matrix.shape}, not 4x4"
    if not np.isfinite(matrix).all():
        return "the affine (voxel-to-world matrix) holds NaN or infinite values"
    sizes = np.linalg.norm(matrix[:3, :3], axis=0)
    zero = sizes.min() <= 1e-6 * sizes.max()  # all three 0 too
    if zero or abs(np.linalg.det(matrix[:3, :3])) < 1e-9 * np.prod(sizes):  # 1 for orthogonal axes
        why = "a voxel size of 0" if zero else "two voxel axes along one direction"
        listed = " x ".join(f"{size:g}" for size in sizes)
        return f"the affine (voxel-to-world matrix) is singular: {why} (voxel sizes {listed} {unit})"
    return None


def voxel_size_conflict(image: nib.Nifti1Image) -> str | None:
    """Words for a header that gives two voxel sizes, or None: the sform's (in use: sform_code set) and
    pixdim's (which the qform carries), e.g. "sform 1.5 x 1.5 x 3 mm, pixdim 1.5 x 1.5 x 2 mm".

    Everything here places the voxels by ``image.affine``, nibabel's rule and the NIfTI standard's
    (the sform where its code is set, else the qform), ``preprocess.NiftiReader`` included. Such a
    header is still worth a warning: MONAI's own loader, and tools that read pixdim, size the voxels
    the other way, and one of the two is stale. Differences within 0.1% are a writer's rounding.
    """
    header = image.header
    if not header.get("sform_code", 0) or len(image.shape) < 3:
        return None  # no sform: nibabel's affine is the qform, built from pixdim itself
    by_sform = nib.affines.voxel_sizes(image.affine)[:3]
    by_pixdim = np.asarray(header.get_zooms()[:3], dtype=float)
    if np.allclose(by_sform, by_pixdim, rtol=1e-3, atol=1e-4):
        return None
    return f"sform {_sizes(by_sform)} mm, pixdim {_sizes(by_pixdim)} mm"


def placement_conflict(image: nib.Nifti1Image) -> str | None:
    """Words for a header whose qform and sform (both codes set) place the voxels apart, beyond a
    writer's rounding, where they give one voxel size (``voxel_size_conflict`` says the rest), e.g.
    "the qform puts voxel (0, 0, 0) 10 mm from where the sform does"; else None.

    Everything here reads the sform, as nibabel does; a tool that prefers the qform shows the scan
    (or the label map) that far away or turned, and nothing said so (seventy-fourth session's probe).
    """
    header = image.header
    if not (header.get("sform_code", 0) and header.get("qform_code", 0)) or len(image.shape) < 3:
        return None
    sform, qform = header.get_sform(), header.get_qform()
    if not np.allclose(nib.affines.voxel_sizes(sform), nib.affines.voxel_sizes(qform), rtol=1e-3, atol=1e-4):
        return None  # two voxel sizes: voxel_size_conflict's warning
    apart = float(np.linalg.norm(sform[:3, 3] - qform[:3, 3]))
    axes_s, axes_q = (matrix[:3, :3] / nib.affines.voxel_sizes(matrix) for matrix in (sform, qform))
    axes_s = _nearest_rotation(axes_s)  # a sheared sform's (a gantry tilt's): no qform holds a shear
    turned = math.degrees(math.acos(np.clip((np.trace(axes_s.T @ axes_q) - 1) / 2, -1.0, 1.0)))
    if np.linalg.det(axes_s) * np.linalg.det(axes_q) < 0:
        return (f"the qform's axes are {''.join(nib.aff2axcodes(qform))} and the sform's "
                f"{''.join(nib.aff2axcodes(sform))}, one the mirror image of the other")
    said = ([f"turns the axes {turned:.1f} degrees from the sform's"] if turned > 0.05 else []) + (
        [f"puts voxel (0, 0, 0) {apart:.3g} mm from where the sform does"] if apart > 0.1 else [])
    return f"the qform {' and '.join(said)}" if said else None


def _nearest_rotation(axes: np.ndarray) -> np.ndarray:
    """The orthogonal matrix nearest ``axes`` (their polar decomposition's, as nibabel's ``set_qform``
    writes a sheared affine into the qform); ``axes`` themselves where they are orthogonal already. A
    sheared sform with that qform was told its qform "turns the axes" and to rewrite the qform from
    the sform, which gives the same qform again (ninety-fourth session's probe)."""
    left, _, right = np.linalg.svd(axes)
    return left @ right


# What to do about a placement_conflict, said wherever one is found
PLACEMENT_CONFLICT_FIX = (
    "read by the sform, as nibabel does where sform_code is set; a tool that prefers the qform places it "
    "otherwise. If the sform is right, rewrite the qform from it (nibabel: img.set_qform(img.get_sform(), code=1)); "
    "if the qform is, the other way round (img.set_sform(img.get_qform(), code=1))")


# What to do about a voxel_size_conflict, said wherever one is found
VOXEL_SIZE_CONFLICT_FIX = (
    "read by the sform, as nibabel does where sform_code is set; MONAI's own loader and tools that read pixdim "
    "would size the voxels by pixdim. If pixdim is right, rewrite the sform (nibabel: img.set_sform(img.get_qform(), "
    "code=1)); if the sform is, rewrite the qform and pixdim from it (img.set_qform(img.get_sform(), code=1))")


def _sizes(sizes) -> str:
    return " x ".join(f"{float(size):.4g}" for size in sizes)


def header_error(path: str | Path, image: nib.Nifti1Image) -> DataError | None:
    """A DataError naming ``path`` if its header makes the volume unusable, judged without reading the
    voxels: voxels that are not real numbers (complex, RGB), or a geometry that places them nowhere
    (:func:`affine_problem`). nibabel reads both without complaint; MONAI then fails in a transform,
    or drops a complex image's imaginary part with only a warning."""
    kind = image.get_data_dtype().kind
    if kind not in "biuf":
        stored = image.header.get_value_label("datatype")
        fix = ("store its magnitude (numpy.abs) as a real image" if kind == "c"
               else "convert it to one grey-level channel (or one file per colour channel)")
        return DataError(f"{path}: its voxels are {stored} values, not real numbers; only integer or floating-point "
                         f"volumes are read: {fix}")
    problem = affine_problem(image.affine, UNIT_MM.get(spatial_unit(image), ("mm",))[0])
    if problem is None:
        return None
    return DataError(f"{path}: {problem}; the header's geometry (sform/qform, pixdim) is damaged: rewrite it "
                     "with the true voxel size and orientation, or convert the scan again (e.g. dcm2niix)")


def write_nifti(
    path: str | Path,
    array: np.ndarray,
    affine: np.ndarray,
    header: nib.Nifti1Header | None = None,
) -> Path:
    """Write ``array`` with ``affine`` atomically: readers see the old file or the whole new one.

    The data goes to a hidden temporary file in the same folder (so the final
    ``os.replace`` is a same-filesystem rename) and is renamed into place only
    once complete. Compression follows the extension (``.nii.gz`` compresses).

    Args:
        path: Destination ``.nii`` or ``.nii.gz``; parent folders are created. A symbolic link is written
            through (``files.written_through``; a dangling one, or a loop, raises OSError).
        array: Voxels. Stored with their own dtype even when ``header`` says
            otherwise (a float probability map must not be rounded by a label
            header); int64 is narrowed to int32 when the values fit and bool
            becomes uint8, since many NIfTI tools reject those types.
        affine: 4x4 voxel-to-world matrix; written to both sform and qform.
        header: Optional header to copy metadata from (e.g. the source image's).

    Returns:
        The destination path.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A link is written through, as nibabel's own save writes: its target replaced, the link kept (files.py)
    target = written_through(path)
    array = np.asarray(array)
    if array.dtype == np.bool_:
        array = array.astype(np.uint8)

    # "compat" stores 64-bit integers as int32 when the values fit (nibabel raises otherwise).
    stored_dtype = "compat" if array.dtype.kind in "iu" and array.dtype.itemsize == 8 else array.dtype
    # A NIfTI-2 scan's label map is NIfTI-2 too: its header, made NIfTI-1, had nibabel print "sizeof_hdr should be
    # 348; set sizeof_hdr to 348" twice a case, and a grid over 32767 voxels along an axis has no NIfTI-1 header.
    image_class = nib.Nifti2Image if isinstance(header, nib.Nifti2Header) else nib.Nifti1Image
    image = image_class(array, np.asarray(affine, dtype=np.float64), header=header, dtype=stored_dtype)

    extension = ".nii.gz" if is_gzipped(path) else ".nii"
    # The temporary name keeps the extension so nibabel compresses the same way,
    # and is created by nibabel (not mkstemp) so the file gets normal umask permissions.
    temporary = target.with_name(temporary_name(target.name, f"tmp{extension}"))
    try:
        # Absolute: nibabel expands a leading "~" of the name it is given, which would put the file
        # elsewhere than the rename below looks (a folder named "~" in the working directory)
        image.to_filename(temporary.absolute())
        sync_file(temporary)  # the rename must not become durable before the data is
        os.replace(temporary, target)
    except OSError as error:
        if error.filename is None:  # a full disk in gzip's write names no file: predict said "[Errno 28] ..." alone
            raise OSError(error.errno, error.strerror, str(path)) from error
        raise
    finally:
        temporary.unlink(missing_ok=True)
    sync_directory(target.parent)
    return path


def _read_all_bytes(path: Path, digest: Hash | None = None) -> bytes:
    """Return the decompressed file content; reading gzip to its end verifies length and CRC. ``digest`` is
    updated with the stored bytes on the way, in this one read."""
    try:
        with open(path, "rb") as file:
            source = _Hashing(file, digest) if digest is not None else file
            if is_gzipped(path):  # gzip.open(path)'s own reader: a damaged stream is refused as it always was
                with gzip.GzipFile(fileobj=source, mode="rb") as stream:
                    content = stream.read()
            else:
                content = source.read()
            if digest is not None:  # whatever gzip left unread (nothing, but for a reader that stops early)
                for _ in iter(lambda: source.read(1 << 20), b""):
                    pass
        return content
    except EOFError as err:
        raise DataError(f"{path}: truncated (the gzip stream ends early, e.g. an interrupted copy); {_FIX}") from err
    except (gzip.BadGzipFile, zlib.error, OSError) as err:
        raise DataError(f"{path}: corrupt or not a gzip file ({_describe(err)}); {_fix_for(path)}") from err


class _Hashing:
    """A binary file read through: each block read also goes into ``digest``."""

    def __init__(self, file, digest: Hash):
        self._file, self._digest = file, digest

    def read(self, size: int = -1) -> bytes:
        block = self._file.read(size)
        self._digest.update(block)
        return block


def _image_from_bytes(raw: bytes, path: Path) -> nib.Nifti1Image:
    """Parse NIfTI-1 or NIfTI-2 from memory."""
    image_class = nib.Nifti2Image if _NIFTI2_HEADER_SIZE in _header_sizes(raw) else nib.Nifti1Image
    try:
        return image_class.from_bytes(raw)
    except Exception as err:  # HeaderDataError, ImageFileError, struct errors, ...
        raise DataError(f"{path}: not a valid NIfTI file ({_describe(err)}); {_fix_for(path)}") from err


def _header_sizes(content: bytes) -> set[int]:
    """The first int32 of a file read both ways round: a NIfTI header's size (348 or 540) in one of them."""
    head = content[:4]
    return {int.from_bytes(head, "little"), int.from_bytes(head, "big")} if len(head) == 4 else set()


def _require_complete_voxel_data(image: nib.Nifti1Image, available: int, path: Path) -> None:
    """Catch an uncompressed ``.nii`` cut short: its header promises more bytes than exist."""
    # The proxy keeps the on-disk layout; image.header has its offset reset to 0 by nibabel.
    proxy = image.dataobj
    expected = int(proxy.offset) + int(np.prod(proxy.shape, dtype=np.int64)) * proxy.dtype.itemsize
    if available < expected:
        raise DataError(f"{path}: truncated (the file has {available} bytes, its header needs {expected}); {_FIX}")


def _fix_for(path: Path) -> str:
    """What to do about an unreadable file: usually a bad copy, but another format needs converting,
    and a file whose name says the wrong compression needs renaming. A format nnU-Net reads (.mha, a DICOM
    slice, a TIFF) is given the line that predict's and evaluate's refusals give (paths.conversion), named for
    the file: it was told sitk.WriteImage(sitk.ReadImage(src), 'case.nii.gz') alone, which writes one slice of a
    DICOM series and a TIFF's voxels as 1 mm (hundred-and-fifth session's review)."""
    if (misnamed := _compression_misnamed(path)) is not None:
        return misnamed
    if nifti_stem(path) is not None:
        return _FIX
    if path.name.lower().endswith(OTHER_IMAGE_FORMATS):
        return f"only NIfTI (.nii/.nii.gz) is read; convert the file, {conversion(path.name)}"
    return (
        "only NIfTI (.nii/.nii.gz) is read; convert the file, e.g. with SimpleITK: "
        "sitk.WriteImage(sitk.ReadImage(src), 'case.nii.gz')"
    )


def _compression_misnamed(path: Path) -> str | None:
    """What to do about a NIfTI file whose name says the wrong compression, or None. Browsers and some
    download tools decompress a ``.nii.gz`` on the way and keep its name; nibabel (and so MONAI) picks
    the compression by the name alone and cannot read either mix-up."""
    stem = nifti_stem(path)
    try:
        with path.open("rb") as stream:
            head = stream.read(4)
    except OSError:
        return None
    if stem is None:
        return _gzip_nifti_unnamed(path) if head[:2] == _GZIP_MAGIC else None
    if head[:2] == _GZIP_MAGIC and not is_gzipped(path):
        return f"its content is gzip-compressed but its name says uncompressed: rename it to {stem}.nii.gz"
    if is_gzipped(path) and _header_sizes(head) & {_NIFTI1_HEADER_SIZE, _NIFTI2_HEADER_SIZE}:
        return (f"it is an uncompressed NIfTI file under a .gz name (a browser or download tool may have "
                f"decompressed it): rename it to {stem}.nii, or compress it (gzip)")
    return None


def _gzip_nifti_unnamed(path: Path) -> str | None:
    """What to do about a gzip-compressed NIfTI file named without ``.nii.gz`` (``case_001``, ``scan.gz``), or
    None where its content is no NIfTI: it was told to convert a file that only needs its name (an uncompressed
    one is refused by the checks, which name its ``.nii``)."""
    try:
        with gzip.open(path, "rb") as stream:
            head = stream.read(4)
    except (OSError, EOFError):
        return None
    if not _header_sizes(head) & {_NIFTI1_HEADER_SIZE, _NIFTI2_HEADER_SIZE}:
        return None
    return f"it is {nifti_without_its_extension(path, compressed=True)}"


def nifti_without_its_extension(path: Path, compressed: bool) -> str:
    """What to do about a NIfTI file (gzip-``compressed`` or not) whose name ends in neither ``.nii`` nor
    ``.nii.gz``: read by its bytes it may pass, but nibabel, and so training's loader, go by the name."""
    if compressed:  # scan.gz: scan.nii.gz, not scan.gz.nii.gz
        name = path.name[:-len(".gz")] if is_gzipped(path) else path.name
        return (f"a gzip-compressed NIfTI file not named .nii.gz, which training reads by that name: rename it "
                f"{name}.nii.gz (and its path where it is listed)")
    return (f"a NIfTI file not named .nii or .nii.gz, which training reads by that name: rename it {path.name}.nii "
            f"(and its path where it is listed)")


def _missing_file_fix(path: Path) -> str:
    """What to do about a listed file that is not there; a path written on Windows (``imagesTr\\x.nii.gz``)
    names no folder here, since a backslash is an ordinary character of a file name on Linux and macOS."""
    if "\\" in str(path):
        written = Path(str(path).replace("\\", "/"))
        there = f"; {written} is there" if written.is_file() else ""
        return (f"its path holds backslashes (written on Windows?){there}: write paths in the dataset description "
                f"with forward slashes (/), which work on every system")
    if _under_the_other_ending(path):  # words naming no file, so that a dataset decompressed whole is one line
        ending, done, how = (".nii", "decompressed", "compress it (gzip)") if is_gzipped(path) else (
            ".nii.gz", "compressed", "decompress it (gunzip)")
        return (f"a file of the same name ending in {ending} is there ({done}?): list that name where the dataset "
                f"lists this one, or {how}")
    # A moved or renamed folder loses every file at once: its name is the one useful thing to say
    # (a probe's 2000 "file not found" lines never said it; seventy-fifth session).
    if missing := next((folder for folder in reversed(path.parents) if not folder.exists()), None):
        return (f"the folder {missing} does not exist: check where the dataset description points (dataset.json, "
                f"CSV, nnU-Net folder or the pairs given in Python), or restore the folder")
    return ("check the path where the dataset lists it (dataset.json, CSV, nnU-Net folder or the pairs given in "
            "Python) or restore the file")


def _under_the_other_ending(path: Path) -> bool:
    """Whether a missing ``x.nii.gz`` is there as ``x.nii`` (a dataset decompressed for speed), or the other way
    round. It was "file not found; check the path" alone until the hundred-and-fourth session."""
    stem = nifti_stem(path)
    return stem is not None and path.with_name(f"{stem}.nii" if is_gzipped(path) else f"{stem}.nii.gz").is_file()


def _describe(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
