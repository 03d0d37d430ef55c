"""Which files a prediction reads: the cases in predict's inputs, grouped by nnU-Net's channel naming.

``collect_cases`` turns files, folders and glob patterns (``expand_inputs``) into cases (``group_cases``):
nnU-Net's channel files (``<case>_0000.nii.gz``, ``<case>_0001.nii.gz``, ...), one 4D file of every channel, or
files named by the model's channels (BraTS' ``<case>_t1ce.nii.gz``), by the model's config.json
(``channels_config``). What is no scan is refused before the model loads, naming it and what to give: an array
where a path is taken (``check_paths_given``), a dataset.json, a dataset's labelsTr/ or one of its label maps,
another image format, a folder among one case's files, files that cannot be one case's channels. Headers are
read only to count a file's volumes, never voxels. Where the outputs go, and which may be written, is
``inference_outputs``'s; both say a refusal in the caller's words (``predict_names``).
"""

from __future__ import annotations

import os
import re
import warnings
from collections import Counter
from dataclasses import dataclass, replace
from glob import escape as glob_escape
from pathlib import Path
from typing import Sequence

import nibabel as nib

from .data.cases import channel_names_fit, channel_said, channels_compared, names_nothing, one_channel_said, \
    unnamed_channels
from .data.checks import volumes_in
from .data.errors import DataError
from .data.volume_opening import channel_file_of_several_said, one_file_for_channels_said
from .data.formats.dataset_json import copy_it_again, read_edited_json
from .data.formats.paths import OTHER_IMAGE_FORMATS, conversion, nifti_stem, other_image_files, resolve, unique_ids
from .data.io import content_not_fetched, file_or_unfetched, resource_fork
from .dropped_interrupts import interrupts_kept, raise_a_dropped_interrupt
from .model_folders import model_folder_kind
from .own_warnings import AcceleratedSegWarning
from .shell_words import shell_word
from .predict_names import PredictNames

# nnU-Net's channel naming: <case>_0000.nii.gz, <case>_0001.nii.gz, ... one file per channel.
CHANNEL_FILE = re.compile(r"^(?P<case>.+)_(?P<channel>\d{4})$")
_ALL_CHANNELS = -1  # a multi-channel model's file without that naming: one 4D file of every channel


@dataclass(frozen=True)
class InputCase:
    """One case to segment: its id (the output's file name) and one file per channel, in order."""

    id: str
    channels: tuple[Path, ...]


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
        return (f"an exported model's config.json, not a scan: its folder is the model, "
                f"--model {shell_word(json_path.parent)}")
    content, _ = _dataset_description(json_path)
    described = isinstance(content, dict) and bool(content.keys() & {"training", "test", "modality", "channel_names"})
    what = "a dataset's description" if described else "a JSON file"
    return f"{what}, not a scan; predict takes the scans: {_its_test_scans(json_path)}"


def _dataset_description(json_path: Path) -> tuple[object, str]:
    """(``json_path``'s JSON, or None; why it does not read, as words after what predict takes, or ""). Read as
    training reads a dataset.json (hand_edited's reader), a byte-order mark read past. Until the
    hundred-and-twenty-second session predict read it in the locale's encoding, a mark not read past: a dataset's
    description with one was "a JSON file", its "test" scans not found, and one that did not read was not said why;
    now it is, in training's words; since review r106 by training's own reader (``read_edited_json``), a key given
    twice, brackets nested too deep (RecursionError's traceback) and a file this user may not read told too."""
    try:
        return read_edited_json(json_path, copy_it_again(json_path)), ""
    except DataError as error:  # "; and it is saved as UTF-16 (...)": the path said once, before
        rest = str(error).removeprefix(str(json_path))
        return None, f"; and {json_path.name if rest.startswith(':') else 'it'}{rest}"  # ": key(s) [...] given twice"


