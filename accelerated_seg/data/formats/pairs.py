"""A Python list of (image path(s), label path) pairs, as a notebook or script has them."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from accelerated_seg.data.cases import Case, Manifest, unnamed_channels
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.formats.msd import TwoSplits, entry_folds, fold_keys_or_list, fold_keys_split
from accelerated_seg.data.formats.paths import PathLike, folder_named, is_blank, unique_ids
from accelerated_seg.data.labels import LabelsArgument, labels_declaration, labels_given, parse_labels, split_ignore
from accelerated_seg.data.splits import KEYWORD_NAMES, SplitSettings, reject_duplicate_cases
from accelerated_seg.model_folders import Names


def from_pairs(
    pairs: Sequence[tuple[PathLike | Sequence[PathLike], PathLike]],
    labels: LabelsArgument = None,
    *,
    validation_pairs: Sequence[tuple[PathLike | Sequence[PathLike], PathLike]] | None = None,
    root: PathLike | None = None,
    validation_fraction: float = 0.2, num_folds: int = 0, fold: int = 0, seed: int = 0, binarize: bool = False,
    where: str = "from_pairs", names: Names = KEYWORD_NAMES, pairs_name: str = "pairs",
) -> Manifest:
    """Build a Manifest from ``[(image, label), ...]`` or ``[([channel_0, channel_1], label), ...]``, or
    from a MONAI datalist's ``[{"image": ..., "label": ...}, ...]`` (its "fold" keys split it, as a dataset.json's do;
    other keys are ignored).

    Case ids are the label file names, made unique with their folders when two share a name
    (``sub-01/mask.nii.gz`` -> ``sub-01_mask``).

    Args:
        pairs: (image path or one path per channel, label path) for each case.
        labels: As in :func:`load_csv`; ``None`` means binary {0: background, 1: foreground}.
        validation_pairs: Held-out pairs; when given they are the split, as is, but where the pairs carry
            "fold" keys and ``num_folds`` is their number of folds (fold ``fold`` of the keys, validation_pairs
            then unused); a ``fold`` other than 0 without ``num_folds`` is refused there, naming both.
        root: Folder that relative paths are resolved against, and the Manifest root. Default:
            paths resolve against the working directory and the root is the deepest folder
            holding every file.
        validation_fraction: Share held out when there are no validation_pairs and ``num_folds`` < 2.
        num_folds: More than 1 makes a seeded k-fold split instead of the fraction split.
        fold: Which fold is validated on (0-based).
        seed: Seed of the split shuffle.
        binarize: Merge every non-background label value into one "foreground" class.
        where: What the messages say was given the pairs: ``"from_pairs"``, or the function the user called
            (``Dataset.from_files``, ``load_cases``; until the ninety-ninth session ``load_cases(pairs)`` was told
            of "from_pairs", a function it had not called).
        names: How the messages and ``Manifest.split`` name the split settings (:class:`SplitSettings`): by
            default as this function's keywords (``num_folds``, ``seed``; :data:`KEYWORD_NAMES`), or as its caller's
            (``Dataset.from_files``' ``split_seed``). Both said here since the ninety-fourth session: the
            estimator rewrote the words of the messages and of the split by a regular expression, and a direct
            call was told of a config's ``data.num_folds``.
        pairs_name: What the messages call ``pairs`` (``pairs[1]``): the argument of ``where`` that held them
            (``load_cases``' ``source``).

    Returns:
        The Manifest.

    Raises:
        DataError: A pair is malformed, or pairs disagree on the number of channels.
    """
    settings = SplitSettings(validation_fraction, num_folds, fold, seed, names)
    base = Path(root).expanduser().absolute() if root is not None else Path.cwd()
    given = f"{where}: {labels_given(names)}"  # data.labels of load_cases(pairs, names=Names()), a config's words
    declared, ignore_value = split_ignore(labels_declaration(labels), given, binarize, names)
    label_names, label_values = parse_labels(declared, given, binarize)

    parsed = _parse_pairs(pairs, pairs_name, base, where)
    parsed_validation = (_parse_pairs(validation_pairs, "validation_pairs", base, where)
                         if validation_pairs is not None else [])
    if not parsed and not parsed_validation:  # validation pairs alone are a test set (estimator's evaluate)
        raise DataError(f"{where}: no pairs; pass at least one (image, label) pair")
    # each named as given: the validation pairs were counted on from the pairs ("pair 2" of validation_pairs[0])
    named = [*((f"{pairs_name}[{i}]", images) for i, (images, _) in enumerate(parsed)),
             *((f"validation_pairs[{i}]", images) for i, (images, _) in enumerate(parsed_validation))]
    first, first_images = named[0]
    for position, images in named:
        if len(images) != len(first_images):
            raise DataError(
                f"{where}: {position} has {len(images)} image file(s) but {first} has {len(first_images)}; "
                "give every case the same channels, in the same order"
            )
    num_channels = len(first_images)

    everything = parsed + parsed_validation
    ids = unique_ids([label for _, label in everything], [None] * len(everything))
    cases = [Case(id=case_id, images=images, label=label) for (images, label), case_id in zip(everything, ids)]
    # A MONAI datalist's "fold" keys are its split, as a dataset.json's are (formats.msd): ignored, the
    # seeded split validated on other cases than the datalist's fold, and trained on its held-out ones.
    folds = entry_folds(list(pairs))
    if validation_pairs is not None and folds is not None:
        # Two splits, chosen by num_folds as in a datalist JSON with a "validation" list: the validation_pairs
        # were the split whatever it said, and fold=1 was told that the pairs had no folds of their own
        training, validation, how = fold_keys_or_list(cases[: len(parsed)], folds, cases[len(parsed):], settings,
                                                      where, _pairs_splits(where))
    elif validation_pairs is not None:
        how = settings.given("validation_pairs", by="validation_pairs")
        training, validation = cases[: len(parsed)], cases[len(parsed):]
    elif folds is not None:
        training, validation, how = fold_keys_split(cases, folds, settings, where, _pairs_splits(where))
    else:
        training, validation, how = settings.split(cases)
    reject_duplicate_cases(training, validation, where)

    if root is None:  # the deepest folder holding every file, so messages can quote it
        base = Path(os.path.commonpath([str(path.parent) for case in cases for path in (*case.images, case.label)]))
    return Manifest(
        root=base, labels=label_names, channels=unnamed_channels(num_channels), training=training,
        validation=validation, label_values=label_values, binarized=binarize, split=how, source_format="pairs",
        ignore_value=ignore_value,
    )


def _pairs_splits(where: str) -> TwoSplits:
    """The pairs' 'fold' keys, and their two splits, in the words of their user, who gave ``where`` pairs
    (validation_pairs too) and no file: not a datalist.json's "training entries' 'fold' keys" and "'validation'
    list" (formats.msd's TwoSplits.of_json), nor, with "from_pairs: pairs" as its path, "from_pairs: pairs's 'fold'
    keys"."""
    return TwoSplits(gives=f"{where} is given", keys="the pairs' 'fold' keys", keys_of="the pairs' 'fold' keys",
                     its_keys="the pairs' 'fold' keys", listed="validation_pairs", the_list="validation_pairs",
                     the_list_is="validation_pairs are", entries="datalist", list_split="validation_pairs",
                     list_is="validation_pairs")


def _parse_pairs(pairs: Any, name: str, base: Path, given_to: str) -> list[tuple[tuple[Path, ...], Path]]:
    """Check each (images, label) pair and make its paths absolute; ``given_to`` names what was given them."""
    if isinstance(pairs, (str, bytes, os.PathLike)) or not isinstance(pairs, Sequence):
        raise DataError(f"{given_to}: {name} must be a list of (image, label) pairs, got {type(pairs).__name__}")
    parsed = []
    for position, entry in enumerate(pairs):
        where, pair = f"{given_to}: {name}[{position}]", entry
        if isinstance(pair, Mapping):  # a MONAI datalist entry: {"image": ..., "label": ..., other keys}
            missing = [key for key in ("image", "label") if key not in pair]
            if missing:
                # its other keys, where the files are under other names ("img", "seg")
                others = [repr(key) for key in pair if key not in ("image", "label")]
                keys = f" (its {'other ' if len(missing) < 2 else ''}keys: {', '.join(others)})" if others else ""
                raise DataError(f"{where} is a dict without {' and '.join(repr(k) for k in missing)}{keys}; a MONAI "
                                f"datalist entry names its files {{'image': path or [channel paths], 'label': path}}")
            pair = (pair["image"], pair["label"])
        if not (isinstance(pair, Sequence) and not isinstance(pair, (str, bytes)) and len(pair) == 2):
            raise DataError(malformed_entry(where, pair))
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
        _refuse_an_empty_path(where, entry, image_paths, label_field)
        images = tuple(base / Path(p).expanduser() for p in image_paths)
        parsed.append((images, base / Path(label_field).expanduser()))
    return parsed


def _refuse_an_empty_path(where: str, entry: Any, image_paths: list, label: PathLike) -> None:
    """An empty path ("") is the working folder once made absolute, which the checks called "a folder,
    not a NIfTI file", naming a folder the user never gave (ninety-second session's probe). So is
    ``Path("")``, which pathlib makes ``Path(".")``, and was let through until the ninety-third session,
    as was a folder named by its ending ("imagesTr/", ".."), as dataset.json and the CSV refuse it."""
    empty = next((path for path in (*image_paths, label) if _names_no_file(path)), None)
    if empty is None:
        return
    channel = next((index for index, path in enumerate(image_paths) if _names_no_file(path)), None)
    which = "the label" if channel is None else "the image" if len(image_paths) == 1 else f"image channel {channel}'s"
    raise DataError(f"{where} is {entry!r}: {which} path is {folder_named(empty) or 'empty'}; give the file's path")


def _names_no_file(path: PathLike) -> bool:
    """"" (or spaces), ``Path("")``, ``"."``, ``"./"``, ``"imagesTr/"``: a folder, or nothing, where a file belongs."""
    return is_blank(path) or folder_named(path) is not None


#: The forms an entry of the pairs takes, as every refusal of one says them.
ENTRY_FORMS = ("an (image, label) pair, (image path or [channel paths], label path), or MONAI's "
               "{'image': ..., 'label': ...}")


def malformed_entry(where: str, entry: Any) -> str:
    """The refusal of an entry of the pairs that is no pair (a path alone, one path, three): what it is, then
    the forms an entry takes. ``where`` names it, "from_pairs: pairs[1]"."""
    if isinstance(entry, (str, os.PathLike)):  # a case whose label was left out, or a list of images alone
        what = f"is {str(entry)!r}, a path alone"
    elif isinstance(entry, Sequence) and not isinstance(entry, bytes) and len(entry) != 2:
        what = f"is {entry!r}, {len(entry)} item{'' if len(entry) == 1 else 's'} where a pair has 2"
        if len(entry) > 2 and all(isinstance(path, (str, os.PathLike)) for path in entry):
            # the usual reason: a case's channel files and its label in one tuple, the channels not in a list
            channels = ", ".join(repr(str(path)) for path in entry[:-1])
            what += f" (where all but the last are a case's channel files: ([{channels}], {str(entry[-1])!r}))"
    else:
        what = f"is {entry!r}"
    return f"{where} {what}; each entry must be {ENTRY_FORMS}"
