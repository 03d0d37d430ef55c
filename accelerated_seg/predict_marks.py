"""The mark predict leaves in the header of each file it writes, read back to tell which files a rerun may replace.

A label map's description is ``PREDICTION_DESCRIP`` and a digest of its voxels (``label_map_descrip``), so that
one corrected by hand since, in an editor that keeps the header, is told apart (``written_by_predict``); its
aux_file records what made it (``case_key``: the run's ``prediction_key`` and the case's files as they stand),
which ``--continue`` compares (``written_before``). ``marked_by_predict`` reads a header's first bytes alone, for
evaluate's advice on a missing case. Nothing here knows where the outputs go: ``inference_outputs`` decides with
these which files a run may write over.
"""

from __future__ import annotations

import functools
import hashlib
import os
import zlib
from pathlib import Path
from typing import Sequence

import nibabel as nib
import numpy as np
from nibabel.openers import ImageOpener
from nibabel.spatialimages import HeaderDataError

from .data.io import header_notes_unsaid
from .inference_inputs import InputCase

# The header description of every file predict writes: a rerun may replace those, and nothing else.
# A label map's also carries a digest of its voxels (``label_map_descrip``), so that one corrected by
# hand since, in an editor that keeps the header, is not among them.
PREDICTION_DESCRIP = b"accelerated_seg prediction"
# What made a file predict writes (``case_key``), in the header's 24-byte aux_file, which ``--continue``
# compares. Not in the description: an earlier version reads all of that as the digest, and took a
# file with more there for one changed by hand.
_MADE_BY = b"accelerated_seg "


def label_map_digest(labels: np.ndarray) -> bytes:
    """16 hex digits of the label map's values (as int32, slice by slice: the same whatever type or
    scaling stores them, without a copy of the whole volume)."""
    digest = hashlib.blake2b(digest_size=8)
    for index in range(labels.shape[-1]):
        digest.update(np.ascontiguousarray(labels[..., index], dtype=np.int32).tobytes())
    return digest.hexdigest().encode()


def label_map_descrip(labels: np.ndarray) -> bytes:
    """The header description of a label map predict writes: ours, and what it held (43 of NIfTI's 80 bytes)."""
    return PREDICTION_DESCRIP + b" " + label_map_digest(labels)


def prediction_key(model_dirs: Sequence[str | Path], settings: str) -> bytes:
    """A digest of what makes a run's predictions: each model's ``config.json`` and weights file as they
    stand, and ``settings``, the options that change a voxel. The weights by ``_as_it_stands``: reading
    an ensemble's gigabytes again on every run, to hash them, cost seconds."""
    digest = hashlib.blake2b(digest_size=8)
    for folder in model_dirs:
        digest.update((Path(folder) / "config.json").read_bytes())
        digest.update(_as_it_stands(Path(folder) / "model.safetensors"))
    digest.update(settings.encode())
    return digest.digest()


def case_key(run_key: bytes, case: InputCase) -> bytes:
    """What the header of a case's outputs records as having made them (``made_by``): the run's
    ``prediction_key`` and the case's input files as they stand (``_as_it_stands``), so that a scan
    converted again, or another folder's case of the same name, is predicted again."""
    digest = hashlib.blake2b(run_key, digest_size=4)
    for path in case.channels:
        digest.update(_as_it_stands(Path(path)))
    return _MADE_BY + digest.hexdigest().encode()


def _as_it_stands(path: Path) -> bytes:
    """A file's name, size and modification time: a file written again differs, and none is read,
    which for a folder of thousands of scans would take minutes. A copy that keeps the time (``cp -p``,
    ``rsync -a``) of the same bytes counts as the same file. The name as the OS stores it (os.fsencode; the same bytes
    as str.encode gave a UTF-8 name): str.encode refused one in Latin-1, its case segmented and not written, until the
    hundred-and-twenty-third session."""
    stat = path.stat()
    return os.fsencode(path.name) + f" {stat.st_size} {stat.st_mtime_ns}\n".encode()