def _its_test_scans(json_path: Path) -> str:
    """Where the scans a dataset.json lists under "test" (the Decathlon's unlabelled ones) lie, or how to give
    scans at all, and why it does not read where it does not."""
    content, fault = _dataset_description(json_path)
    try:
        listed = content.get("test") or []
        scans = [resolve(item["image"] if isinstance(item, dict) else item, json_path.parent) for item in listed]
    except (AttributeError, TypeError, KeyError):  # no JSON object, or no list of paths
        scans = []
    folders = sorted({f"{scan.parent}/" for scan in scans})
    if not folders:
        return f"NIfTI files, their folder or a pattern{fault}"
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
                            f"({below[0]}, ...); give them as a quoted pattern such as {shell_word(example)}")
    if not found and (model := model_folder_kind(path)) is not None:  # "check the path" said nothing of what it was
        raise DataError(f"{where} holds no .nii/.nii.gz file: it is {model[0]}, not scans; give "
                        f"{' or '.join(map(str, model[1]))} as the model (--model, or model_dir from Python)")
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
    # a file of every channel named as one (<case>_0000, <case>_T1) -> that case and channel: one of the case's
    # files where its other files are given too (below), else a case of its own, the 4D pat_0001.nii.gz
    named_as_one: dict[Path, tuple[str, int]] = {}
    for path in files:
        raise_a_dropped_interrupt()  # one dropped as the header before was closed (dropped_interrupts.py)
        stem = nifti_stem(path)
        match = CHANNEL_FILE.match(stem)
        if in_channels == 1:
            case, channel = (match["case"], 0) if match and match["channel"] == "0000" else (stem, 0)
        # One file holding every channel along a 4th axis, whatever its name: a 4D "pat_0001.nii.gz"
        # was taken for channel 0001 and refused as a case lacking channel 0000 (seventy-fourth session).
        # A file whose header cannot be read and whose name gives no channel goes the same way: the read says why.
        elif (held := _volumes_in_header(path)) == in_channels or (match is None and held is None):
            case, channel = stem, _ALL_CHANNELS
            named = _named_channel(stem, names) if match is None else None
            if held == in_channels and (match or named):
                named_as_one[path] = (match["case"], int(match["channel"])) if match else (named[0], named[2])
        elif held is not None and held > 1:  # "rename it" (or a case lacking channels) said nothing of its count
            # named as one channel by _0000 or by a channel's name (pat_T1.nii.gz): the latter was told "this one file
            # is given for them" and its case said to lack it, until the review of h112
            named = _named_channel(stem, names) if match is None else None
            problems.append(f"{path}: {_volumes_said(path, in_channels, names, named_as_one=bool(match or named))}")
            if match is not None:
                case, channel = match["case"], int(match["channel"])  # its case not said to lack it too
            elif named:
                case, separator_of[case], channel = named
            else:
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
    _as_one_of_its_cases_files(by_name, named_as_one, in_channels, names, problems)

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


def _as_one_of_its_cases_files(by_name: dict[str, dict[int, list[Path]]], named_as_one: dict[Path, tuple[str, int]],
                               in_channels: int, names: dict[int, str], problems: list[str]) -> None:
    """A file of the model's ``in_channels`` volumes named as one channel (``case_0000.nii.gz``, ``case_T1.nii.gz``)
    beside other files of its case in its folder: refused as one of them, in the words of a file of another count
    (``_volumes_said``), and kept as that channel of its case, which is not said besides to lack it. Alone, it stays
    a case of every channel, as the Decathlon's 4D files are. Taken for a case of its own until the
    hundred-and-twenty-fifth session's helper h136 (benchmarks/results/fourth_new_user_walk_2026-12-07/): its case
    was told to lack it, and the file itself was named nowhere. Its review (r120): a file of a channel the model
    lacks (``pat_0002`` for 2 channels), or beside files of such channels alone, is no case's channel either, so a
    folder of 4D cases named by a four-digit id (``pat_0001`` ... ``pat_0003``) beside one stray 3D file told every
    right case "one of the 2 files given for them", not the stray file alone, as before; and one in another folder
    than its case's other files, one a channel (``a/case_0000``, ``b/case_0001``), is one of them too."""
    for path, (case, channel) in named_as_one.items():
        taken = {given: paths for given, paths in by_name.get(case, {}).items() if 0 <= given < in_channels}
        beside = [other for paths in taken.values() for other in paths
                  if other.absolute().parent == path.absolute().parent]
        # or its case's channels spread over folders, one file each, which _split_by_folder keeps one case: the
        # file's channel the one they lack (case_0000 4D in a/, case_0001 in b/ said to lack it, in the review)
        spread = taken and channel not in taken and all(len(paths) == 1 for paths in taken.values())
        if not (beside or spread) or channel >= in_channels:
            continue
        problems.append(f"{path}: {_volumes_said(path, in_channels, names, named_as_one=True)}")
        by_name[nifti_stem(path)][_ALL_CHANNELS].remove(path)
        if not by_name[nifti_stem(path)][_ALL_CHANNELS]:
            del by_name[nifti_stem(path)]
        by_name[case].setdefault(channel, []).append(path)


