"""nnU-Net v2 raw dataset folder: the cases are found by nnU-Net's file naming, not listed."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

from accelerated_seg.data.cases import Case, Manifest
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.formats.dataset_json import (dangling_link, dataset_json_path, parse_channels,
                                                       read_edited_json, read_json)
from accelerated_seg.data.formats.paths import NIFTI_SUFFIXES, PathLike, conversion, natural_key
from accelerated_seg.data.io import file_or_unfetched
from accelerated_seg.data.labels import (NNUNET_LABELS_EXAMPLE, named_by_regions, parse_labels, split_ignore,
                                         split_regions)
from accelerated_seg.data.splits import KEYWORD_NAMES, SplitSettings, reject_duplicate_cases
from accelerated_seg.model_folders import Names
from accelerated_seg.regions import Regions


def load_nnunet(
    folder: PathLike,
    *, validation_fraction: float = 0.2, num_folds: int = 0, fold: int = 0, seed: int = 0, binarize: bool = False,
    names: Names = KEYWORD_NAMES,
) -> Manifest:
    """Read an nnU-Net v2 raw dataset folder (``Dataset001_Name/``).

    Layout: ``dataset.json`` with ``channel_names`` ({"0": "T1", "1": "T2"}), ``labels``
    ({"background": 0, "tumor": 1}; lists of values declare regions, ``accelerated_seg.regions``, painted in
    ``regions_class_order``), ``numTraining`` and ``file_ending`` (".nii.gz");
    ``labelsTr/<case><file_ending>`` names the cases and ``imagesTr/<case>_<XXXX><file_ending>``
    holds channel XXXX (4 digits) of each. Other files in those folders are ignored.

    The split: a ``splits_final.json`` next to dataset.json (nnU-Net writes it to the
    preprocessed folder; copy it here to reuse nnU-Net's folds) is a list of
    ``{"train": [...], "val": [...]}``, and entry ``fold`` is used. Without it, the split
    follows :meth:`~accelerated_seg.data.splits.SplitSettings.split`.

    Args:
        folder: The dataset folder, or its dataset.json.
        validation_fraction: Share held out when there is no splits_final.json and ``num_folds`` < 2.
        num_folds: More than 1 makes a seeded k-fold split (or must match splits_final.json).
        fold: Which fold is validated on (0-based).
        seed: Seed of the split shuffle.
        binarize: Merge every non-background label value into one "foreground" class.
        names: How the messages and ``Manifest.split`` name the split settings, as :func:`load_msd`'s do.

    Returns:
        The Manifest; cases are ordered by case id.

    Raises:
        DataError: dataset.json is malformed (its regions among it), a case lacks a
            channel file, ``numTraining`` disagrees with labelsTr, or splits_final.json is unusable.
    """
    settings = SplitSettings(validation_fraction, num_folds, fold, seed, names)
    json_path = dataset_json_path(folder)
    content = read_json(json_path)
    root = json_path.parent

    if "channel_names" not in content:
        raise DataError(
            f'{json_path}: no "channel_names"; an nnU-Net v2 dataset.json declares its channels, '
            'e.g. "channel_names": {"0": "CT"} (nnU-Net v1 files use "modality" and a "training" list: '
            "load them as MSD)"
        )
    channels = parse_channels(content, json_path)
    declared, ignore_value = split_ignore(content.get("labels"), f'{json_path}: "labels"', binarize, names)
    declared, regions = split_regions(declared)
    labels, label_values = parse_labels(declared, f'{json_path}: "labels"', binarize, NNUNET_LABELS_EXAMPLE)
    if regions is not None and not binarize:  # binarize trains every value as one foreground class
        regions = Regions.declared(regions, label_values, f'{json_path}: "labels"', content.get("regions_class_order"),
                                   ignore_value)
        # nnU-Net names the regions, not the values only regions hold: each such value is called after the region
        # that paints it, what it stands for in the predicted maps (it was "label_1" in check and the export)
        labels = named_by_regions(labels, label_values, regions)
    else:
        regions = None
    file_ending = _nnunet_file_ending(content, json_path)

    cases = _nnunet_cases(root, channels, file_ending, json_path)
    declared_count = _declared_count(content, json_path, len(cases))
    if declared_count is not None and declared_count != len(cases):
        # Files of another ending explain labels missing from the count, never a count too low; a
        # stray copy of a case that is read (case_a.nii beside case_a.nii.gz) explains nothing.
        others = _other_endings(root / "labelsTr", file_ending, {case.id for case in cases}) \
            if declared_count > len(cases) else None
        raise DataError(
            f"{json_path}: numTraining is {declared_count} but {root / 'labelsTr'} holds {len(cases)} "
            f"label file(s) ending in {file_ending}{others or ''}; "
            + ("restore the missing files (an incomplete copy?) or correct numTraining" if others is None else
               "or, if that is not all, restore the missing files (an incomplete copy?) or correct numTraining")
        )

    splits_path = root / "splits_final.json"
    if splits_path.is_file():
        training, validation, how = _nnunet_fold(cases, splits_path, settings)
    elif os.path.lexists(splits_path):  # a link to nothing, a folder: passed over, the seed's split taken, until r106
        raise DataError(_splits_not_a_file(splits_path, settings.said("num_folds")))
    else:
        training, validation, how = settings.split(cases)
    return Manifest(
        root=root, labels=labels, channels=channels, training=training, validation=validation,
        label_values=label_values, binarized=binarize, split=how, source_format="nnunet", regions=regions,
        ignore_value=ignore_value, source_file=json_path,
        file_ending=file_ending if "file_ending" in content else None,
    )


def _splits_not_a_file(splits_path: Path, folds_is: str) -> str:
    """Why ``splits_path``, there, holds no folds to read: a symbolic link to nothing (nnU-Net's preprocessed folder,
    which users link it from, not mounted or moved), or a folder. Either was passed over as no file until review
    r106, and the cases split by the seed: a run validated on other cases than nnU-Net's, not a word said."""
    if link := dangling_link(splits_path, f"no fold is read from it: mount or make what it names (nnU-Net's "
                                          f"preprocessed folder?), or remove the link to split by {folds_is}"):
        return link
    return (f"{splits_path} is a {'folder' if splits_path.is_dir() else 'special file'}, not nnU-Net's list of folds, "
            f"so no fold is read from it: put the splits_final.json there, or remove it to split by {folds_is}")


def _declared_count(content: dict[str, Any], json_path: Path, found: int) -> int | None:
    """dataset.json's ``numTraining`` as a count, None where it has none. nnU-Net compares it with the cases
    found by ``==``, so a whole number written 5.0 counts as 5 there and here; a string ("5"), a list, true or a
    fraction fail its check. Until the hundred-and-fifth session any of them was passed over without a word,
    where an int was compared. ``found``: the label files read, the count the refusal offers."""
    if "numTraining" not in content:
        return None
    count = content["numTraining"]
    if isinstance(count, float) and count.is_integer():
        return int(count)
    if isinstance(count, bool) or not isinstance(count, int):
        raise DataError(f'{json_path}: "numTraining" is {json.dumps(count)}, not a whole number: nnU-Net compares '
                        f'it with the training cases it finds; write their count without quotes ("numTraining": '
                        f"{found} for the label files in {json_path.parent / 'labelsTr'}), or leave it out")
    return count


def _nnunet_file_ending(content: dict[str, Any], json_path: Path) -> str:
    """The suffix of every image/label file; only the NIfTI endings are readable here, in any case
    (``.NII.GZ``, as scanners' exports and Windows tools write it, is NIfTI to nibabel)."""
    file_ending = content.get("file_ending", ".nii.gz")
    if not isinstance(file_ending, str) or file_ending.lower() not in NIFTI_SUFFIXES:
        how = conversion(f"case_0000{file_ending}", str(file_ending))
        raise DataError(
            f'{json_path}: "file_ending" is {file_ending!r}; only NIfTI (".nii.gz", ".nii") is read here: convert '
            f'the images and labels to NIfTI, {how}, and set "file_ending": ".nii.gz"'
        )
    return file_ending


def _other_endings(folder: Path, file_ending: str, read: Collection[str] = ()) -> str | None:
    """The NIfTI files of ``folder`` that the file ending leaves out (``case.NII.GZ``, or ``case.nii``
    beside a ".nii.gz" ending), but for copies of the cases ``read``, and the way on, to follow "N
    label files ending in ..."; None if there are none. "No label files" alone left a dataset saved
    with upper-case endings a riddle (seventy-fifth session's probe), and a few such files among the
    rest were left out without a word."""
    def ending(name: str) -> str:
        return next(name[-len(suffix):] for suffix in NIFTI_SUFFIXES if name.lower().endswith(suffix))

    others = sorted(path.name for path in folder.iterdir()
                    if not path.name.startswith(".") and not path.name.endswith(file_ending)
                    and path.name.lower().endswith(NIFTI_SUFFIXES) and path.is_file()
                    and path.name[:-len(ending(path.name))] not in read)  # not a copy of a case read
    if not others:
        return None
    endings = sorted({ending(name) for name in others})
    shown = ", ".join(others[:3]) + (f" (and {len(others) - 3} more)" if len(others) > 3 else "")
    # Per ending: where only its case differs, a rename; where the compression differs, a rename
    # would put gzip data under a .nii name or the other way round (the checks then refuse every
    # file), so gzip/gunzip, or the file_ending they have where that is one of NIfTI's own spellings.
    compressed = file_ending.lower().endswith(".gz")
    ways = []
    for ending in endings:
        if ending.lower().endswith(".gz") == compressed:
            ways.append(f"rename those ending in {ending} to end in {file_ending}")
        else:
            fits = f", or set \"file_ending\": \"{ending}\" if every image and label ends so" \
                if ending in NIFTI_SUFFIXES and len(endings) == 1 else ""
            ways.append(f"{'gzip' if compressed else 'gunzip'} those ending in {ending} (and their images) to end "
                        f"in {file_ending}{fits}")
    way = "; ".join(ways)
    return (f", but {len(others)} ending in {' or '.join(endings)}: {shown}. nnU-Net reads only the names that "
            f"end exactly in dataset.json's \"file_ending\": {way}")


def _nnunet_cases(root: Path, channels: dict[int, str], file_ending: str, json_path: Path) -> list[Case]:
    """One Case per label file in labelsTr, with its channel files found by nnU-Net's naming rule."""
    labels_folder, images_folder = root / "labelsTr", root / "imagesTr"
    if not labels_folder.is_dir():
        raise DataError(f"{labels_folder}: folder not found; an nnU-Net raw dataset keeps its label maps in labelsTr/")
    # Hidden files include macOS "._case.nii.gz" resource forks, which are not images.
    named = sorted(path for path in labels_folder.iterdir()
                   if path.name.endswith(file_ending) and not path.name.startswith("."))
    _refuse_folders_named_as_labels([path for path in named if path.is_dir()], labels_folder, file_ending)
    label_files = [path for path in named if file_or_unfetched(path)]  # the checks say how to fetch a link's
    if not label_files:
        raise DataError(f"{labels_folder}: no label files ending in {file_ending}"
                        + (_other_endings(labels_folder, file_ending) or f"; add labelsTr/<case>{file_ending}"))

    cases, missing = [], []
    for label in label_files:
        case_id = label.name[: -len(file_ending)]
        images = tuple(images_folder / f"{case_id}_{channel:04d}{file_ending}" for channel in channels)
        # a folder of the file's name is no file either, but "has no" it sent the user looking at a name that is there
        missing += [f"case {case_id!r} has no {image}" + (" (a folder of that name is there, not a NIfTI file)"
                                                         if image.is_dir() else "")
                    for image in images if not file_or_unfetched(image)]
        cases.append(Case(id=case_id, images=images, label=label))
    if missing:
        names = ", ".join(f"{index:04d} ({name})" for index, name in channels.items())
        raise DataError(
            f"{json_path}: {len(missing)} channel file(s) missing; {json_path.name} declares channel(s) {names}, "
            f"each stored as imagesTr/<case>_<channel>{file_ending}; restore them or remove the case's label "
            "from labelsTr:\n" + "\n".join(f"  - {line}" for line in missing)
            + _numbered_past_the_declared(images_folder, cases, channels, file_ending, json_path.name)
        )
    return cases


def _numbered_past_the_declared(images_folder: Path, cases: list[Case], channels: dict[int, str],
                                file_ending: str, json_name: str) -> str:
    """What the cases' channel files of numbers ``channel_names`` does not declare tell of the files missing: a
    dataset whose channels run with a gap (``_0000`` and ``_0002``, a modality taken out) was told that ``_0001``
    was missing alone, the ``_0002`` files beside it unsaid (hundred-and-fifth session)."""
    numbers = sorted({number for _, number in _channel_files(images_folder, cases, file_ending)
                      if number not in channels})
    if not numbers:
        return ""
    shown = ", ".join(f"{number:04d}" for number in numbers)
    return (f"\nimagesTr holds these cases' files of channel(s) {shown}, which {json_name} does not "
            f"declare: nnU-Net numbers a case's channel files 0000, 0001, ... as "
            f"channel_names numbers the channels, without gaps; renumber the files (and channel_names) to match")


def _refuse_folders_named_as_labels(folders: list[Path], labels_folder: Path, file_ending: str) -> None:
    """A folder named as a case's label map (``labelsTr/case_a.nii.gz/``) was passed over as no file, its case
    dropped without a word, or told "restore the missing files" by a numTraining that counts it, the name
    there in plain sight (ninety-third session's probe)."""
    if not folders:
        return
    more = f" (and {len(folders) - 3} more)" if len(folders) > 3 else ""
    shown = ", ".join(path.name for path in folders[:3]) + more
    raise DataError(f"{labels_folder}: {len(folders)} folder(s) named as a case's label map ({shown}), not NIfTI "
                    f"files; labelsTr holds one label file <case>{file_ending} per case: put the file there in its "
                    f"place, or move the folder out of labelsTr")


def undeclared_channel_files(manifest: Manifest) -> list[Path]:
    """The files in an nnU-Net dataset's imagesTr named as a channel of one of its cases
    (``<case>_<XXXX><file_ending>``) whose channel ``channel_names`` does not declare: training reads
    the declared channels alone, so a modality left out of dataset.json (a fourth of four) was dropped
    without a word, where ``predict`` refuses such a file (seventy-fourth session). Leaving one out on
    purpose (a run without that modality) is a choice, hence a warning, not an error."""
    cases = [*manifest.training, *manifest.validation]
    if manifest.source_format != "nnunet" or not cases:
        return []
    first = cases[0].images[0]  # <case>_0000<file_ending>: the folder and the ending
    folder, file_ending = first.parent, first.name[len(cases[0].id) + len("_0000"):]
    return sorted(path for path, number in _channel_files(folder, cases, file_ending)
                  if number not in manifest.channels)


def cases_left_out_of_the_split(manifest: Manifest) -> list[str]:
    """The cases of an nnU-Net dataset's labelsTr that the fold taken from its splits_final.json lists in neither
    'train' nor 'val', and so neither trains nor validates on: cases added after nnU-Net wrote the file, or a
    hand-written split that forgot one. nnU-Net leaves them out without a word, as this reader did until the
    hundred-and-fifth session; training does so still (the file is the split), with a warning."""
    cases = [*manifest.training, *manifest.validation]
    if manifest.source_format != "nnunet" or manifest.split_origin.by != "fold_keys" or not cases:
        return []
    file_ending = cases[0].label.name[len(cases[0].id):]
    labels_folder, taken = cases[0].label.parent, {case.id for case in cases}
    return sorted((path.name[:-len(file_ending)] for path in labels_folder.iterdir()
                   if path.name.endswith(file_ending) and not path.name.startswith(".")
                   and path.name[:-len(file_ending)] not in taken and file_or_unfetched(path)), key=natural_key)


def nnunets_own_folds(manifest: Manifest) -> Path | None:
    """The splits_final.json that nnU-Net wrote for this dataset in its preprocessed folder
    (``$nnUNet_preprocessed/Dataset001_Name/``, the environment variable nnU-Net's users set), where none lies beside
    its dataset.json: split by the seed instead, a run validated on other cases than nnU-Net's fold of that number,
    which its results are compared with, without a word (hundred-and-fifth session). None where there is none, where
    no case is validated on (every case trained on: no fold to compare), or where ``nnUNet_preprocessed`` is set
    empty, the way the warning names to keep the seeded split on purpose."""
    preprocessed = os.environ.get("nnUNet_preprocessed")
    if manifest.source_format != "nnunet" or manifest.split_origin.by == "fold_keys" or not preprocessed \
            or not manifest.validation:
        return None
    folds = Path(preprocessed).expanduser() / manifest.root.name / "splits_final.json"
    return folds if folds.is_file() and not (manifest.root / "splits_final.json").exists() else None


def _channel_files(folder: Path, cases: list[Case], file_ending: str) -> list[tuple[Path, int]]:
    """The files of ``folder`` named as a channel of one of ``cases`` (``<case>_<XXXX><file_ending>``), each with
    its channel's number."""
    channel_file = re.compile(r"(.+)_(\d{4})" + re.escape(file_ending))
    ids = {case.id for case in cases}
    return [(path, int(named.group(2))) for path in folder.iterdir()
            if (named := channel_file.fullmatch(path.name)) and named.group(1) in ids]


def _nnunet_fold(cases: list[Case], splits_path: Path, settings: SplitSettings) -> tuple[list[Case], list[Case], str]:
    """Take entry ``fold`` of nnU-Net's splits_final.json: [{"train": [ids], "val": [ids]}, ...]."""
    num_folds, fold = settings.num_folds, settings.fold
    folds_is, fold_is = settings.said("num_folds"), settings.said("fold")  # load_nnunet's keywords, or the config's
    # read as dataset.json is (hand_edited's reader): a byte-order mark read past, UTF-16 or Latin-1, a binary
    # file, a trailing comma, a copy cut short told as what each is, and a key given twice ("val" twice lost a
    # fold's cases) refused; the codec's or the parser's words and "fix it" until the hundred-and-twenty-second
    # session
    splits = read_edited_json(splits_path, f"copy it again from nnU-Net's preprocessed folder, or delete it to split "
                                           f"by {folds_is}", reader="nnU-Net's json.load")
    if not (isinstance(splits, list) and splits and all(
        isinstance(entry, dict) and isinstance(entry.get("train"), list) and isinstance(entry.get("val"), list)
        for entry in splits
    )):
        raise DataError(
            f'{splits_path}: expected a list of {{"train": [case ids], "val": [case ids]}} (one per fold); '
            f"fix it or delete it to split by {folds_is}"
        )
    if num_folds > 1 and num_folds != len(splits):
        raise DataError(
            f"{splits_path} holds {len(splits)} fold(s) but {folds_is}={num_folds}; set {folds_is} to 0 "
            f"or {len(splits)} to use this file, or delete it to make {num_folds} folds"
        )
    if not 0 <= fold < len(splits):
        raise DataError(
            f"{fold_is}={fold} is out of range: {splits_path} holds {len(splits)} fold(s); use 0..{len(splits) - 1}"
        )

    by_id = {case.id: case for case in cases}
    chosen = splits[fold]
    unknown = sorted({str(i) for i in chosen["train"] + chosen["val"]} - by_id.keys())
    if unknown:
        raise DataError(
            f"{splits_path}: fold {fold} names case(s) {unknown[:5]} that have no label in labelsTr; "
            "restore them, or delete splits_final.json to split the cases present"
        )
    training = [by_id[str(i)] for i in chosen["train"]]
    validation = [by_id[str(i)] for i in chosen["val"]]
    reject_duplicate_cases(training, validation, splits_path)
    return training, validation, settings.given_fold(f"splits_final.json fold {fold} of {len(splits)}",
                                                     len(splits))
