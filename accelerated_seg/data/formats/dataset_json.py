"""The dataset.json that MSD and nnU-Net v2 datasets share: where it is, its content, its channels."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

from accelerated_seg.data.cases import unnamed_channels
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.formats.paths import PathLike
from accelerated_seg.files import link_chain
from accelerated_seg.hand_edited import read_json_file


def dataset_json_path(path: PathLike) -> Path:
    """The absolute path of the dataset.json that ``path`` names, itself or as its folder."""
    json_path = Path(path).expanduser().absolute()
    return json_path / "dataset.json" if json_path.is_dir() else json_path


def read_json(json_path: Path) -> dict[str, Any]:
    """Load the JSON object, turning every failure into a DataError that says what to do (an unreadable file too,
    since review r106)."""
    if link := dangling_link(json_path, MOUNT_IT):
        raise DataError(link)  # "dataset.json not found" of a link there until review r106
    if not json_path.is_file():
        # A probe gave the path of a dataset.json, relative to the config's folder, and was told to
        # point at a folder; a relative path is read from the working folder, which is now named. The file is
        # named by its name: a missing datalist.json was "dataset.json not found" (ninety-first session)
        raise DataError(
            f"{json_path}: {json_path.name} not found; give the path of the dataset's JSON (its dataset.json, or a "
            f"MONAI datalist) or of the folder that contains its dataset.json (Medical Segmentation Decathlon or "
            f"nnU-Net v2 layout); a relative data path is read from the working folder ({Path.cwd()}), not from the "
            f"config file's"
        )
    # hand_edited's reader, as evaluate --labels reads this file: a byte-order mark (Windows editors, PowerShell)
    # read past; UTF-16, Latin-1, a binary file, a trailing comma and a copy cut short each told as what it is.
    # Until the hundred-and-twenty-second session a UTF-16 or Latin-1 file was the codec's "can't decode byte 0xff
    # in position 0" and every parse fault "fix or regenerate the file", a trailing comma's too
    content = read_edited_json(json_path, copy_it_again(json_path))
    if not isinstance(content, dict):
        raise DataError(f"{json_path}: expected a JSON object at the top level, got {type(content).__name__}")
    return content


#: Who reads a dataset's dataset.json besides us, taking the last of a key given twice without a word: a Decathlon
#: dataset's MONAI (load_decathlon_datalist), an nnU-Net one's nnU-Net (load_json), each with json.load.
DATASET_READER = "nnU-Net's and MONAI's json.load"


def read_edited_json(json_path: Path, again: str, reader: str = DATASET_READER) -> Any:
    """``json_path``'s JSON, a dataset's file edited by hand (dataset.json, splits_final.json), read by hand_edited's
    one reader of such files (``read_json_file``): a UTF-8 byte-order mark read past, every fault one line ending in
    ``again`` (the way to a whole copy), brackets nested past the parser's depth told (RecursionError's traceback from
    every path until review r106), a key given twice in one object refused naming its object and lines, of which
    ``reader`` takes the last. The one reader of these files for training, ``check``, predict and ``evaluate
    --labels``.

    Raises:
        DataError: naming the file, what is wrong and what to do; where it cannot be read too (``cannot_be_read``):
            PermissionError's traceback from load_cases, ``check`` and training until review r106.
    """
    try:
        return read_json_file(json_path, again, reader=reader)
    except OSError as error:
        raise DataError(cannot_be_read(json_path, error)) from None


#: What to do of a dataset's file (or its folder) that is a link to nothing.
MOUNT_IT = "mount or make what it names, or give the dataset's own path"


def dangling_link(path: Path, way_on: str) -> str | None:
    """Where ``path`` is a symbolic link to nothing (a dangling link: the storage it names not mounted, a dataset
    moved), that said, and ``way_on``; None where it is none. A link to a link to nothing names each link on the way
    (``files.link_chain``), and a link in a loop is said as one: until review r113 both were "a symbolic link to
    <the next link>, which does not exist", of a link there for ``ls`` to see, and of a link to itself."""
    if not path.is_symlink() or path.exists():
        return None
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return (f"{path} is a symbolic link in a loop (following it leads back to it), so it names no file: point "
                    f"it at the file it stands for, or remove it")
    chain, at = link_chain(path)
    which = "a dangling link" if at is None else "a dangling link at the end of the chain"
    return f"{chain}, which does not exist ({which}: what it names not mounted, or moved?): {way_on}"


def cannot_be_read(path: Path, error: OSError) -> str:
    """Why ``path``, a dataset's file that is there, cannot be read (``error``: permission, an I/O error), and what to
    do, as an export's config.json is told (``model_folders.config_json_fault``)."""
    return (f"{path} cannot be read ({error.strerror or error}): read it as a user who may (ls -l {path} names its "
            f"owner and mode), or copy the dataset where you can")


def copy_it_again(json_path: Path) -> str:
    """The way to a whole dataset.json (``json_path``) where one does not parse and cannot be mended in place."""
    return f"copy {json_path.name} again from the dataset's download, or regenerate it"


def parse_channels(content: dict[str, Any], json_path: Path) -> dict[int, str]:
    """Return {index: name} from MSD "modality" or nnU-Net v2 "channel_names"; one channel if neither."""
    declared_by = "modality" if "modality" in content else "channel_names"
    raw = content.get(declared_by)
    if raw is None:
        return unnamed_channels(1)
    try:
        channels = dict(sorted((int(key), str(name)) for key, name in raw.items()))
    except (AttributeError, ValueError) as err:
        raise DataError(
            f'{json_path}: "modality"/"channel_names" must map channel indices to names, e.g. {{"0": "MRI"}}; '
            f"got {raw!r}"
        ) from err
    if not channels:
        raise DataError(f'{json_path}: "{declared_by}" declares no channel; name each, e.g. "{declared_by}": '
                        '{"0": "MRI"}')
    if list(channels) != list(range(len(channels))):
        raise DataError(f"{json_path}: {_numbering_with_a_gap(declared_by, list(channels))}")
    return channels


def _numbering_with_a_gap(key: str, numbers: list[int]) -> str:
    """The refusal of channels numbered otherwise than 0..N-1 (``{"0": "T1", "2": "T2"}`` after a modality was
    dropped, or ``{"1": ..., "2": ...}`` counted from 1), with the way on: it said "channel indices must be
    0..N-1 without gaps" alone, naming neither the key nor the files, which nnU-Net numbers the same way
    (hundred-and-fifth session)."""
    wanted = ", ".join(f'"{index}"' for index in range(len(numbers)))
    return (f'"{key}" numbers its channels {", ".join(map(str, numbers))}; number them {wanted}, in the order of '
            f"the image files (an nnU-Net case's <case>_0000, <case>_0001, ...; a Decathlon case's list, or the "
            f"volumes of its 4D file), and rename the channel files of an nnU-Net dataset to match")