def _volumes_said(path: Path, in_channels: int, names: dict[int, str], named_as_one: bool) -> str:
    """What is wrong with a file of several volumes, not the model's ``in_channels``, in the words predict's reading,
    evaluate and training's check use (``volume_opening``): one of the case's files where its name gives it one
    channel (``named_as_one``, <case>_0000.nii.gz or <case>_T1.nii.gz), else one file for every channel. Said in
    words of its own ("a 4D image of 3 volumes (x, y, z, 3), but the model takes 2 channels (T1, FLAIR): give a 4D
    file of those 2, ..."), a file named as a channel said besides to be missing from its case, until the
    hundred-and-twenty-first session (helper h112, benchmarks/results/channel_words_2026-12-07/); one named by a
    channel's name so until its review."""
    shape = tuple(nib.load(str(path)).shape)  # read already by _volumes_in_header: the error's way alone
    order = channel_order({"in_channels": in_channels, "channels": names})
    if named_as_one:
        return channel_file_of_several_said(shape, in_channels, "the model takes", order)
    return one_file_for_channels_said(shape, in_channels, "the model takes", order)


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
    if (not is_whole_number(first.get("in_channels"), 1) or not channel_names_fit(first.get("channels") or {},
                                                                                   first["in_channels"])
            or any(channels(config) != channels(first) for config in configs[1:])):
        return None
    return first


def collect_cases(inputs: Sequence[str | Path], config: dict) -> list[InputCase]:
    """Files, folders or patterns -> the cases to segment with the model described by ``config``."""
    with interrupts_kept():  # a Ctrl-C as nibabel closes a header's file raised, not dropped (dropped_interrupts.py)
        return group_cases(expand_inputs(inputs), config["in_channels"], config.get("channels"))


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
                            f"to segment the cases in it, {names.several_cases_into()}")


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
        raise DataError(f"{given}, but the model takes {channels_taken(config)}: to segment them as "
                        f"{len(channels)} cases, {names.several_cases_into()}; for one case, "
                        f"give its one file")
    raise DataError(f"{given}, but the model takes {in_channels}: {channel_files_way(config)}")


def channel_files_way(config: dict) -> str:
    """How to give a case's files to the model of ``config``, of several channels: "give one file per channel, in the
    order channel 0 (T1), channel 1 (FLAIR), or one 4D file (x, y, z, 2) of them all", predict's words for another
    number of files, and evaluate's (``estimator_predict_checks.check_evaluation_cases``)."""
    return (f"give one file per channel, in the order {channel_order(config)}, or one 4D file (x, y, z, "
            f"{config['in_channels']}) of them all")


def channel_order(config: dict) -> str:
    """An export's channels in order, for a message: "channel 0 (T1), channel 1 (FLAIR)" (config.json's dict,
    {'0': 'T1', ...}, was said as it is until the ninety-first session), those config.json names none (or names as a
    Dataset names them, ``channels_named``) by their indices alone, "channel 0, channel 1" (``cases.channel_said``;
    "channel 0 (image_0), channel 1 (image_1)" from the hundred-and-twenty-first session to the
    hundred-and-twenty-third, helper h125)."""
    return ", ".join(channel_said(index, name) for index, name in channels_named(config).items())


def channels_taken(config: dict) -> str:
    """What the model of ``config`` takes, for a message whose model takes one: "one channel (MRI0)", by its name
    (``cases.one_channel_said``), predict's and evaluate's words; "2 channels" for several, whose order a message
    says apart (``channel_order``)."""
    named = channels_named(config)
    return one_channel_said(named[0]) if len(named) == 1 else f"{len(named)} channels"


