"""Which cases exist: read a dataset description into a Manifest.

Four ways in, one result. :func:`load_cases` picks the reader from the path:

- a Medical Segmentation Decathlon ``dataset.json`` (:func:`load_msd`),
- an nnU-Net v2 raw dataset folder (:func:`load_nnunet`),
- a CSV of image/label paths (:func:`load_csv`),
- a Python list of (image path(s), label path) pairs (:func:`from_pairs`).

Only the description (JSON, CSV, folder listing) is read here; whether the files it names are
usable is the job of :mod:`accelerated_seg.data.checks`, so loading a manifest stays fast and can
be done on every process of a distributed run. The exception is a missing nnU-Net channel file:
nnU-Net names its files by convention, so a missing one is found while listing the folder.

Label values on disk need not be 0..C-1 (BraTS stores 0, 1, 2, 4): the Manifest records the
declared raw values and :attr:`Manifest.label_map` says how to turn them into class indices.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import numpy as np

from accelerated_seg.data.errors import DataError

_NIFTI_SUFFIXES = (".nii.gz", ".nii")
_ACCEPTED_SOURCES = (
    "an MSD dataset.json (or the folder holding it), an nnU-Net v2 raw dataset folder "
    "(dataset.json with channel_names, imagesTr/, labelsTr/), a .csv with 'image' and 'label' columns, "
    "or a list of (image, label) path pairs"
)

PathLike = Union[str, "os.PathLike[str]"]
#: What a caller may pass as label declaration for CSV/pairs: {value: name}, {name: value},
#: a list of names for values 0..C-1, or a class count C.
LabelsArgument = Union[Mapping[Any, Any], Sequence[str], int, None]


@dataclass(frozen=True)
class Case:
    """One subject: its image file(s) and, when labelled, its label map.

    Args:
        id: Case name, unique in the dataset, usable as a file name (e.g. ``"case_000"``).
        images: One absolute path per input channel.
        label: Absolute path of the label map, or ``None`` for unlabelled/test cases.
    """

    id: str
    images: tuple[Path, ...]
    label: Path | None


@dataclass
class Manifest:
    """Everything a training run needs to know about a dataset before opening any volume.

    Args:
        root: Dataset folder (holding dataset.json or the CSV); quoted in messages.
        labels: Class index -> name, contiguous from 0 (0 is background), after any
            remapping or binarising: these are the network's output classes.
        channels: Channel index -> name (e.g. modality); ``{0: "image"}`` when the source names none.
        training: Cases to train on.
        validation: Held-out cases to validate on (disjoint from ``training``).
        label_values: The raw label values the dataset declares, ascending, background (0)
            first. Without binarising, class ``k`` is stored on disk as ``label_values[k]``.
            Defaults to ``0..C-1``.
        binarized: Every non-zero declared value was merged into class 1 ("foreground").
        split: How ``validation`` was chosen, e.g. ``"given (dataset.json 'validation')"``,
            ``"fold 2 of 5 (seed 0)"`` or ``"fraction 0.2 (seed 0)"``; record it with the run.
        source_format: Which reader produced this: ``"msd"``, ``"nnunet"``, ``"csv"`` or ``"pairs"``.
    """

    root: Path
    labels: dict[int, str]
    channels: dict[int, str]
    training: list[Case]
    validation: list[Case]
    label_values: list[int] = field(default_factory=list)
    binarized: bool = False
    split: str = "given"
    source_format: str = "msd"

    def __post_init__(self) -> None:
        if not self.label_values:
            self.label_values = list(range(len(self.labels)))
        if not self.binarized and len(self.label_values) != len(self.labels):
            raise ValueError(
                f"Manifest: {len(self.label_values)} label_values {self.label_values} for "
                f"{len(self.labels)} classes; give one raw value per class, or set binarized=True"
            )

    @property
    def num_classes(self) -> int:
        """Number of output classes, background included (after remapping/binarising)."""
        return len(self.labels)

    @property
    def num_channels(self) -> int:
        """Number of input channels the network sees."""
        return len(self.channels)

    @property
    def label_map(self) -> dict[int, int] | None:
        """Raw label value -> class index, or ``None`` when the files already hold class indices.

        Apply it to every label before training (e.g. MONAI ``MapLabelValued``); values absent
        from it are left unchanged by MONAI, which is why the pre-flight checks reject them.
        """
        if self.binarized:
            mapping = {value: int(value != 0) for value in self.label_values}
        else:
            mapping = {value: index for index, value in enumerate(self.label_values)}
        return None if all(value == index for value, index in mapping.items()) else mapping


# --- the entry point --------------------------------------------------------------------------


def load_cases(
    source: PathLike | Sequence[Any],
    *,
    validation_fraction: float = 0.2,
    num_folds: int = 0,
    fold: int = 0,
    seed: int = 0,
    binarize: bool = False,
    labels: LabelsArgument = None,
) -> Manifest:
    """Read any supported dataset description; the one call the training code makes.

    Dispatch: a list/tuple is (image, label) pairs; a ``.csv`` file is a CSV; a ``.json`` file
    or a folder with ``dataset.json`` is nnU-Net v2 when the JSON has ``channel_names`` or
    ``file_ending`` and no ``training`` list, and MSD otherwise.

    Args:
        source: Path of a dataset.json, a dataset folder or a CSV, or a list of pairs.
        validation_fraction: Share held out when the source gives no split and ``num_folds`` < 2.
        num_folds: More than 1 splits the cases into that many seeded folds (``data.num_folds``).
        fold: The fold validated on, 0-based (``data.fold``); for nnU-Net with a
            ``splits_final.json`` it picks the entry of that file.
        seed: Seed of the shuffle behind fraction and fold splits (``data.split_seed``).
        binarize: Merge every non-background label value into one "foreground" class.
        labels: Label declaration for CSV and pairs, which have no place for one
            (see :func:`load_csv`); dataset.json-based sources declare their own.

    Returns:
        The Manifest, with all file paths absolute.

    Raises:
        DataError: The source is not one of the accepted formats, or is malformed.
    """
    split = dict(validation_fraction=validation_fraction, num_folds=num_folds, fold=fold, seed=seed)
    if isinstance(source, (list, tuple)):
        return from_pairs(source, labels, binarize=binarize, **split)

    path = Path(source).expanduser().absolute()
    if path.suffix.lower() == ".csv":
        return load_csv(path, labels=labels, binarize=binarize, **split)

    json_path = path / "dataset.json" if path.is_dir() else path
    if path.is_dir() and not json_path.is_file():
        raise DataError(f"{path}: folder without dataset.json; expected {_ACCEPTED_SOURCES}")
    if json_path.suffix.lower() != ".json":
        what = "not found" if not path.exists() else "not a dataset description"
        raise DataError(f"{path}: {what}; expected {_ACCEPTED_SOURCES}")
    if labels is not None:
        raise DataError(
            f"{json_path}: labels are declared by dataset.json; drop the labels argument (data.labels) "
            "or edit 'labels' in dataset.json"
        )
    if _is_nnunet(_read_json(json_path)):
        return load_nnunet(json_path, binarize=binarize, **split)
    return load_msd(json_path, binarize=binarize, **split)


def _is_nnunet(content: dict[str, Any]) -> bool:
    """nnU-Net v2 lists no files (they follow a naming convention); an explicit list means MSD."""
    return ("channel_names" in content or "file_ending" in content) and "training" not in content


# --- Medical Segmentation Decathlon -----------------------------------------------------------


def load_msd(
    dataset_json: PathLike,
    validation_fraction: float = 0.2,
    seed: int = 0,
    *,
    num_folds: int = 0,
    fold: int = 0,
    binarize: bool = False,
) -> Manifest:
    """Read a Decathlon-style ``dataset.json`` and split it into training and validation cases.

    If the JSON has its own ``"validation"`` list it is used as is; otherwise the split follows
    :func:`split_cases`, so every process and every rerun gets the same split.

    Args:
        dataset_json: Path to ``dataset.json`` (or to the folder containing it).
        validation_fraction: Share of training cases held out when the JSON has no
            ``"validation"`` list and ``num_folds`` < 2. Any positive fraction holds out at
            least one case when there are two or more; 0 holds out none.
        seed: Seed of the split shuffle.
        num_folds: More than 1 makes a seeded k-fold split instead of the fraction split.
        fold: Which fold is validated on (0-based).
        binarize: Merge every non-background label value into one "foreground" class.

    Returns:
        The parsed Manifest, with all file paths absolute.

    Raises:
        DataError: The JSON is missing or malformed, lacks ``"training"``, declares no
            background value 0, or the split settings are invalid.
    """
    _check_split_settings(validation_fraction, num_folds, fold)
    json_path = Path(dataset_json).expanduser().absolute()
    if json_path.is_dir():
        json_path = json_path / "dataset.json"
    content = _read_json(json_path)
    root = json_path.parent

    labels, label_values = parse_labels(content.get("labels"), f"{json_path}: \"labels\"", binarize)
    channels = _parse_channels(content, json_path)

    if "training" not in content:
        raise DataError(
            f"{json_path}: no 'training' list; add "
            '"training": [{"image": "./imagesTr/x.nii.gz", "label": "./labelsTr/x.nii.gz"}, ...]'
        )
    training = _parse_msd_cases(content["training"], "training", root, json_path, len(channels))
    if not training:
        raise DataError(f"{json_path}: the 'training' list is empty; add at least one labelled case")

    if "validation" in content:
        validation = _parse_msd_cases(content["validation"], "validation", root, json_path, len(channels))
        how = _given("dataset.json 'validation'", num_folds)
    else:
        training, validation, how = split_cases(
            training, validation_fraction=validation_fraction, num_folds=num_folds, fold=fold, seed=seed
        )

    _reject_duplicate_ids(training + validation, json_path)
    return Manifest(
        root=root, labels=labels, channels=channels, training=training, validation=validation,
        label_values=label_values, binarized=binarize, split=how, source_format="msd",
    )


def _read_json(json_path: Path) -> dict[str, Any]:
    """Load the JSON object, turning every failure into a DataError that says what to do."""
    if not json_path.is_file():
        raise DataError(
            f"{json_path}: dataset.json not found; point the data path at the folder that "
            "contains dataset.json (Medical Segmentation Decathlon or nnU-Net v2 layout)"
        )
    try:
        content = json.loads(json_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise DataError(f"{json_path}: not valid JSON ({err}); fix or regenerate the file") from err
    if not isinstance(content, dict):
        raise DataError(f"{json_path}: expected a JSON object at the top level, got {type(content).__name__}")
    return content


def _parse_channels(content: dict[str, Any], json_path: Path) -> dict[int, str]:
    """Return {index: name} from MSD "modality" or nnU-Net v2 "channel_names"; one channel if neither."""
    raw = content.get("modality", content.get("channel_names"))
    if raw is None:
        return {0: "image"}
    try:
        channels = dict(sorted((int(key), str(name)) for key, name in raw.items()))
    except (AttributeError, ValueError) as err:
        raise DataError(
            f'{json_path}: "modality"/"channel_names" must map channel indices to names, e.g. {{"0": "MRI"}}; '
            f"got {raw!r}"
        ) from err
    if not channels or list(channels) != list(range(len(channels))):
        raise DataError(f'{json_path}: channel indices must be 0..N-1 without gaps; got {list(channels)}')
    return channels


def _parse_msd_cases(entries: Any, key: str, root: Path, json_path: Path, num_channels: int) -> list[Case]:
    """Turn the JSON list under ``key`` into Cases with absolute paths."""
    if not isinstance(entries, list):
        raise DataError(f"{json_path}: '{key}' must be a list of {{\"image\": ..., \"label\": ...}} entries")
    cases = []
    for position, entry in enumerate(entries):
        where = f"{json_path}: '{key}' entry {position}"
        if not isinstance(entry, dict) or "image" not in entry:
            raise DataError(f'{where} has no "image"; each entry needs "image" and "label" paths')
        if entry.get("label") is None:
            # Both lists feed supervised training/validation, so an unlabelled entry is a mistake.
            raise DataError(f'{where} has no "label"; move unlabelled cases to "test"')

        image_field = entry["image"]
        if isinstance(image_field, str):
            images = (_resolve(image_field, root),)
        elif isinstance(image_field, list) and image_field and all(isinstance(p, str) for p in image_field):
            images = tuple(_resolve(p, root) for p in image_field)
            # A single string may be a 4D multi-channel file (MSD BrainTumour), so only lists are
            # counted here; the pre-flight checks then ask for that file to be split.
            if len(images) != num_channels:
                raise DataError(
                    f"{where} lists {len(images)} image file(s) but dataset.json declares "
                    f"{num_channels} channel(s); give one file per channel"
                )
        else:
            raise DataError(f'{where}: "image" must be a path or a list of paths, got {image_field!r}')
        label = _resolve(str(entry["label"]), root)

        # The label is named after the case; multi-channel image files often carry a channel suffix.
        cases.append(Case(id=_stem(label), images=images, label=label))
    return cases


def _resolve(relative: str, root: Path) -> Path:
    """Make a listed path absolute; MSD writes them as "./imagesTr/x.nii.gz"."""
    while relative.startswith("./"):
        relative = relative[2:]
    return root / Path(relative).expanduser()  # an absolute path stays as it is


def _stem(path: Path) -> str:
    """File name without .nii / .nii.gz (Path.stem would leave ".nii" behind)."""
    name = path.name
    for suffix in _NIFTI_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


# --- nnU-Net v2 raw dataset -------------------------------------------------------------------


def load_nnunet(
    folder: PathLike,
    *,
    validation_fraction: float = 0.2,
    num_folds: int = 0,
    fold: int = 0,
    seed: int = 0,
    binarize: bool = False,
) -> Manifest:
    """Read an nnU-Net v2 raw dataset folder (``Dataset001_Name/``).

    Layout: ``dataset.json`` with ``channel_names`` ({"0": "T1", "1": "T2"}), ``labels``
    ({"background": 0, "tumor": 1}), ``numTraining`` and ``file_ending`` (".nii.gz");
    ``labelsTr/<case><file_ending>`` names the cases and ``imagesTr/<case>_<XXXX><file_ending>``
    holds channel XXXX (4 digits) of each. Other files in those folders are ignored.

    The split: a ``splits_final.json`` next to dataset.json (nnU-Net writes it to the
    preprocessed folder; copy it here to reuse nnU-Net's folds) is a list of
    ``{"train": [...], "val": [...]}``, and entry ``fold`` is used. Without it, the split
    follows :func:`split_cases`.

    Args:
        folder: The dataset folder, or its dataset.json.
        validation_fraction: Share held out when there is no splits_final.json and ``num_folds`` < 2.
        num_folds: More than 1 makes a seeded k-fold split (or must match splits_final.json).
        fold: Which fold is validated on (0-based).
        seed: Seed of the split shuffle.
        binarize: Merge every non-background label value into one "foreground" class.

    Returns:
        The Manifest; cases are ordered by case id.

    Raises:
        DataError: dataset.json is malformed, declares region-based labels, a case lacks a
            channel file, ``numTraining`` disagrees with labelsTr, or splits_final.json is unusable.
    """
    _check_split_settings(validation_fraction, num_folds, fold)
    json_path = Path(folder).expanduser().absolute()
    if json_path.is_dir():
        json_path = json_path / "dataset.json"
    content = _read_json(json_path)
    root = json_path.parent

    if "channel_names" not in content:
        raise DataError(
            f'{json_path}: no "channel_names"; an nnU-Net v2 dataset.json declares its channels, '
            'e.g. "channel_names": {"0": "CT"} (nnU-Net v1 files use "modality" and a "training" list: '
            "load them as MSD)"
        )
    channels = _parse_channels(content, json_path)
    labels, label_values = parse_labels(content.get("labels"), f'{json_path}: "labels"', binarize)
    file_ending = _nnunet_file_ending(content, json_path)

    cases = _nnunet_cases(root, channels, file_ending, json_path)
    declared_count = content.get("numTraining")
    if isinstance(declared_count, int) and declared_count != len(cases):
        raise DataError(
            f"{json_path}: numTraining is {declared_count} but {root / 'labelsTr'} holds {len(cases)} "
            f"label file(s) ending in {file_ending}; restore the missing files (an incomplete copy?) "
            "or correct numTraining"
        )

    splits_path = root / "splits_final.json"
    if splits_path.is_file():
        training, validation, how = _nnunet_fold(cases, splits_path, num_folds, fold)
    else:
        training, validation, how = split_cases(
            cases, validation_fraction=validation_fraction, num_folds=num_folds, fold=fold, seed=seed
        )
    return Manifest(
        root=root, labels=labels, channels=channels, training=training, validation=validation,
        label_values=label_values, binarized=binarize, split=how, source_format="nnunet",
    )


def _nnunet_file_ending(content: dict[str, Any], json_path: Path) -> str:
    """The suffix of every image/label file; only the NIfTI endings are readable here."""
    file_ending = content.get("file_ending", ".nii.gz")
    if file_ending not in _NIFTI_SUFFIXES:
        raise DataError(
            f'{json_path}: "file_ending" is {file_ending!r}; only NIfTI (".nii.gz", ".nii") is supported — '
            "convert the images and labels to NIfTI and set the file_ending accordingly"
        )
    return file_ending


def _nnunet_cases(root: Path, channels: dict[int, str], file_ending: str, json_path: Path) -> list[Case]:
    """One Case per label file in labelsTr, with its channel files found by nnU-Net's naming rule."""
    labels_folder, images_folder = root / "labelsTr", root / "imagesTr"
    if not labels_folder.is_dir():
        raise DataError(f"{labels_folder}: folder not found; an nnU-Net raw dataset keeps its label maps in labelsTr/")
    label_files = sorted(
        path for path in labels_folder.iterdir()
        # Hidden files include macOS "._case.nii.gz" resource forks, which are not images.
        if path.name.endswith(file_ending) and not path.name.startswith(".") and path.is_file()
    )
    if not label_files:
        raise DataError(f"{labels_folder}: no label files ending in {file_ending}; add labelsTr/<case>{file_ending}")

    cases, missing = [], []
    for label in label_files:
        case_id = label.name[: -len(file_ending)]
        images = tuple(images_folder / f"{case_id}_{channel:04d}{file_ending}" for channel in channels)
        missing += [f"case {case_id!r} has no {image}" for image in images if not image.is_file()]
        cases.append(Case(id=case_id, images=images, label=label))
    if missing:
        names = ", ".join(f"{index:04d} ({name})" for index, name in channels.items())
        raise DataError(
            f"{json_path}: {len(missing)} channel file(s) missing; dataset.json declares channel(s) {names}, "
            f"each stored as imagesTr/<case>_<channel>{file_ending}; restore them or remove the case's label "
            "from labelsTr:\n" + "\n".join(f"  - {line}" for line in missing)
        )
    return cases


def _nnunet_fold(
    cases: list[Case], splits_path: Path, num_folds: int, fold: int
) -> tuple[list[Case], list[Case], str]:
    """Take entry ``fold`` of nnU-Net's splits_final.json: [{"train": [ids], "val": [ids]}, ...]."""
    try:
        splits = json.loads(splits_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise DataError(
            f"{splits_path}: not valid JSON ({err}); fix it or delete it to split by data.num_folds"
        ) from err
    if not (isinstance(splits, list) and splits and all(
        isinstance(entry, dict) and isinstance(entry.get("train"), list) and isinstance(entry.get("val"), list)
        for entry in splits
    )):
        raise DataError(
            f'{splits_path}: expected a list of {{"train": [case ids], "val": [case ids]}} (one per fold); '
            "fix it or delete it to split by data.num_folds"
        )
    if num_folds > 1 and num_folds != len(splits):
        raise DataError(
            f"{splits_path} holds {len(splits)} fold(s) but data.num_folds={num_folds}; set data.num_folds to 0 "
            f"or {len(splits)} to use this file, or delete it to make {num_folds} folds"
        )
    if not 0 <= fold < len(splits):
        raise DataError(
            f"data.fold={fold} is out of range: {splits_path} holds {len(splits)} fold(s); use 0..{len(splits) - 1}"
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
    _reject_duplicate_ids(training + validation, splits_path)
    return training, validation, f"given (splits_final.json fold {fold} of {len(splits)})"


# --- CSV --------------------------------------------------------------------------------------

_IMAGE_COLUMN = re.compile(r"image_(\d+)")
_SPLIT_VALUES = {"train": "train", "training": "train", "val": "validation", "valid": "validation",
                 "validation": "validation", "test": "test"}


def load_csv(
    path: PathLike,
    *,
    labels: LabelsArgument = None,
    validation_fraction: float = 0.2,
    num_folds: int = 0,
    fold: int = 0,
    seed: int = 0,
    binarize: bool = False,
) -> Manifest:
    """Read a CSV with a header row: one case per row.

    Columns: ``image`` (one channel) or ``image_0``, ``image_1``, ... (one per channel), and
    ``label``. Optional: ``id`` (else the label file name, made unique with its folders), and
    ``split`` (``train``/``validation``; ``test`` rows are skipped), which, when present, is
    the split. Other columns are ignored. Relative paths are relative to the CSV's folder.

    A CSV cannot declare label values, so ``labels`` does; without it the labels are binary,
    ``{0: "background", 1: "foreground"}``, and the pre-flight checks reject any other value
    with a message saying to pass ``labels``.

    Args:
        path: The CSV file (comma-separated, UTF-8).
        labels: ``{value: name}`` (``{0: "background", 1: "edema", 4: "enhancing"}``),
            ``{name: value}``, a list of names for values 0..C-1, or a class count C.
        validation_fraction: Share held out when there is no ``split`` column and ``num_folds`` < 2.
        num_folds: More than 1 makes a seeded k-fold split instead of the fraction split.
        fold: Which fold is validated on (0-based).
        seed: Seed of the split shuffle.
        binarize: Merge every non-background label value into one "foreground" class.

    Returns:
        The Manifest, rooted at the CSV's folder.

    Raises:
        DataError: A required column or cell is missing, a split value is unknown, or the
            labels argument is malformed; the message names the CSV line.
    """
    _check_split_settings(validation_fraction, num_folds, fold)
    csv_path = Path(path).expanduser().absolute()
    root = csv_path.parent
    label_names, label_values = parse_labels(_labels_argument(labels), f"{csv_path}: labels argument", binarize)
    header, rows = _read_csv_rows(csv_path)
    image_columns = _image_columns(header, csv_path)

    entries: list[tuple[tuple[Path, ...], Path, str | None, str | None]] = []
    for line, row in rows:
        where = f"{csv_path}, line {line}"
        split = _split_value(row.get("split"), where) if "split" in header else None
        if split == "test":
            continue  # kept in the same table by many projects; never trained or validated on
        images = tuple(_resolve(_cell(row, column, where), root) for column in image_columns)
        label = _resolve(_cell(row, "label", where), root)
        case_id = (row.get("id") or "").strip() or None
        if case_id and ("/" in case_id or "\\" in case_id):
            # Ids name files downstream (caches, predictions), so they cannot hold path separators.
            raise DataError(f"{where}: id {case_id!r} contains a path separator; use a plain name such as sub-01")
        entries.append((images, label, case_id, split))
    if not entries:
        raise DataError(f"{csv_path}: no cases (every row is empty or split=test); add one row per labelled case")

    ids = _unique_ids([label for _, label, _, _ in entries], [case_id for _, _, case_id, _ in entries])
    cases = [Case(id=case_id, images=images, label=label) for (images, label, _, _), case_id in zip(entries, ids)]
    _reject_duplicate_ids(cases, csv_path)

    if "split" in header:
        training = [case for case, entry in zip(cases, entries) if entry[3] == "train"]
        validation = [case for case, entry in zip(cases, entries) if entry[3] == "validation"]
        if not training:
            raise DataError(f"{csv_path}: no row has split=train; mark the training cases 'train'")
        how = _given("CSV 'split' column", num_folds)
    else:
        training, validation, how = split_cases(
            cases, validation_fraction=validation_fraction, num_folds=num_folds, fold=fold, seed=seed
        )
    channels = {index: column for index, column in enumerate(image_columns)}
    return Manifest(
        root=root, labels=label_names, channels=channels, training=training, validation=validation,
        label_values=label_values, binarized=binarize, split=how, source_format="csv",
    )


def _read_csv_rows(csv_path: Path) -> tuple[set[str], list[tuple[int, dict[str, str]]]]:
    """Return the lower-cased header and the non-empty rows with their line numbers."""
    if not csv_path.is_file():
        raise DataError(f"{csv_path}: CSV not found; check the data path")
    # utf-8-sig drops the byte-order mark that spreadsheet programs put before the header.
    with csv_path.open(newline="", encoding="utf-8-sig") as stream:
        reader = csv.reader(stream)
        header_row = next(reader, None)
        if header_row is None:
            raise DataError(f"{csv_path}: empty file; write a header row such as image,label")
        columns = [name.strip().lower() for name in header_row]
        if len(columns) == 1 and (";" in columns[0] or "\t" in columns[0]):
            raise DataError(
                f"{csv_path}: the header {header_row[0]!r} is not comma-separated; save the file as CSV with commas"
            )
        rows = []
        for cells in reader:
            if any(cell.strip() for cell in cells):
                rows.append((reader.line_num, dict(zip(columns, cells))))
    return set(columns), rows


def _image_columns(header: set[str], csv_path: Path) -> list[str]:
    """``["image"]`` or ``["image_0", "image_1", ...]``, checked for the mistakes people make."""
    numbered = sorted((int(match.group(1)), name) for name in header if (match := _IMAGE_COLUMN.fullmatch(name)))
    numbered_names = [name for _, name in numbered]
    found = f"found columns {sorted(header)}"
    if "label" not in header:
        raise DataError(
            f"{csv_path}: no 'label' column ({found}); the header needs image (or image_0, image_1, ...) and label"
        )
    if "image" in header and numbered:
        raise DataError(
            f"{csv_path}: both 'image' and {numbered_names} columns; use 'image' for one channel "
            "or image_0, image_1, ... for several"
        )
    if "image" in header:
        return ["image"]
    if not numbered:
        raise DataError(
            f"{csv_path}: no image column ({found}); name it 'image', or image_0, image_1, ... for channels"
        )
    if [index for index, _ in numbered] != list(range(len(numbered))):
        raise DataError(
            f"{csv_path}: image columns {numbered_names} must be numbered image_0, image_1, ... without gaps"
        )
    return numbered_names


def _cell(row: dict[str, str], column: str, where: str) -> str:
    value = (row.get(column) or "").strip()
    if not value:
        raise DataError(
            f"{where}: empty '{column}' cell; give a path (relative to the CSV's folder), or mark the row split=test"
        )
    return value


def _split_value(raw: str | None, where: str) -> str:
    value = (raw or "").strip().lower()
    if value not in _SPLIT_VALUES:
        raise DataError(f"{where}: split is {raw!r}; use train, validation or test")
    return _SPLIT_VALUES[value]


# --- a list of pairs --------------------------------------------------------------------------


def from_pairs(
    pairs: Sequence[tuple[PathLike | Sequence[PathLike], PathLike]],
    labels: LabelsArgument = None,
    *,
    validation_pairs: Sequence[tuple[PathLike | Sequence[PathLike], PathLike]] | None = None,
    root: PathLike | None = None,
    validation_fraction: float = 0.2,
    num_folds: int = 0,
    fold: int = 0,
    seed: int = 0,
    binarize: bool = False,
) -> Manifest:
    """Build a Manifest from ``[(image, label), ...]`` or ``[([channel_0, channel_1], label), ...]``.

    Case ids are the label file names, made unique with their folders when two share a name
    (``sub-01/mask.nii.gz`` -> ``sub-01_mask``).

    Args:
        pairs: (image path or one path per channel, label path) for each case.
        labels: As in :func:`load_csv`; ``None`` means binary {0: background, 1: foreground}.
        validation_pairs: Held-out pairs; when given they are the split, as is.
        root: Folder that relative paths are resolved against, and the Manifest root. Default:
            paths resolve against the working directory and the root is the deepest folder
            holding every file.
        validation_fraction: Share held out when there are no validation_pairs and ``num_folds`` < 2.
        num_folds: More than 1 makes a seeded k-fold split instead of the fraction split.
        fold: Which fold is validated on (0-based).
        seed: Seed of the split shuffle.
        binarize: Merge every non-background label value into one "foreground" class.

    Returns:
        The Manifest.

    Raises:
        DataError: A pair is malformed, or pairs disagree on the number of channels.
    """
    _check_split_settings(validation_fraction, num_folds, fold)
    base = Path(root).expanduser().absolute() if root is not None else Path.cwd()
    label_names, label_values = parse_labels(_labels_argument(labels), "from_pairs: labels argument", binarize)

    parsed = _parse_pairs(pairs, "pairs", base)
    parsed_validation = _parse_pairs(validation_pairs, "validation_pairs", base) if validation_pairs is not None else []
    if not parsed:
        raise DataError("from_pairs: no pairs; pass at least one (image, label) pair")
    num_channels = len(parsed[0][0])
    for position, (images, _) in enumerate(parsed + parsed_validation):
        if len(images) != num_channels:
            raise DataError(
                f"from_pairs: pair {position} has {len(images)} image file(s) but the first has {num_channels}; "
                "give every case the same channels, in the same order"
            )

    everything = parsed + parsed_validation
    ids = _unique_ids([label for _, label in everything], [None] * len(everything))
    cases = [Case(id=case_id, images=images, label=label) for (images, label), case_id in zip(everything, ids)]
    where = "from_pairs"
    _reject_duplicate_ids(cases, where)
    if validation_pairs is not None:
        training, validation, how = cases[: len(parsed)], cases[len(parsed):], _given("validation_pairs", num_folds)
    else:
        training, validation, how = split_cases(
            cases, validation_fraction=validation_fraction, num_folds=num_folds, fold=fold, seed=seed
        )

    if root is None:  # the deepest folder holding every file, so messages can quote it
        base = Path(os.path.commonpath([str(path.parent) for case in cases for path in (*case.images, case.label)]))
    channels = {0: "image"} if num_channels == 1 else {index: f"image_{index}" for index in range(num_channels)}
    return Manifest(
        root=base, labels=label_names, channels=channels, training=training, validation=validation,
        label_values=label_values, binarized=binarize, split=how, source_format="pairs",
    )


def _parse_pairs(pairs: Any, name: str, base: Path) -> list[tuple[tuple[Path, ...], Path]]:
    """Check each (images, label) pair and make its paths absolute."""
    if isinstance(pairs, (str, bytes, os.PathLike)) or not isinstance(pairs, Sequence):
        raise DataError(f"from_pairs: {name} must be a list of (image, label) pairs, got {type(pairs).__name__}")
    parsed = []
    for position, pair in enumerate(pairs):
        where = f"from_pairs: {name}[{position}]"
        if not (isinstance(pair, Sequence) and not isinstance(pair, str) and len(pair) == 2):
            raise DataError(f"{where} is {pair!r}; each entry must be (image path or [channel paths], label path)")
        image_field, label_field = pair
        if isinstance(image_field, (str, os.PathLike)):
            image_paths = [image_field]
        elif (isinstance(image_field, Sequence) and image_field
              and all(isinstance(p, (str, os.PathLike)) for p in image_field)):
            image_paths = list(image_field)
        else:
            raise DataError(f"{where}: the image must be a path or a non-empty list of paths, got {image_field!r}")
        if not isinstance(label_field, (str, os.PathLike)):
            raise DataError(f"{where}: the label must be a path, got {label_field!r}")
        images = tuple(base / Path(p).expanduser() for p in image_paths)
        parsed.append((images, base / Path(label_field).expanduser()))
    return parsed


def _unique_ids(label_paths: list[Path], explicit: list[str | None]) -> list[str]:
    """Case ids: an explicit id, else the label's file name; folders are added only where names repeat.

    Layouts such as ``sub-01/mask.nii.gz``, ``sub-02/mask.nii.gz`` would otherwise give every
    case the id "mask"; ids must be unique and usable as file names, hence "_" not "/".
    """
    stems = [_stem(path) for path in label_paths]
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


# --- label declarations -----------------------------------------------------------------------


def parse_labels(raw: Any, where: str, binarize: bool = False) -> tuple[dict[int, str], list[int]]:
    """Turn a label declaration into (class index -> name, raw values in class order).

    MSD writes ``{"0": "background", "1": "tumour"}`` and nnU-Net v2 ``{"background": 0,
    "tumour": 1}``; both are accepted because datasets get converted back and forth. Values need
    not be contiguous: ``{0, 1, 2, 4}`` gives classes 0..3 in ascending order of value.

    Args:
        raw: The declaration (a dict in either direction).
        where: The file or argument it came from, for messages.
        binarize: Return the two classes background/foreground (raw values are kept).

    Returns:
        ``(labels, label_values)`` for :class:`Manifest`.

    Raises:
        DataError: The declaration is empty or malformed, uses nnU-Net regions or an
            "ignore" label, repeats a value, or lacks background 0.
    """
    example = '{"0": "background", "1": "tumour"}'
    if raw is None or raw == {}:
        raise DataError(f"{where}: missing or empty; declare the classes, e.g. {example}")
    if not isinstance(raw, Mapping):
        raise DataError(f"{where}: expected a mapping of label values to class names such as {example}, got {raw!r}")

    def is_value(item: Any) -> bool:
        return isinstance(item, int) and not isinstance(item, bool)

    if all(is_value(value) or isinstance(value, list) for value in raw.values()):
        regions = [name for name, value in raw.items() if isinstance(value, list)]
        if regions:
            raise DataError(
                f"{where}: {regions} map to lists of values (nnU-Net region-based training), which is not "
                'supported; declare one value per class, e.g. {"background": 0, "edema": 1, "enhancing": 2}, '
                "or use binarize"
            )
        pairs = [(value, str(name)) for name, value in raw.items()]  # nnU-Net v2: name -> value
    else:
        try:
            pairs = [(int(key), str(name)) for key, name in raw.items()]  # MSD: "value" -> name
        except (TypeError, ValueError) as err:
            raise DataError(
                f'{where}: keys must be label values like "0", "1" (or names mapped to values); got {list(raw)}'
            ) from err

    values = sorted(value for value, _ in pairs)
    repeated = sorted(value for value, count in Counter(values).items() if count > 1)
    if repeated:
        raise DataError(f"{where}: value(s) {repeated} declared for more than one class; give each class its own value")
    declared = dict(pairs)
    if any(name.lower() == "ignore" for name in declared.values()):
        raise DataError(
            f'{where}: an "ignore" label (nnU-Net partial annotation) is not supported; relabel those voxels '
            "as background or a class, and remove the entry"
        )
    if values[0] != 0:
        raise DataError(
            f"{where}: the background must be value 0 (padding and resampling fill with 0); got values {values}; "
            'declare 0 as background, e.g. "0": "background"'
        )
    if len(values) < 2:
        raise DataError(f"{where}: only the background is declared; add the foreground class(es)")

    if binarize:
        return {0: "background", 1: "foreground"}, values
    return {index: declared[value] for index, value in enumerate(values)}, values


def _labels_argument(labels: LabelsArgument) -> Any:
    """Normalise the labels argument of CSV/pairs into a declaration dict; ``None`` means binary."""
    if labels is None:
        return {0: "background", 1: "foreground"}
    if isinstance(labels, int) and not isinstance(labels, bool):
        return {0: "background", **{k: f"class_{k}" for k in range(1, labels)}}
    if isinstance(labels, Sequence) and not isinstance(labels, str):
        return dict(enumerate(str(name) for name in labels))
    return labels


# --- splits -----------------------------------------------------------------------------------


def split_cases(
    cases: list[Case], *, validation_fraction: float = 0.2, num_folds: int = 0, fold: int = 0, seed: int = 0
) -> tuple[list[Case], list[Case], str]:
    """Split cases deterministically when the source gives no validation list.

    ``num_folds`` > 1: a ``numpy.random.default_rng(seed)`` permutation is cut into
    ``num_folds`` near-equal folds and fold ``fold`` is held out. Otherwise
    ``validation_fraction`` of the cases is held out. Both halves keep the source order, are
    disjoint and together cover ``cases``.

    Args:
        cases: All labelled cases, in a stable order.
        validation_fraction: Share held out in the fraction split.
        num_folds: Number of folds (0: fraction split).
        fold: Held-out fold, 0-based.
        seed: Seed of the permutation.

    Returns:
        ``(training, validation, description)``; record the description with the run.

    Raises:
        DataError: The settings are invalid (the message names data.fold / data.num_folds).
    """
    _check_split_settings(validation_fraction, num_folds, fold)
    if num_folds > 1:
        if num_folds > len(cases):
            raise DataError(
                f"data.num_folds={num_folds} but there are only {len(cases)} case(s); use at most {len(cases)} folds"
            )
        folds = np.array_split(np.random.default_rng(seed).permutation(len(cases)), num_folds)
        held_out = set(folds[fold].tolist())
        how = f"fold {fold} of {num_folds} (seed {seed})"
    else:
        if fold != 0:
            raise DataError(f"data.fold={fold} is set but data.num_folds={num_folds}; set data.num_folds to 2 or more")
        held_out = _fraction_held_out(len(cases), validation_fraction, seed)
        how = f"fraction {validation_fraction:g} (seed {seed})"
    training = [case for index, case in enumerate(cases) if index not in held_out]
    validation = [case for index, case in enumerate(cases) if index in held_out]
    return training, validation, how


def _check_split_settings(validation_fraction: float, num_folds: int, fold: int) -> None:
    """Reject impossible split settings before any file is read."""
    if not 0.0 <= validation_fraction < 1.0:
        raise DataError(f"data.validation_fraction must be in [0, 1), got {validation_fraction}")
    if num_folds < 0 or num_folds == 1:
        raise DataError(
            f"data.num_folds={num_folds}: use 0 to split by data.validation_fraction, or 2 or more for k-fold"
        )
    if fold < 0 or (num_folds > 1 and fold >= num_folds):
        upper = f"0..{num_folds - 1}" if num_folds > 1 else "0 or more"
        raise DataError(f"data.fold={fold} is out of range for data.num_folds={num_folds}; use {upper}")


def _fraction_held_out(count: int, validation_fraction: float, seed: int) -> set[int]:
    """Indices of a deterministic random subset of about ``validation_fraction * count`` cases."""
    num_validation = round(validation_fraction * count)
    if validation_fraction > 0 and count >= 2:
        num_validation = min(max(num_validation, 1), count - 1)  # never leave training empty
    return set(np.random.default_rng(seed).permutation(count)[:num_validation].tolist())


def _given(what: str, num_folds: int) -> str:
    """Describe a split the source prescribes; say so when fold settings were therefore unused."""
    return f"given ({what}; data.num_folds={num_folds} not used)" if num_folds > 1 else f"given ({what})"


def _reject_duplicate_ids(cases: list[Case], where: Path | str) -> None:
    """A case listed twice would be over-weighted, or leak from training into validation."""
    counts = Counter(case.id for case in cases)
    duplicates = sorted(case_id for case_id, count in counts.items() if count > 1)
    if duplicates:
        raise DataError(
            f"{where}: case(s) listed more than once across training/validation: "
            f"{duplicates[:5]}; remove the duplicates"
        )