def made_by(path: str | Path) -> bytes | None:
    """The ``case_key`` a file predict wrote records; None where it records none (another program's
    file, one written before the eighty-third session) or is not a NIfTI."""
    try:
        recorded = nib.load(str(path)).header["aux_file"].item()
    except (nib.filebasedimages.ImageFileError, OSError, ValueError, EOFError):
        return None
    return recorded if recorded.startswith(_MADE_BY) else None


def written_before(label_map: Path, probabilities: Path | None, key: bytes) -> bool:
    """Whether this case's outputs are there as an earlier run of predict wrote them, made as ``key``
    (``case_key``) says: what ``--continue`` passes over. A file without the key (written before the
    eighty-third session), with another, or changed since predict wrote it, is predicted again."""
    outputs = [label_map] + ([probabilities] if probabilities is not None else [])
    return all(made_by(path) == key and written_by_predict(path) is None for path in outputs)


def written_by_predict(path: str | Path) -> str | None:
    """Whether predict wrote ``path`` and it is as predict left it: None if so, else why not ("not
    written by predict", or "changed since predict wrote it"). A description without a digest (the
    probabilities, and label maps before the seventieth session) counts as unchanged.

    Read once per process while the file stays as it is (its size, times and inode): the command line
    checks the outputs before the inference stack imports and predict_cases again after it (ninety-second
    session), and --continue asks once more; the digest of a 512x512x300 label map took 1.5 s on 2 cores."""
    try:
        stat = os.stat(path)
    except OSError:
        return "not written by predict"
    return _written_by_predict(os.path.abspath(path), (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino))


@functools.lru_cache(maxsize=65536)
def _written_by_predict(path: str, as_it_stands: tuple) -> str | None:
    """``written_by_predict`` of ``path``, read; ``as_it_stands`` keys the cache (any write changes its ctime)."""
    try:
        with header_notes_unsaid():  # a header nibabel refuses is answered below, where it printed its own line too
            image = nib.load(path)
        descrip = image.header["descrip"].item()
        if descrip == PREDICTION_DESCRIP:
            return None
        if not descrip.startswith(PREDICTION_DESCRIP + b" "):
            return "not written by predict"
        if label_map_digest(np.asanyarray(image.dataobj)) != descrip[len(PREDICTION_DESCRIP) + 1:]:
            return "changed since predict wrote it"
        return None
    except (nib.filebasedimages.ImageFileError, OSError, ValueError, EOFError, HeaderDataError):  # no NIfTI, or
        return "not written by predict"  # a header nibabel refuses (a traceback until the ninety-ninth session)


def marked_by_predict(path: str | Path) -> bool:
    """Whether the header of ``path`` carries predict's description (``PREDICTION_DESCRIP``), changed since or
    not: the header alone is read, to tell predict's folder from another tool's (evaluate's advice for a
    missing case). Its first bytes alone, since the ninety-seventh session (nib.load before, with nibabel's
    sniffing of every image class: 1.8-2.3 ms a file, for 200 predictions 0.36-0.46 s of an error's wait).
    A header that nibabel's checks refuse (a datatype code it does not know, a vox_offset inside the header) is
    not ours, as ``written_by_predict`` says of it: read unchecked, one whose descrip held the mark answered True
    until the ninety-ninth session. nibabel's own line on such a header is kept off stderr (``header_notes_unsaid``)
    here and in ``written_by_predict``: printed above evaluate's advice and predict's refusal until the ninety-ninth
    session."""
    try:
        with ImageOpener(str(path)) as stream:  # decompresses a .gz only as far as the header
            block = stream.read(nib.Nifti2Header.sizeof_hdr)
        klass = next((klass for klass in (nib.Nifti1Header, nib.Nifti2Header)  # nib.load's order
                      if klass.may_contain_header(block)), None)
        if klass is None:
            return False
        with header_notes_unsaid():  # a header nibabel refuses is answered below, where it printed its own line too
            header = klass(block[:klass.sizeof_hdr], check=True)
        return header["descrip"].item().startswith(PREDICTION_DESCRIP)
    except (OSError, EOFError, ValueError, zlib.error, HeaderDataError):  # unreadable, not gzip as named, a
        return False  # folder, a damaged header: not ours