def channels_named(config: dict) -> dict[int, str]:
    """An export's channels, index -> name, for its ``in_channels``: config.json's names, and for those it names none
    (an export written by hand, or before exports named them) the names a Dataset gives channels nothing names
    (``cases.unnamed_channels``), so that predict, evaluate and fit call such a model's channels alike, as they call
    those of a model trained on a Dataset that named none, whose export records them."""
    count = int(config["in_channels"])
    saved = {int(index): str(name) for index, name in (config.get("channels") or {}).items()}
    return {index: saved.get(index, default) for index, default in unnamed_channels(count).items()}


def channel_names_refused_or_warned(config: dict, given: dict[int, str], data: str, called: str,
                                    error: type[Exception] = DataError, keyword: bool = True,
                                    also: str = "") -> str | None:
    """Refuse data that gives the channels of the model of ``config`` in another order (``given``: index -> the
    data's name; ``data``: what gives them, said first, "evaluate: the Dataset"; ``called``: its short name): its files
    are fed in the order given, so the network would read each as another channel, a wrong result (resume refuses the
    same names in another order: ``resume_network_and_data.check_resume_channels``); return a warning where it names
    them otherwise (the same scans named anew, "T2" and "T2w", the user's to judge, as resume's and init_from's
    warnings leave it), else None (another number of channels is refused apart, by its count). Names nothing gives
    (a Dataset's ``image_0``, a blank one) are compared with nothing (``cases.channels_compared``). A model of one
    channel is not compared: no order to get wrong, and a dataset.json's ``MRI`` beside its ``MRI0`` would be said of
    every folder predict is given. ``keyword``: the way on says the Dataset's ``channel_names=`` of the model's
    order; ``also``: more of it, said after the model's order."""
    model = channels_named(config)
    if len(model) == 1 or len(given) != len(model):
        return None
    moved, renamed = channels_compared(model, given, called)
    named = "" if not keyword or any(map(names_nothing, model.values())) else \
        f", channel_names={list(model.values())}"
    in_its_order = f"the model's order ({channel_order(config)}){named}{also}"
    if moved:
        raise error(f"{data} gives the model's channels in another order ({'; '.join(moved)}); each case's files are "
                    f"fed in the order given, so the network would read them as other channels than they are: give "
                    f"each case's files in {in_its_order}")
    if renamed:
        return (f"{data} names the model's channels otherwise ({'; '.join(renamed)}); each case's files are fed in "
                f"the order given: if these are other scans, not the same ones named anew, stop and give each case's "
                f"files in {in_its_order}")
    return None


def channel_names_compared(inputs: Sequence[str | Path] | Sequence[InputCase], config: dict | None,
                           names: PredictNames, *, one_case: bool = False, said: bool = True,
                           stacklevel: int = 3) -> None:
    """Refuse scans in a dataset's images folder whose dataset.json (one folder up) gives the channels of the model of
    ``config`` in another order, and warn of one naming them otherwise at the line that called predict's function
    (the caller of this one's caller), as ``accelerated-seg predict`` does (``dataset_channel_names_warnings``): the
    one entry of predict's Python calls, ``predict_cases`` (review r112), ``predict_file`` (so
    ``Segmentation.predict`` of paths) and ``predict_distributed`` under a launch (the hundred-and-twenty-fourth
    session, helper h131), which compared nothing before. ``inputs``: files, folders or patterns (``expand_inputs``);
    with ``one_case`` one case's files, fed in the order given; or the cases themselves (``InputCase``), each compared
    as one case's files. ``config``: None where config.json cannot be read before the models load (their loading
    says why): nothing compared. The command line (``names`` of flags, not keywords) compared before its imports, on
    every process of a launch: not again. ``said``: False on a launch's processes but the main one, which alone says
    the warning (a refusal met by one process alone is raised on every one: predict_distributed's checks gather it).
    ``stacklevel``: the warning's, at the line that called predict's function (3: the caller of this one's caller)."""
    if config is None or not names.keyword:
        return
    if inputs and all(isinstance(item, InputCase) for item in inputs):
        # the cases whose files are the same channels of the same folders (p_0000, p_0001 and q_0000, q_0001 of one
        # imagesTs/) compared once, as their first: a warning of each of a folder's thousand cases said one fault
        alike: dict[tuple, InputCase] = {}
        for case in inputs:
            alike.setdefault(tuple((Path(os.path.abspath(path)).parent, _channel_number(path))
                                   for path in case.channels), case)
        found = [warning for case in alike.values() for warning in dataset_channel_names_warnings(
            case.channels, config, one_case=True, names=replace(names, inputs=f"case {case.id}"))]
    else:
        found = dataset_channel_names_warnings(list(inputs) if one_case else expand_inputs(inputs), config, one_case,
                                               names)
    for warning in dict.fromkeys(found) if said else ():
        warnings.warn(warning, AcceleratedSegWarning, stacklevel=stacklevel)


