"""Which files a prediction reads and writes: the cases in the inputs, and the outputs it may write.

``collect_cases`` turns files, folders and glob patterns into cases, grouping nnU-Net's channel files
(``<case>_0000.nii.gz``, ``<case>_0001.nii.gz``, ...). ``output_paths`` says where each case's label map
goes, and ``check_outputs`` refuses, before anything is segmented, every output that would overwrite an
input, a file predict did not write (or has changed since), or another output; in a folder of cases, a case's
map under the other NIfTI ending (``case.nii.gz`` where the model names it ``case.nii``) is replaced where predict
wrote it and refused otherwise, as evaluate takes two maps of one case for an error (``under_the_other_ending``,
ninety-seventh session). ``holding_output_folder`` refuses a second predict into a folder one is writing.
Nothing here knows the network; voxels are read only to tell whether an existing label map is still as predict
wrote it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import warnings
import zlib
from collections import Counter
from dataclasses import dataclass
from glob import escape as glob_escape
from pathlib import Path
from typing import Collection, Iterable, Sequence

import nibabel as nib
import numpy as np
from nibabel.openers import ImageOpener
from nibabel.spatialimages import HeaderDataError

from .config import ConfigError
from .data.checks import volumes_in
from .data.errors import DataError
from .data.formats.paths import OTHER_IMAGE_FORMATS, conversion, nifti_stem, other_image_files, resolve, unique_ids
from .data.io import content_not_fetched, file_or_unfetched, header_notes_unsaid, resource_fork
from .dropped_interrupts import between_files, interrupts_kept, raise_a_dropped_interrupt
from .files import NAME_MAX, file_in_the_way, no_file_made_in, remove_stale_temporaries
from .own_warnings import AcceleratedSegWarning
from .run_lock import RunLock, hold_run_folder, in_use, live_holder

# The header description of every file predict writes: a rerun may replace those, and nothing else.
# A label map's also carries a digest of its voxels (``label_map_descrip``), so that one corrected by
# hand since, in an editor that keeps the header, is not among them.
PREDICTION_DESCRIP = b"accelerated_seg prediction"
# What made a file predict writes (``case_key``), in the header's 24-byte aux_file, which ``--continue``
# compares. Not in the description: an earlier version reads all of that as the digest, and took a
# file with more there for one changed by hand.
_MADE_BY = b"accelerated_seg "

# nnU-Net's channel naming: <case>_0000.nii.gz, <case>_0001.nii.gz, ... one file per channel.
_CHANNEL_FILE = re.compile(r"^(?P<case>.+)_(?P<channel>\d{4})$")
_ALL_CHANNELS = -1  # a multi-channel model's file without that naming: one 4D file of every channel


@dataclass(frozen=True)
class InputCase:
    """One case to segment: its id (the output's file name) and one file per channel, in order."""

    id: str
    channels: tuple[Path, ...]


@dataclass(frozen=True)
class PredictNames:
    """How the caller names predict's arguments in a refusal: the command's flags (the default), or a Python
    function's parameters (``PREDICT_FILE_NAMES``, ...). One check, each caller's words: until the ninety-fifth
    session a call from Python was told to give ``--output`` another name, or a folder to ``accelerated-seg
    predict``, and ``predict_file(model, scan, "p2d/")`` only that "p2d" was no NIfTI name."""

    output: str = "--output"  # the label map's path (one case), or the folder of the cases' label maps
    probabilities: str = "--output"  # where the probabilities' path comes from: --output's, beside the label map
    without_probabilities: str = "leave out --probabilities"  # how the caller writes no probabilities
    inputs: str = "--input"  # one case's files, one per channel
    model: str = "--model"  # the exported model's folder, or several (an ensemble)
    keyword: bool = False  # a keyword says its value as output='p2d/', a flag as --output p2d/
    # the form that segments one case, then the one that segments several into a folder ({folder}: the output)
    one_case: str = "with --input (one case, one file per channel) the output is that case's label map, one file"
    several_cases: str = "give the files as INPUT... (without --input) with --output {folder}"

    def given(self, value, name: str | None = None) -> str:
        """``value`` as given to the argument ``name`` (``output`` by default): --output p2d/, output='p2d/'."""
        name = name or self.output
        return f"{name}={str(value)!r}" if self.keyword else f"{name} {value}"


#: predict_file's words (inference.py).
PREDICT_FILE_NAMES = PredictNames(
    model="model_dir", output="output", probabilities="probabilities_output", inputs="inputs", keyword=True,
    without_probabilities="leave out probabilities_output",
    one_case="predict_file segments one case (inputs: one file per channel), so output is that case's label map, "
             "one file",
    several_cases="call predict_cases(model_dir, inputs, '{folder}')")
#: Segmentation.predict's (estimator.py), whose scans are its x, and whose output is a temporary file of its own.
ESTIMATOR_PREDICT_NAMES = PredictNames(
    model="model_dir", output="output", probabilities="probabilities_output", inputs="x", keyword=True,
    without_probabilities="leave out probabilities_output",
    one_case="Segmentation.predict segments one case (x: one file per channel)",
    several_cases="call predict once per case, or for files accelerated_seg.inference.predict_cases(model.model_dir, "
                  "x, '{folder}')")
#: predict_cases' words: its output is the folder (or one case's file), its inputs files, folders or patterns.
PREDICT_CASES_NAMES = PredictNames(model="model_dir", output="output", probabilities="output", inputs="inputs",
                                   keyword=True, without_probabilities="give probabilities=False")
#: predict_case's and prepare_case's (inference.py), whose one case's files are its channels.
PREDICT_CASE_NAMES = PredictNames(model="model_dir", output="output", probabilities="probabilities_output",
                                  inputs="channels", keyword=True,
                                  without_probabilities="leave out probabilities_output",
                                  several_cases="call predict_cases(model_dir, channels, '{folder}')")


def check_paths_given(given: Sequence[tuple[str, object]], names: PredictNames = PredictNames()) -> None:
    """Refuse an array, an image or a tensor where a path is taken (``inputs``, ``output``, ...): a numpy
    array in predict_file's inputs was "expected str, bytes or os.PathLike object, not ndarray", a nibabel
    image "Cannot slice image objects", and in predict_cases' a file name "too long", of the array's printout,
    each after the model loaded (ninety-fifth session's probe).

    Args:
        given: (argument's name, value): a path, a list of paths (the inputs), or None where optional.

    Raises:
        DataError: naming the argument, what it was given, and what takes that.
    """
    for name, value in given:
        if value is None or isinstance(value, (str, os.PathLike)):
            continue
        for item in list(value) if isinstance(value, (list, tuple)) else [value]:
            if isinstance(item, (str, os.PathLike)):
                continue
            what = _what_it_is(item) + ("" if item is value else " in the list")
            if name != names.inputs:
                raise DataError(f"{name} takes a path (str or pathlib.Path), but was given {what}")
            way = ("; Segmentation.predict takes voxels: Segmentation.load(model_dir).predict(x) with x the array or "
                   "image" if _is_data(item) else "")
            raise DataError(f"{name} takes NIfTI files (a str or pathlib.Path each), but was given {what}{way}")


def _is_data(value) -> bool:
    """An array, tensor or image: voxels rather than a name of a file holding them."""
    return hasattr(value, "shape") or hasattr(value, "dataobj")


def _what_it_is(value) -> str:
    """What a value that is no path is, for a message: "an array (numpy.ndarray, shape (20, 20, 16))", ..."""
    kind = f"{type(value).__module__.split('.')[0]}.{type(value).__name__}"
    if hasattr(value, "dataobj"):
        return f"an image ({kind}, shape {tuple(value.shape)})"
    if hasattr(value, "shape"):
        return f"an array ({kind}, shape {tuple(value.shape)})"
    return f"{type(value).__name__} {value!r}"[:120]


def expand_inputs(inputs: Sequence[str | Path]) -> list[Path]:
    """Files, folders (their NIfTI files, not recursive) and glob patterns -> NIfTI files, in order.

    Hidden files are skipped: they are other programs' temporary files (``write_nifti`` uses them).
    A file reached twice (named, and inside a named folder) counts once.

    Raises:
        DataError: an input that is neither a file, a folder nor a pattern matching NIfTI files.

    Example:
        >>> expand_inputs(["scans/", "extra/case_9.nii.gz", "more/*_0000.nii.gz"])  # doctest: +SKIP
    """
    files: dict[str, Path] = {}  # absolute path -> as given, ordered and without repeats
    for item in inputs:
        for path in _nifti_files(str(item)):
            # by the path, not its spelling: scans/a.nii.gz and /abs/scans/a.nii.gz were two files giving one
            # case, refused with "keep one" (seventy-second session's probe). Links are not followed: two
            # names of one file are two cases.
            files.setdefault(os.path.abspath(path), path)
    return list(files.values())


def _json_given(json_path: Path) -> str:
    """What a JSON given as a scan is, and what to give. ``predict Task09_Spleen/dataset.json``, for the scans its
    "test" list names, was told to convert the JSON with dcm2niix (ninety-seventh session's probe)."""
    if json_path.name == "config.json" and (json_path.parent / "model.safetensors").is_file():
        return f"an exported model's config.json, not a scan: its folder is the model, --model {json_path.parent}"
    try:
        content = json.loads(json_path.read_text())
    except (ValueError, OSError):
        content = None
    described = isinstance(content, dict) and bool(content.keys() & {"training", "test", "modality", "channel_names"})
    what = "a dataset's description" if described else "a JSON file"
    return f"{what}, not a scan; predict takes the scans: {_its_test_scans(json_path)}"


def _its_test_scans(json_path: Path) -> str:
    """Where the scans a dataset.json lists under "test" (the Decathlon's unlabelled ones) lie, or how to give
    scans at all."""
    try:
        listed = json.loads(json_path.read_text()).get("test") or []
        scans = [resolve(item["image"] if isinstance(item, dict) else item, json_path.parent) for item in listed]
    except (ValueError, OSError, AttributeError, TypeError, KeyError):  # no JSON object, or no list of paths
        scans = []
    folders = sorted({f"{scan.parent}/" for scan in scans})
    if not folders:
        return "NIfTI files, their folder or a pattern"
    which = "that folder" if len(folders) == 1 else "those folders"
    return f"its \"test\" list's {len(scans)} are in {', '.join(folders)}, give {which}"


def _nifti_files(text: str) -> list[Path]:
    """The NIfTI files one input names."""
    path = Path(text).expanduser()
    if not path.exists() and (absent := content_not_fetched(path)) is not None:  # "no such file or folder" before
        raise DataError(f"{path}: {absent}")
    if path.is_file():
        if path.suffix.lower() == ".json":
            raise DataError(f"{path}: {_json_given(path)}")
        if (fork := resource_fork(path)) is not None:  # a folder passes over it; given by name, refused before the model
            raise DataError(f"{path}: {fork}")
        if Path(os.path.abspath(path)).parent.resolve().name in _LABEL_FOLDERS:  # its folder's name, not a link's
            raise DataError(_label_map_given(path))
        if nifti_stem(path) is None and path.name.lower().endswith(OTHER_IMAGE_FORMATS):
            # named for the file, as a folder of them is told (other_image_files): "dcm2niix or SimpleITK" alone
            # until the hundred-and-fifth session's review
            raise DataError(f"{path}: not a NIfTI file name (.nii or .nii.gz); convert it, {conversion(path.name)}")
        if nifti_stem(path) is None:
            # FreeSurfer's volumes, which nobrainer's users have: the way for them is another tool
            how = ("mri_convert, or nibabel: nibabel.save(nibabel.load(path), '<case>.nii.gz')"
                   if path.name.lower().endswith((".mgz", ".mgh")) else "dcm2niix or SimpleITK")
            raise DataError(f"{path}: not a NIfTI file name (.nii or .nii.gz); convert it (e.g. with {how}) "
                            f"and name it <case>.nii.gz")
        return [path]
    if path.is_dir():
        if path.resolve().name in _LABEL_FOLDERS:
            raise DataError(_label_folder_given(path))
        found = sorted(p for p in path.iterdir()
                       if file_or_unfetched(p) and nifti_stem(p) and not p.name.startswith("."))
        where = f"folder {path}"
    elif any(c in text for c in "*?["):
        found = sorted(p for p in map(Path, _glob(text)) if file_or_unfetched(p) and nifti_stem(p))
        where = f"pattern {text!r}"
    else:
        raise DataError(f"{text}: no such file or folder; give NIfTI files, folders holding them, "
                        f"or a quoted pattern such as 'scans/*.nii.gz'")
    if not found and (path / "dataset.json").is_file():  # not a pattern over its training images and labels
        raise DataError(f"{where} holds no .nii/.nii.gz file itself: it is a dataset's folder (its dataset.json); "
                        f"predict takes the scans: {_its_test_scans(path / 'dataset.json')}")
    if not found and path.is_dir():  # a folder per case (case_001/image.nii.gz): folders are not searched down
        below = sorted(p for p in path.glob("*/*") if p.is_file() and nifti_stem(p) and not p.name.startswith("."))
        if below:
            example = str(Path(path, "*", below[0].name))
            raise DataError(f"{where} holds no .nii/.nii.gz file itself, but its subfolders hold {len(below)} "
                            f"({below[0]}, ...); give them as a quoted pattern such as {example!r}")
    if not found and path.is_dir() and (others := other_image_files(path)):
        raise DataError(f"{where} holds no .nii/.nii.gz file{others}")
    if not found:
        raise DataError(f"{where} holds no .nii/.nii.gz file; check the path")
    return found


# nnU-Net's and the Decathlon's folders of reference label maps, by the images' folder beside each
_LABEL_FOLDERS = {"labelsTr": "imagesTr", "labelsTs": "imagesTs"}


def _label_folder_given(folder: Path) -> str:
    """What to say of a dataset's labelsTr/ or labelsTs/ given as the scans: its label maps were predicted as
    if they were scans, without a word (ninety-seventh session's probe). A pattern over it is taken as asked."""
    images = folder.resolve().parent / _LABEL_FOLDERS[folder.resolve().name]
    scans = (f"the scans are in {images}/ beside it, give that folder" if images.is_dir()
             else f"give the scans' folder ({images.name}/ in that layout)")
    return (f"folder {folder} is a dataset's {folder.resolve().name}/, its reference label maps, not scans: {scans}; "
            f"to segment its files as scans all the same, give them as a quoted pattern, "
            f"'{Path(folder, '*.nii.gz')}'")


def _label_map_given(label: Path) -> str:
    """What to say of one label map of a dataset's labelsTr/ or labelsTs/ given as a scan, as of the folder
    (``_label_folder_given``): the case's scans beside it, nnU-Net's ``<case>_0000`` ... or the Decathlon's
    ``<case>``, or the layouts' names where none is there. A pattern naming the file alone is taken as asked."""
    folder = Path(os.path.abspath(label)).parent.resolve()
    images = folder.parent / _LABEL_FOLDERS[folder.name]
    case = nifti_stem(label)
    scans = sorted(p for p in images.glob(f"{glob_escape(case)}*") if p.is_file()
                   and re.fullmatch(rf"{re.escape(case)}(_\d{{4}})?", nifti_stem(p) or "")) if images.is_dir() else []
    ending = label.name[len(case):]
    if scans:
        named = ", ".join(map(str, scans))
        scan = (f"its scan is {named} beside it, give that file" if len(scans) == 1
                else f"its scans are {named} beside it, give those files")
    else:
        scan = (f"give its scan ({images.name}/{case}_0000{ending} in nnU-Net's layout, "
                f"{images.name}/{case}{ending} in the Decathlon's)")
    # the last letter in brackets: a pattern that matches this one file, whatever the rest of its name holds
    pattern = glob_escape(str(label)[:-1]) + f"[{label.name[-1]}]"
    return (f"{label} is a label map of a dataset's {folder.name}/, a reference, not a scan: {scan}; "
            f"to segment it as a scan all the same, give it as a quoted pattern, '{pattern}'")


def _volumes_in_header(path: Path) -> int | None:
    """3D volumes a NIfTI file holds (``volumes_in``), from its header alone; None where it cannot be read."""
    try:
        shape = nib.load(str(path)).shape
    except Exception:  # nibabel raises many types for a damaged file; reading the case reports it
        return None
    return volumes_in(shape)


def _glob(pattern: str) -> list[str]:
    import glob

    return glob.glob(str(Path(pattern).expanduser()), recursive=True)


def group_cases(files: Sequence[Path], in_channels: int, channel_names: dict | None = None) -> list[InputCase]:
    """Group files into cases by nnU-Net channel naming.

    Single-channel models: every file is a case; a trailing ``_0000`` is dropped from the id, so
    ``liver_7_0000.nii.gz`` gives ``liver_7.nii.gz``. Multi-channel models: ``<case>_0000``,
    ``<case>_0001``, ... are one case, channels in that order; each case needs every channel once.
    A multi-channel model's file without that naming is a case of its own whose one file holds every
    channel along a fourth axis (the Decathlon's BrainTumour ``BRATS_001.nii.gz``), checked when read,
    unless its name ends in ``_<channel name>`` or ``-<channel name>`` of ``channel_names`` (case aside):
    BraTS' own ``BraTS2021_00000_t1ce.nii.gz`` is channel ``t1ce`` of case ``BraTS2021_00000``.
    Where one case's channel comes from several folders (a folder per case: ``case_001/image.nii.gz``,
    ``case_002/image.nii.gz``), each folder is a case of its own, and their ids add the folders below
    their common one (``case_001_image``), as training names such cases (``unique_ids``).

    Args:
        files: NIfTI files, e.g. from ``expand_inputs``.
        in_channels: channels the model takes.
        channel_names: channel index (str or int) -> name (``config.json``): files named by them, and messages.

    Raises:
        DataError: every problem found, one line each: a file without channel naming, a missing or
            extra channel, two files giving the same case.

    Example:
        >>> [c.id for c in group_cases([Path("a_0000.nii.gz"), Path("a_0001.nii.gz")], 2)]
        ['a']
    """
    names = {int(k): v for k, v in (channel_names or {}).items()}
    by_name: dict[str, dict[int, list[Path]]] = {}
    separator_of: dict[str, str] = {}  # a case whose files are named by the channels' names: "_" or "-"
    problems = []
    for path in files:
        raise_a_dropped_interrupt()  # one dropped as the header before was closed (dropped_interrupts.py)
        stem = nifti_stem(path)
        match = _CHANNEL_FILE.match(stem)
        if in_channels == 1:
            case, channel = (match["case"], 0) if match and match["channel"] == "0000" else (stem, 0)
        # One file holding every channel along a 4th axis, whatever its name: a 4D "pat_0001.nii.gz"
        # was taken for channel 0001 and refused as a case lacking channel 0000 (seventy-fourth session).
        # A file whose header cannot be read and whose name gives no channel goes the same way: the read says why.
        elif (held := _volumes_in_header(path)) == in_channels or (match is None and held is None):
            case, channel = stem, _ALL_CHANNELS
        elif held is not None and held > 1:  # "rename it" (or a case lacking channels) said nothing of its count
            problems.append(f"{path}: a 4D image of {held} volumes (x, y, z, {held}), but the model takes "
                            f"{in_channels} channels{_named(names)}: give a 4D file of those {in_channels}, or one 3D "
                            f"file per channel (<case>_0000.nii.gz ... <case>_{in_channels - 1:04d}.nii.gz)")
            continue
        elif match is None and (named := _named_channel(stem, names)):
            case, separator_of[case], channel = named
        elif match is None:
            by_names = (f" or by the channels' names, <case>_{names[0]}.nii.gz ... <case>_{names[in_channels - 1]}"
                        f".nii.gz" if {0, in_channels - 1} <= names.keys() else "")
            problems.append(f"{path}: the model takes {in_channels} channels, so each file must be named "
                            f"<case>_0000.nii.gz ... <case>_{in_channels - 1:04d}.nii.gz (one per channel){by_names}, "
                            f"or hold all {in_channels} as one 4D (x, y, z, {in_channels}) image; rename it")
            continue
        else:
            case, channel = match["case"], int(match["channel"])
        by_name.setdefault(case, {}).setdefault(channel, []).append(path)

    cases = []
    for case, case_id, channels in _split_by_folder(by_name):
        if _ALL_CHANNELS in channels:
            if len(channels) > 1 or len(channels[_ALL_CHANNELS]) > 1:
                problems.append(f"case {case_id!r}: {channels[_ALL_CHANNELS][0]} holds every channel, but other files "
                                f"give the case too; keep one of the two forms")
            else:
                cases.append(InputCase(case_id, (channels[_ALL_CHANNELS][0],)))
            continue
        for channel, paths in sorted(channels.items()):
            if len(paths) > 1:
                problems.append(f"case {case_id!r}: {len(paths)} files give channel {channel:04d} "
                                f"({', '.join(map(str, paths))}); keep one")
            if channel >= in_channels:
                problems.append(f"{paths[0]}: channel {channel:04d}, but the model takes {in_channels} channel(s) "
                                f"(0000..{in_channels - 1:04d}); remove it or use another model")
        missing = [c for c in range(in_channels) if c not in channels]
        if missing:
            described = ", ".join((f"{case}{separator_of[case]}{names[c]}.nii.gz ({names[c]})" if case in separator_of
                                   else f"{case}_{c:04d}.nii.gz" + (f" ({names[c]})" if c in names else ""))
                                  for c in missing)
            problems.append(f"case {case_id!r} lacks channel file(s) {described}; add them next to the others"
                            + _in_another_format(next(iter(channels.values()))[0].parent, case, missing))
        cases.append(InputCase(case_id, tuple(channels[c][0] for c in range(in_channels) if c in channels)))
    repeated = [case_id for case_id, count in Counter(c.id for c in cases).items() if count > 1]
    for case_id in repeated:  # e.g. a/scan.nii.gz and a_scan.nii.gz: one output for two cases
        problems.append(f"case id {case_id!r} is given by " + ", ".join(
            str(c.channels[0]) for c in cases if c.id == case_id) + "; rename one")
    if problems:
        raise DataError(f"cannot group {len(files)} input file(s) into cases:\n" + "\n".join(problems))
    return sorted(cases, key=lambda c: c.id)


def _in_another_format(folder: Path, case: str, missing: list[int]) -> str:
    """The missing channels' files that lie beside the others in a format nnU-Net reads and predict does not
    (``case_0000.mha`` beside ``case_0001.nii.gz``), with the conversion: "add them next to the others" alone
    pointed at a file that is there (hundred-and-fifth session). Empty where there is none."""
    there = [(f"{case}_{channel:04d}{ending}", ending) for channel in missing for ending in OTHER_IMAGE_FORMATS
             if (folder / f"{case}_{channel:04d}{ending}").is_file()]
    if not there:
        return ""
    names = ", ".join(name for name, _ in there)
    return (f" ({names} {'is' if len(there) == 1 else 'are'} there, which predict does not read: only NIfTI; "
            f"convert {'it' if len(there) == 1 else 'them'}, {conversion(*there[0])})")


def _named_channel(stem: str, names: dict[int, str]) -> tuple[str, str, int] | None:
    """(case, separator, channel) of a file named by one of the model's channel names, as BraTS names its
    files (``BraTS2021_00000_t1ce``; BraTS 2023's ``BraTS-GLI-00000-000-t1c``), case aside; None otherwise.
    The longest name is tried first: beside channels ``flair`` and ``t2_flair``, ``a_t2_flair`` is case ``a``."""
    for channel, name in sorted(names.items(), key=lambda item: -len(str(item[1]))):
        for separator in "_-":
            suffix = f"{separator}{name}".lower()
            if stem.lower().endswith(suffix) and len(stem) > len(suffix):
                return stem[:-len(suffix)], separator, channel
    return None


def _named(names: dict[int, str]) -> str:
    """The channels' names from config.json, in order, for a message: " (T1, FLAIR)", or ""."""
    return f" ({', '.join(str(names[c]) for c in sorted(names))})" if names else ""


def _split_by_folder(by_name: dict[str, dict[int, list[Path]]]) -> list[tuple[str, str, dict[int, list[Path]]]]:
    """(case name, id, channel -> files): a name whose channel comes from several folders is a case per
    folder. Until the seventy-second session files were grouped by name alone: a folder per case
    (``case_001/image.nii.gz``, ...) made one case "image" of every scan, refused with "keep one"."""
    kept, split = [], {}  # split: (folder, name) -> channel -> files
    for case, channels in by_name.items():
        if any(len({path.absolute().parent for path in paths}) > 1 for paths in channels.values()):
            for channel, paths in channels.items():
                for path in paths:
                    split.setdefault((path.absolute().parent, case), {}).setdefault(channel, []).append(path)
        else:  # one folder (or channels spread over folders, one file each): grouped by name as always
            kept.append((case, case, channels))
    ids = unique_ids([folder / f"{case}.nii.gz" for folder, case in split], [None] * len(split)) if split else []
    return kept + [(case, case_id, channels) for (_, case), case_id, channels in zip(split, ids, split.values())]


def home_expanded(path: str | Path | None) -> Path | None:
    """``path`` with a leading ``~`` made the home folder, as the command line reads it (``cli.path_argument``);
    None stays None. Python's callers of predict had the scans' ``~`` expanded (``expand_inputs``) and the
    outputs' not: ``predict_cases(model, ["~/scans"], "~/preds")`` wrote into a folder named ``~`` in the
    working directory, which ``rm -rf ~`` deletes with one's home, and ``predict_file`` and
    ``Segmentation.predict`` said "~/scan.nii.gz: no such file" (an audit's probe)."""
    return None if path is None else Path(os.path.expanduser(path))


def channels_config(configs: list[dict]) -> dict | None:
    """The models' config.json, by which the inputs are grouped into cases before the models load, where
    each model's says the same of the channels and says it as training writes it; else None (a hand edit,
    members of an ensemble that differ: the loading of the models says what is wrong)."""
    from .config import is_whole_number

    def channels(config: dict) -> tuple:
        return config.get("in_channels"), config.get("channels")

    first = configs[0]
    if (not is_whole_number(first.get("in_channels"), 1) or not isinstance(first.get("channels") or {}, dict)
            or any(channels(config) != channels(first) for config in configs[1:])):
        return None
    return first


def collect_cases(inputs: Sequence[str | Path], config: dict) -> list[InputCase]:
    """Files, folders or patterns -> the cases to segment with the model described by ``config``."""
    with interrupts_kept():  # a Ctrl-C as nibabel closes a header's file raised, not dropped (dropped_interrupts.py)
        return group_cases(expand_inputs(inputs), config["in_channels"], config.get("channels"))


def _check_inputs_are_spared(inputs: Iterable[str | Path], outputs: Iterable[str | Path | None],
                             setting: str = "--output") -> None:
    """Refuse to write a label map or probabilities over an input image (``--output`` = the scans' folder).

    Raises:
        DataError: an output path is one of the inputs; nothing has been written.
    """
    sources = {Path(p).resolve(): Path(p) for p in inputs}
    for output in outputs:
        if output is not None and (source := sources.get(Path(output).resolve())) is not None:
            raise DataError(f"writing {output} would overwrite the input image {source}; give {setting} a new "
                            f"folder or file name")


def _check_nifti_names(outputs: Iterable[str | Path | None], names: PredictNames = PredictNames()) -> None:
    """Refuse an output file name without ``.nii.gz``/``.nii``: nibabel would write an uncompressed
    NIfTI under it that no viewer or ``evaluate`` recognises as one. Only a label map's path can be so named
    (the probabilities' is refused before, by ``check_probabilities_output``, or made of the label map's), and a
    label map's so named is one case's: the argument as ``names`` say it (of none until the ninety-fifth session).

    Raises:
        DataError: an output is not named as NIfTI; nothing has been written.
    """
    for output in outputs:
        if output is not None and nifti_stem(output) is None:
            raise DataError(f"{names.given(output)} is no NIfTI name: a label map is written as NIfTI; end the file "
                            f"name in .nii.gz (or .nii), e.g. {names.given(Path(output).with_suffix('.nii.gz'))}")


def check_one_case_call(channels: Sequence[str | Path], output: str | Path, probabilities_output: str | Path | None,
                        config: dict | None, names: PredictNames = PredictNames()) -> None:
    """Every refusal of a call that segments one case (``predict_file``, ``predict --input``), from its arguments
    and the model's config.json alone, so before the model loads: a folder as ``output``, files that are not
    one case's channels, an output over an input, a misnamed ``probabilities_output`` (``check_probabilities_output``)
    and what ``check_outputs`` refuses. ``config``: as
    ``channels_config`` gives it (None: the channels are not counted). ``names``: the caller's (the command's
    flags by default, ``PREDICT_FILE_NAMES`` from Python).

    Raises:
        DataError: naming the argument as the caller gives it; nothing has been written.
    """
    check_one_case_output(output, channels, names)
    check_no_folder_as_a_channel(channels, names)
    check_channel_count(channels, config, names)
    _check_inputs_are_spared(channels, [output], names.output)
    _check_inputs_are_spared(channels, [probabilities_output], names.probabilities)
    if names.probabilities != names.output:  # the command's --probabilities: beside --output, a NIfTI name of its own
        check_probabilities_output(output, probabilities_output, names)
    check_outputs(channels, [output, probabilities_output], names, [probabilities_output], one_file=True)


def check_probabilities_output(output: str | Path, probabilities_output: str | Path | None,
                               names: PredictNames = PREDICT_FILE_NAMES) -> None:
    """Refuse a ``probabilities_output`` (``predict_file``'s, ``predict_case``'s) that is not one NIfTI file of its
    own. Until the ninety-fifth session a folder (``"probs/"``) or a name without .nii.gz was told "a label map is
    written as NIfTI", of no argument, and the probabilities are no label map; the label map's own path, predict_cases'
    "a case's label map and another case's <case>_probs.nii.gz have one name", of cases one case has not.
    ``output``: the label map's path, a file (``check_one_case_output`` refuses a folder first).

    Raises:
        DataError: naming the argument as the caller gives it, what the probabilities are, and a path to give.
    """
    if probabilities_output is None:
        return
    given, text = names.given(probabilities_output, names.probabilities), str(probabilities_output)
    what = "the probabilities are one NIfTI file (float32, one volume per class)"
    if text.endswith(("/", os.sep)) or Path(text).is_dir():
        example = Path(text) / probabilities_path(output).name
        raise DataError(f"{given} is a folder, but {what}: give e.g. {names.given(example, names.probabilities)}")
    if nifti_stem(text) is None:
        example = Path(text).with_suffix(".nii.gz")
        raise DataError(f"{given} is no NIfTI name, but {what}: end it in .nii.gz (or .nii), e.g. "
                        f"{names.given(example, names.probabilities)}")
    if Path(text).resolve() == Path(output).resolve():
        raise DataError(f"{given} is {names.output}'s path too, so the probabilities would be written over the label "
                        f"map: give {names.probabilities} a path of its own, e.g. "
                        f"{names.given(probabilities_path(output), names.probabilities)}")


def check_one_case_output(output: str | Path, channels: Sequence[str | Path],
                          names: PredictNames = PredictNames()) -> None:
    """Refuse a folder as the output of one case (``predict --input``, ``predict_file``), which writes that
    case's label map itself. ``output`` as given: the command's text typed, whose ``p2d/`` was said as "p2d: a
    label map is written as NIfTI", its ``/`` gone with pathlib's, and nothing said that the output is one file
    (h15's probe); ``predict_file(..., "p2d/")`` was told so, after its model loaded, until the ninety-fifth session.

    Raises:
        DataError: naming the output as given, the file name to give, and the form that writes into a folder.
    """
    text = str(output)  # a str keeps its "/", which a Path has not
    if nifti_stem(text) is not None or not (text.endswith(("/", os.sep)) or Path(text).is_dir()):
        return  # a NIfTI name, or a name without .nii.gz that check_outputs refuses as such
    stem = nifti_stem(channels[0]) if channels else None
    case = (match["case"] if (match := _CHANNEL_FILE.match(stem)) else stem) if stem else "case"
    raise DataError(f"{names.given(output)} is a folder, but {names.one_case}: give e.g. "
                    f"{names.given(Path(output) / f'{case}.nii.gz')}, or {names.several_cases.format(folder=output)} "
                    f"to write {Path(output) / '<case>.nii.gz'}")


def check_no_folder_as_a_channel(channels: Sequence[str | Path], names: PredictNames = PredictNames()) -> None:
    """Refuse a folder among one case's files: a folder of cases is another call's (``names.several_cases``).
    ``predict_file(model, "scans/", ...)`` and ``Segmentation.predict("scans/")`` were told so after the model
    loaded, of the command line (``accelerated-seg predict --model MODEL scans/ --output OUT``), until the
    ninety-fifth session.

    Raises:
        DataError: naming the folder, as the caller gives it, and the call that segments the cases in it.
    """
    for path in channels:
        if Path(path).is_dir():
            raise DataError(f"{names.inputs} names the folder {path}, but takes one case's files (one per channel): "
                            f"to segment the cases in it, {names.several_cases.format(folder='<folder>')}")


def check_channel_count(channels: Sequence[str | Path], config: dict | None,
                        names: PredictNames = PredictNames(), what: str = "files") -> None:
    """Refuse files that cannot be one case's channels for the model of ``config``: one file (every channel
    in it), or one per channel. A one-channel model given several was most likely meant to segment several
    cases, which another call does (``names.several_cases``).

    Raises:
        DataError: naming how many files (``what``: images, ...) were given, as the caller names them, and the
            way for each meaning.
    """
    if config is None or len(channels) in (1, in_channels := config["in_channels"]):
        return  # None: config.json says nothing sure of the channels, and the loading of the model says why
    shown = ", ".join(map(str, channels[:3])) + (", ..." if len(channels) > 3 else "")
    given = f"{names.inputs} gives {len(channels)} {what} ({shown}) as the channels of one case"
    if in_channels == 1:
        raise DataError(f"{given}, but the model takes one channel ({channel_order(config)}): to segment them as "
                        f"{len(channels)} cases, {names.several_cases.format(folder='<folder>')}; for one case, "
                        f"give its one file")
    raise DataError(f"{given}, but the model takes {in_channels}: give one file per channel, in the order "
                    f"{channel_order(config)}, or one 4D file (x, y, z, {in_channels}) of them all")


def channel_order(config: dict) -> str:
    """An export's channels in order, for a message: "channel 0 (T1), channel 1 (FLAIR)", each by its index
    alone where config.json names none (config.json's dict, {'0': 'T1', ...}, was said as it is until the
    ninety-first session)."""
    names = {int(index): name for index, name in (config.get("channels") or {}).items()}
    return ", ".join(f"channel {index}" + (f" ({names[index]})" if index in names else "")
                     for index in range(config["in_channels"]))


def _check_name_lengths(outputs: Iterable[str | Path | None], setting: str = "--output") -> None:
    """Refuse an output whose name (or a folder's above it) is longer than a file name can be (``NAME_MAX``
    bytes): a scan of a 250-character name gave its label map, and then failed at the probabilities'
    write (``<case>_probs.nii.gz``, 6 characters longer), after its case was segmented, with an OSError
    naming the hidden temporary; with the output folder there, the checks' own look at the name raised
    "File name too long" (a review's probe).

    Raises:
        DataError: naming the output and what to shorten; nothing has been written.
    """
    for output in outputs:
        if output is None:
            continue
        if too_long := [part for part in Path(output).parts if len(part.encode()) > NAME_MAX]:
            raise DataError(f"{output}: {too_long[0]!r} is {len(too_long[0].encode())} bytes long, and a file or "
                            f"folder name takes at most {NAME_MAX}; give {setting} a shorter name, or rename the scan "
                            f"whose name it takes (the probabilities add _probs to the label map's)")


def _check_writable(outputs: Iterable[str | Path | None], setting: str = "--output",
                    probabilities: Collection[str | Path | None] = (), probabilities_setting: str = "--output",
                    one_file: bool = False) -> None:
    """Refuse an output path that is a folder, or below a file: the label map is written to a
    temporary file and renamed, and either would fail there with an OSError, after the inference.
    ``probabilities``: the outputs that are probabilities, whose folder was said "so the label map cannot be
    written there" until the ninety-fifth session, and ``--output`` to be given a name that is no folder, which it
    was; ``probabilities_setting`` names where their path comes from. ``one_file``: ``setting`` names one case's
    label map itself rather than the folder of the cases'; until the ninety-sixth session either was told to give
    it "a file name that is not a folder, or another folder for <case>.nii.gz", half of which did not apply.

    Raises:
        DataError: naming the output and what is in its way; nothing has been written.
    """
    for output in outputs:
        if output is None:
            continue
        if Path(output).is_dir() and output in probabilities:
            raise DataError(f"{output} is a folder, so the probabilities cannot be written there; move that folder "
                            f"away, or give {probabilities_setting} another name")
        if Path(output).is_dir():
            another = "another file name (one case's label map is one file)" if one_file else "another folder"
            raise DataError(f"{output} is a folder, so the label map cannot be written there; give {setting} "
                            f"{another}, or move that folder away")
        if blocking := file_in_the_way(Path(output).parent):
            raise DataError(f"{output}: {blocking} is a file, so the folder for {Path(output).name} cannot be "
                            f"made; give {setting} a folder path, or a file name in one")


def _check_folders_take_files(outputs: Iterable[str | Path | None], setting: str = "--output") -> None:
    """Refuse an output whose folder no file can be made in (``files.no_file_made_in``: a read-only
    filesystem, another user's folder): the first label map's write failed there only after its case was
    segmented, naming the hidden temporary, and the lock's "cannot be locked" warning before it spoke of
    a second predict (an audit's probe). One file made and removed per folder; nothing is left behind.

    Raises:
        DataError: naming the output, the folder and why; nothing has been written.
    """
    tried = set()
    for output in outputs:
        if output is None or (folder := Path(output).parent.absolute()) in tried:
            continue
        tried.add(folder)
        if refused := no_file_made_in(folder):
            raise DataError(f"{output} cannot be written: no file can be made in {refused[0]} ({refused[1]}); give "
                            f"{setting} a folder you can write to")


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
    ``rsync -a``) of the same bytes counts as the same file."""
    stat = path.stat()
    return f"{path.name} {stat.st_size} {stat.st_mtime_ns}\n".encode()


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


def under_the_other_ending(label_map: str | Path) -> Path:
    """The same name under the other NIfTI ending: ``case.nii`` for ``case.nii.gz``, and the other way round."""
    label_map = Path(label_map)
    stem = nifti_stem(label_map) or label_map.name
    return label_map.with_name(stem + (".nii" if label_map.name.lower().endswith(".nii.gz") else ".nii.gz"))


def done_as_written(label_map: Path, probabilities: Path | None, key: bytes, other_ending: bool) -> Path | None:
    """``--continue``: the case's label map that an earlier run wrote as ``key`` says (``written_before``), which
    the run passes over; None where the case is to be predicted. ``other_ending``: in a folder of cases, one under
    the other NIfTI ending (a map named by the caller, or decompressed since) counts too: until the ninety-seventh
    session it was predicted again beside it, and evaluate refused the two maps of one case."""
    for path in (label_map, *([under_the_other_ending(label_map)] if other_ending else [])):
        if written_before(path, probabilities, key):
            return path
    return None


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


def _check_only_predictions_replaced(outputs: Iterable[str | Path | None], setting: str = "--output") -> None:
    """Refuse to write over a file that is not one of our predictions as predict left it: a rerun
    replaces its own outputs, but ``--output labelsTr`` wrote each case's label map over its reference
    segmentation, of the same name, without a word; and a label map corrected by hand in place, in an
    editor that keeps the header, was replaced by the next run (seventieth session).

    Raises:
        DataError: naming the files; nothing has been written.
    """
    with interrupts_kept():  # a Ctrl-C as nibabel closes an output's file raised, not dropped (dropped_interrupts.py)
        refused = [(str(output), why) for output in between_files(outputs)
                   if output is not None and Path(output).is_file() and (why := written_by_predict(output))]
    if refused:
        shown = ", ".join(f"{path} ({why})" for path, why in refused[:5]) + (
            f" (and {len(refused) - 5} more)" if len(refused) > 5 else "")
        what = f"{shown} already exists" if len(refused) == 1 else f"{len(refused)} outputs already exist: {shown}"
        raise DataError(f"{what}; predict replaces only its own outputs as it wrote them (a reference segmentation, "
                        f"or a label map corrected by hand, is kept): give {setting} another folder, or move the "
                        f"file(s) away")


def _check_written_once(outputs: list, names: PredictNames = PredictNames()) -> None:
    """Refuse two outputs at one path: a case named ``x_probs`` had its label map written over case
    ``x``'s probabilities (``x_probs.nii.gz``), or the other way round, without a word. The way without
    them in the caller's words (``names.without_probabilities``): "leave the probabilities out", of no
    argument, until the ninety-sixth session."""
    counts = Counter(Path(path).resolve() for path in outputs if path is not None)
    if twice := sorted(str(path) for path, count in counts.items() if count > 1):
        raise DataError(f"{', '.join(twice)} would be written twice by this prediction (a case's label map and another "
                        f"case's <case>_probs.nii.gz have one name): rename one of those inputs, or "
                        f"{names.without_probabilities}")


def check_outputs(inputs: Iterable[str | Path], outputs: Iterable[str | Path | None],
                  names: PredictNames = PredictNames(), probabilities: Collection[str | Path | None] = (),
                  one_file: bool = False) -> None:
    """Every check of the files a prediction will write, before it segments anything: none is an
    input image, each is named as NIfTI, no two share a path, each can be written (no folder in its
    place, no file above it), none replaces a file that predict did not write, and a file can be made
    in each one's folder (not a read-only one). Called with every
    case's outputs, so a refusal leaves nothing half done. ``names``: the caller's (the command's flags by default).
    ``probabilities``: those of ``outputs`` that are probabilities, so that a refusal says which file it is;
    ``one_file``: the output names one case's label map itself (a NIfTI name), not the folder of the cases'.

    Raises:
        DataError: naming the output and what to do; nothing has been written.
    """
    outputs = list(outputs)
    _check_inputs_are_spared(inputs, outputs, names.output)
    _check_nifti_names(outputs, names)
    _check_name_lengths(outputs, names.output)  # before any look at the files: a stat of such a name raises
    _check_written_once(outputs, names)
    _check_writable(outputs, names.output, probabilities, names.probabilities, one_file)
    _check_only_predictions_replaced(outputs, names.output)
    _check_folders_take_files(outputs, names.output)


def checked_outputs(cases: Sequence[InputCase], output: str | Path, probabilities: bool,
                    names: PredictNames = PredictNames(), ending: str = ".nii.gz") -> tuple[list[Path], list[Path]]:
    """Each case's label map (``output_paths``, named with ``ending``) and every file the prediction writes (with
    ``probabilities``, each case's ``probabilities_path`` too), refused as ``check_outputs`` refuses them, and in a
    folder of cases as ``_check_other_endings_replaced`` does. One function for ``predict_cases``,
    ``predict_distributed`` and the command line, which checks before the inference stack imports (ninety-second
    session), so that each says a refusal alike; ``names``: the caller's words for them.

    Raises:
        DataError: as ``output_paths`` and ``check_outputs``; nothing has been written.
    """
    outputs = output_paths(cases, output, names, ending)
    probabilities_paths = [probabilities_path(path) for path in outputs] if probabilities else []
    written = [*outputs, *probabilities_paths]
    # every case's, before the first
    one_file = nifti_stem(output) is not None
    check_outputs([path for case in cases for path in case.channels], written, names, set(probabilities_paths),
                  one_file=one_file)
    if not one_file:  # a name given is the caller's, whatever lies beside it
        _check_other_endings_replaced(outputs, ending, names.output)
    return outputs, written


def _check_other_endings_replaced(outputs: Sequence[Path], ending: str, setting: str = "--output") -> None:
    """Refuse a folder of cases where a case's file under the other NIfTI ending (``case.nii.gz`` beside the
    ``case.nii`` to write) is not one of predict's label maps as it wrote them: evaluate refuses two predictions of
    one case, and predict replaces only its own (``remove_under_the_other_ending``). A model whose dataset.json
    declares ".nii" wrote its maps beside an earlier model's ``.nii.gz`` until the ninety-seventh session.

    Raises:
        DataError: naming the files and why each is kept; nothing has been written.
    """
    with interrupts_kept():  # as _check_only_predictions_replaced
        refused = [(str(other), why) for path in between_files(outputs)
                   if (other := under_the_other_ending(path)).is_file() and (why := written_by_predict(other))]
    if refused:
        shown = ", ".join(f"{path} ({why})" for path, why in refused[:5]) + (
            f" (and {len(refused) - 5} more)" if len(refused) > 5 else "")
        raise DataError(f"{shown}: the label maps of these cases would be written beside them as <case>{ending}, and "
                        f"evaluate refuses two predictions of one case; predict replaces only its own outputs as it "
                        f"wrote them (a reference segmentation, or a label map corrected by hand, is kept): give "
                        f"{setting} another folder, or move the file(s) away")


def remove_under_the_other_ending(label_map: str | Path) -> None:
    """Delete the case's label map under the other NIfTI ending that an earlier run of predict wrote, as this run
    wrote ``label_map`` (or could not: ``remove_earlier_prediction``) in a folder of cases: a map of the same name
    is replaced, and one beside it would be a second prediction of the case. ``_check_other_endings_replaced``
    refused any other file there first."""
    other = under_the_other_ending(label_map)
    if other.is_file() and written_by_predict(other) is None:
        other.unlink(missing_ok=True)


def probabilities_path(label_path: str | Path) -> Path:
    """Where the probabilities of the label map ``x.nii.gz`` go: ``x_probs.nii.gz`` beside it."""
    label_path = Path(label_path)
    stem = nifti_stem(label_path) or label_path.name
    return label_path.with_name(f"{stem}_probs.nii.gz")


def remove_earlier_prediction(label_map: str | Path, probabilities: str | Path | None = None,
                              other_ending: bool = False) -> str:
    """For a case this run could not segment: delete the label map and probabilities that an earlier
    run of predict wrote at its outputs, as its success would have replaced them. A rerun with another
    model left the first model's map of the failed case among the new ones, taken for this run's by
    whatever read the folder next (eighty-third session's review). A file predict did not write, or
    changed since, stays. ``probabilities``: theirs, where not beside the label map (``predict_file``);
    ``other_ending``: in a folder of cases, the map under the other NIfTI ending too, which success replaces
    (``remove_under_the_other_ending``). Returns what the case's error line adds ("" where nothing was there)."""
    removed = []
    others = [under_the_other_ending(label_map)] if other_ending else []
    for path in (Path(label_map), *others, Path(probabilities or probabilities_path(label_map))):
        if path.is_file() and written_by_predict(path) is None:
            path.unlink(missing_ok=True)
            removed.append(path.name)
    return f" (an earlier run's {' and '.join(removed)} removed: it was not this run's)" if removed else ""


def clear_stale_temporaries(outputs: Iterable[str | Path | None]) -> None:
    """Delete the hidden temporaries that a killed predict left in the output folders: each file is
    written under one and renamed when whole, and a kill (or a SIGTERM at a time limit) left them
    there for good (seventieth session). Only old ones with our writers' names (``files``)."""
    for folder in {Path(output).parent for output in outputs if output is not None}:
        remove_stale_temporaries(folder)


# What a run that writes into a folder another run writes into does (run_lock.in_use's message).
_CLASH = "two runs writing into one folder mix their outputs there"


@contextlib.contextmanager
def holding_output_folder(output: str | Path, outputs: Iterable[str | Path | None], main_process=None):
    """Hold the ``--output`` folder's lock (run_lock.py) while predict writes into it, then clear the
    temporaries a killed predict left there (``clear_stale_temporaries``).

    Two predicts into one folder at once each wrote their own cases whole, so the folder ended up
    holding label maps of both models, and nothing said so. The second is now refused, naming the
    first's process and command; called after ``check_outputs``, so a refusal there makes no folder.
    A single file as ``--output`` locks nothing (its folder may hold unrelated files), but is refused
    in a folder a live run holds. A folder that cannot be locked (a filesystem without ``flock``, or
    a place that cannot be written: writing there names the file) goes unguarded, with a warning.

    Args:
        output: predict's ``--output``: a folder, or one label map's file name.
        outputs: every file the run writes (temporaries are cleared in their folders).
        main_process: None in a single process; else the ``Accelerator``/``PartialState``, whose
            main process alone takes the lock, and whose refusal every process raises.

    Raises:
        ConfigError: another live predict (or training run) holds the folder.
    """
    held: list[RunLock] = []

    def hold_and_clear() -> None:
        if nifti_stem(output) is not None:
            if (holder := live_holder(Path(output).parent)) is not None:
                raise ConfigError(in_use(Path(output).parent, holder, "another folder", _CLASH, "predict"))
        else:
            try:
                held.append(hold_run_folder(output, elsewhere="another --output folder", clash=_CLASH,
                                            verb="predict"))
                unguarded = held[-1].unsupported
            except OSError as error:
                unguarded = os.strerror(error.errno) if error.errno else str(error)
            if unguarded:
                warnings.warn(f"--output {output} cannot be locked ({unguarded}), so a second predict into it would "
                              f"not be refused: give each predict its own --output", AcceleratedSegWarning,
                              stacklevel=4)
        try:
            clear_stale_temporaries(outputs)
        except OSError as error:  # another user's leftovers in a shared folder: said, and the cases go on
            warnings.warn(f"what killed predicts left in the output folder could not all be removed ({error})",
                          AcceleratedSegWarning, stacklevel=4)

    try:
        if main_process is None:
            hold_and_clear()
        else:
            from .ranks import on_main

            on_main(main_process, hold_and_clear)
        yield
    finally:
        for lock in held:
            lock.release()


def prediction_ending(config: dict) -> str:
    """The ending of the label maps predict names for the model of ``config`` (its config.json): the one its
    nnU-Net dataset.json declared (``".nii"``), else ``.nii.gz``."""
    return config.get("file_ending") or ".nii.gz"


def output_paths(cases: Sequence[InputCase], output: str | Path, names: PredictNames = PredictNames(),
                 ending: str = ".nii.gz") -> list[Path]:
    """The label map of each case: ``output/<case><ending>`` (``prediction_ending``), or ``output`` itself for
    one case.

    Raises:
        DataError: ``output`` is a file name (``.nii.gz``/``.nii``) but there is not exactly one case,
            an existing file where the folder must go, or the folder of the scans themselves.
    """
    if nifti_stem(output) is not None:  # a file name: the inputs must be exactly one case
        if len(cases) != 1:
            raise DataError(f"{names.given(output)} is one file, but the inputs hold {len(cases)} cases "
                            f"({', '.join(c.id for c in cases[:5])}{', ...' if len(cases) > 5 else ''}); "
                            f"give a folder as {names.output}")
        return [Path(output)]
    if Path(output).exists() and not Path(output).is_dir():  # else errno 17 from a mkdir, after the first case
        raise DataError(f"{names.given(output)} is a file, not a folder; the label maps go into a folder as "
                        f"<case>{ending}: give a new or existing folder")
    refuse_the_folder_of_the_scans([path for case in cases for path in case.channels], output, names)
    return [Path(output) / f"{case.id}{ending}" for case in cases]


def refuse_the_folder_of_the_scans(scans: Sequence[str | Path], output: str | Path,
                                   names: PredictNames = PredictNames()) -> None:
    """A DataError where the folder ``output`` holds one of ``scans``: the label maps would sit among them. With
    nnU-Net's names (<case>_0000.nii.gz in, <case>.nii.gz out) nothing collides, and the next run took them
    for channels of the cases (seventieth session). Paths alone decide it, alike on every process of a launch."""
    folders = {Path(path).resolve().parent: Path(path) for path in scans}
    if (scan := folders.get(Path(output).resolve())) is not None:
        raise DataError(f"{names.given(output)} is the folder of the scans ({scan}): the label maps would lie among "
                        f"them, and a later run would read them as scans; give {names.output} another folder")