def dataset_channel_names_warnings(files: Sequence[str | Path], config: dict, one_case: bool = False,
                                   names: PredictNames = PredictNames()) -> list[str]:
    """Refuse scans of a dataset whose dataset.json gives the channels of the model of ``config`` in another order,
    return a warning for one that names them otherwise (``channel_names_refused_or_warned``): the files predict is given
    in a folder of nnU-Net's or the Decathlon's (imagesTs/, imagesTr/), the dataset.json one folder up naming their
    channels (``channel_names``, ``modality``): <case>_0000 is that dataset's channel 0, which the model may take as
    its channel 1 (BraTS' modalities are ordered otherwise by the Decathlon and by nnU-Net's conversion). Such a folder
    was segmented in the dataset's order without a word until the hundred-and-twenty-third session (helper h127). A
    dataset.json that does not read, or names no channel, is not predict's to judge: nothing said.

    Only files whose channel is their dataset's number are compared (review r112): files named by the model's
    channels (``p_T1.nii.gz``, BraTS' own names) are fed as those channels whatever the dataset.json's order, and a
    folder of them alone was refused. ``one_case``: ``files`` are one case's (``names.inputs``), fed in the order
    given, each its dataset's channel of its number: ``--input imagesTs/p_0001.nii.gz imagesTs/p_0000.nii.gz`` gives
    the dataset's channel 1 as the model's channel 0, and was refused by its folder's order until review r112, right
    or wrong; a file not so numbered (the case's channel by its place alone) leaves the case uncompared."""
    if int(config["in_channels"]) == 1:  # not compared (channel_names_refused_or_warned): no header read for it
        return []
    if one_case:
        said = _one_case_channel_names_said(files, config, names)
        return [said] if said else []
    by_folder: dict[Path, list[Path]] = {}
    for path in files:
        by_folder.setdefault(Path(os.path.abspath(path)).parent, []).append(Path(path))
    # a dataset.json -> its channels and its images folders among the inputs: said once for imagesTr/ and imagesTs/
    compared: dict[Path, tuple[dict[int, str], list[Path]]] = {}
    read: dict[Path, dict[int, str] | None] = {}  # each dataset.json read once in a call, imagesTr/'s and imagesTs/'s
    fed: dict[Path, set[bool]] = {}  # a dataset.json -> whether its compared files are numbered (else 4D files)
    for folder, found in sorted(by_folder.items()):
        given = _declared_channels(folder, read)
        if given is not None and (numbered := [path for path in found if _fed_as_numbered(path, config)]):
            compared.setdefault(folder.parent / "dataset.json", (given, []))[1].append(folder)
            fed.setdefault(folder.parent / "dataset.json", set()).update(
                _channel_number(path) is not None for path in numbered)
    said = []
    for declaration, (given, folders) in compared.items():
        scans_in = " and ".join(f"{folder}/" for folder in folders)
        # which file is channel 0: <case>_0000, or a 4D file's (the Decathlon's) first volume (review r115: a folder of
        # 4D files was told "<case>_0000 its channel 0", a file none of them is)
        first = " and ".join((["<case>_0000 its channel 0"] if True in fed[declaration] else []) +
                          (["each 4D file's volume 0 its channel 0"] if False in fed[declaration] else []))
        if warning := channel_names_refused_or_warned(
                config, given, f"{declaration} (beside the scans in {scans_in})", "dataset.json", keyword=False,
                also=_moved_elsewhere(declaration, scans_in, first)):
            said.append(warning)
    return said


def _declared_channels(folder: Path, read: dict[Path, dict[int, str] | None]) -> dict[int, str] | None:
    """The channels the dataset.json one folder up from ``folder`` names, where ``folder`` is a dataset's images
    folder (its name begins ``images``: imagesTs/, imagesTr/) and that dataset.json reads; else None.

    Read once in a call (``read``: this call's, by path), not once per channel file (the hundred-and-twenty-fourth
    session, helper h131). Read anew by each call, as it stands: kept across calls by its stat (h131), a dataset.json
    rewritten where the stat said nothing new (an NFS client's attributes, kept up to 60 s, where opening the file
    reads it anew) was judged by its old channels, to save 0.2 ms a call (2 ms for one of 1000 cases) against a
    case's prediction (review r115, benchmarks/results/channel_order_review_r115_2026-12-07/)."""
    from .data.formats.dataset_json import parse_channels, read_json

    declaration = folder.parent / "dataset.json"
    if not folder.name.lower().startswith("images"):
        return None
    if declaration not in read:
        try:
            read[declaration] = parse_channels(read_json(declaration), declaration) if declaration.is_file() else None
        except (DataError, OSError):
            read[declaration] = None
    return None if read[declaration] is None else dict(read[declaration])


def _fed_as_numbered(path: Path, config: dict) -> bool:
    """Whether ``group_cases`` feeds ``path`` as its dataset numbers it (``<case>_0000``, or one 4D file of every
    channel, in its volumes' order), not as the model's channel whose name ends it (``p_T1.nii.gz``)."""
    stem = nifti_stem(path) or path.name
    if CHANNEL_FILE.match(stem) or not _named_channel(stem, channels_named(config)):
        return True
    return _volumes_in_header(path) == int(config["in_channels"])


def _one_case_channel_names_said(files: Sequence[str | Path], config: dict, names: PredictNames) -> str | None:
    """``dataset_channel_names_warnings`` of one case's ``files``, fed in the order given: one 4D file, its
    dataset's channels in their order; one file per channel, each its dataset's channel of its number (``_0001``:
    channel 1), compared where every file is so numbered in a dataset's images folder."""
    paths = [Path(os.path.abspath(path)) for path in files]
    read: dict[Path, dict[int, str] | None] = {}  # each dataset.json read once in a call, not once per file
    declared = [_declared_channels(path.parent, read) for path in paths]
    if len(paths) == 1 and declared[0] is not None:
        given = declared[0]
    else:
        numbers = [_channel_number(path) for path in paths]
        if any(number is None or names_of is None or number not in names_of
               for number, names_of in zip(numbers, declared)):
            return None
        given = {place: names_of[number] for place, (number, names_of) in enumerate(zip(numbers, declared))}
    declarations = sorted({str(path.parent.parent / "dataset.json") for path in paths})
    # which file is channel 0; one 4D file's first volume (review r115: "the first file of inputs" of one file)
    part = "volume 0" if len(paths) == 1 else "first file"
    first = f"{'volume 0' if len(paths) == 1 else 'the first file'} of {names.inputs}" if names.keyword else \
        f"{names.inputs}'s {part}"  # not inputs's
    return channel_names_refused_or_warned(
        config, given, f"{names.inputs}, as {' and '.join(declarations)} names its files,", "dataset.json",
        keyword=False, also=_moved_elsewhere(paths[0].parent.parent / "dataset.json", f"{paths[0].parent}/",
                                             f"{first} its channel 0"))


def _channel_number(path: str | Path) -> int | None:
    """The channel nnU-Net's naming gives ``path`` (``<case>_0001.nii.gz``: 1), else None."""
    number = CHANNEL_FILE.match(nifti_stem(path) or Path(path).name)
    return None if number is None else int(number["channel"])


def _moved_elsewhere(declaration: Path, scans_in: str, first: str) -> str:
    """The end of the way on of a dataset.json's refusal: which file is channel 0 (``first``), and where that
    dataset.json (``declaration``) is not these scans' (the model's own put in another dataset's folder, ``scans_in``),
    what to do: it said "give each case's files in the model's order" alone until review r112, of files in that order
    already."""
    return f", {first}; if {declaration} does not describe these scans, move them out of {scans_in}"
