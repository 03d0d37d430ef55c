"""Medical Segmentation Decathlon: a dataset.json that lists every training case's files."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from accelerated_seg.data.cases import Case, Manifest
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.formats.dataset_json import dataset_json_path, parse_channels, read_json
from accelerated_seg.data.formats.paths import PathLike, file_stem, folder_named, is_blank, nifti_stem, resolve
from accelerated_seg.data.io import file_or_unfetched
from accelerated_seg.data.labels import LabelsArgument, labels_declaration, labels_given, parse_labels, split_ignore
from accelerated_seg.data.splits import KEYWORD_NAMES, SplitSettings, reject_duplicate_cases
from accelerated_seg.model_folders import Names


def load_msd(
    dataset_json: PathLike, validation_fraction: float = 0.2, seed: int = 0,
    *, num_folds: int = 0, fold: int = 0, binarize: bool = False, labels: LabelsArgument = None,
    names: Names = KEYWORD_NAMES,
) -> Manifest:
    """Read a Decathlon-style ``dataset.json`` (or a MONAI datalist) and split it into training and
    validation cases.

    If the JSON has its own ``"validation"`` list it is used as is; if its training entries carry a
    ``"fold"`` each (MONAI's ``datafold_read``, Auto3DSeg's datalists), fold ``fold`` is validated
    on; otherwise the split follows :meth:`~accelerated_seg.data.splits.SplitSettings.split`, so every
    process and every rerun gets the same split. A JSON with both splits by its ``"fold"`` keys where
    ``num_folds`` is their number of folds (its ``"validation"`` list then unused), by its list where
    ``num_folds`` is 0, and refuses a ``fold`` other than 0 without ``num_folds``.

    Args:
        dataset_json: Path to ``dataset.json`` (or to the folder containing it).
        validation_fraction: Share of training cases held out when the JSON has no
            ``"validation"`` list and ``num_folds`` < 2. Any positive fraction holds out at
            least one case when there are two or more; 0 holds out none.
        seed: Seed of the split shuffle.
        num_folds: More than 1 makes a seeded k-fold split instead of the fraction split.
        fold: Which fold is validated on (0-based).
        binarize: Merge every non-background label value into one "foreground" class.
        labels: The classes of a JSON that declares none (a MONAI datalist), as ``load_csv`` takes
            them (``data.labels``); refused where the JSON declares its own.
        names: How the messages and ``Manifest.split`` name the split settings: as this function's keywords
            (:data:`~accelerated_seg.data.splits.KEYWORD_NAMES`), or as its caller's (``load_cases``'; the
            config's, ``data.num_folds``, where ``load_manifest`` reads the config's dataset). The config's
            until the ninety-fourth session, whoever called.

    Returns:
        The parsed Manifest, with all file paths absolute.

    Raises:
        DataError: The JSON is missing or malformed, lacks ``"training"``, declares no
            background value 0, declares no labels and none are given (or both), or the split
            settings are invalid.
    """
    settings = SplitSettings(validation_fraction, num_folds, fold, seed, names)
    json_path = dataset_json_path(dataset_json)
    content = read_json(json_path)
    root = json_path.parent

    declared_in, declaration = f"{json_path}: \"labels\"", content.get("labels")
    datalist = declaration in (None, {}, []) and labels is not None
    if datalist:  # a MONAI datalist: the classes come from data.labels (labels= from Python)
        # as the caller gave them: data.labels of every caller until the ninety-ninth session, a keyword's too
        declared_in, declaration = f"{labels_given(names)} (the classes of {json_path})", labels_declaration(labels)
    elif labels is not None:
        raise labels_declared_twice(json_path)
    elif declaration in (None, {}, []):  # "declare them" alone sent a datalist's user to data.labels, refused then
        raise DataError(f'{declared_in}: missing or empty; declare the classes there ("labels": {{"0": '
                        f'"background", "1": "tumour"}}), or, for a MONAI datalist without them, with data.labels '
                        f"(check: --labels; load_cases: labels=)")
    declared, ignore_value = split_ignore(declaration, declared_in, binarize, names)
    labels, label_values = parse_labels(declared, declared_in, binarize)
    channels = parse_channels(content, json_path)

    if "training" not in content:
        raise DataError(
            f"{json_path}: no 'training' list; add "
            '"training": [{"image": "./imagesTr/x.nii.gz", "label": "./labelsTr/x.nii.gz"}, ...]'
        )
    named = "modality" in content or "channel_names" in content
    v1 = lists_nnunet_v1_names(content["training"], root)
    training = _parse_msd_cases(content["training"], "training", root, json_path, len(channels), named, v1)
    if not training:
        raise DataError(f"{json_path}: the 'training' list is empty; add at least one labelled case")

    folds = entry_folds(content["training"])
    if "validation" in content:
        listed = _parse_msd_cases(content["validation"], "validation", root, json_path, len(channels), named, v1)
        if folds is not None:
            training, validation, how = fold_keys_or_list(training, folds, listed, settings, json_path,
                                                          TwoSplits.of_json(json_path))
        else:  # the file's own list, as before
            validation, how = listed, settings.given(f"{json_path.name} 'validation'")
    elif folds is not None:
        training, validation, how = fold_keys_split(training, folds, settings, json_path, TwoSplits.of_json(json_path))
    else:
        training, validation, how = settings.split(training)

    reject_duplicate_cases(training, validation, json_path)
    return Manifest(
        root=root, labels=labels, channels=channels, training=training, validation=validation,
        label_values=label_values, binarized=binarize, split=how,
        source_format="datalist" if datalist else "msd",
        ignore_value=ignore_value, source_file=json_path,
    )


def entry_folds(entries: Any) -> list[int] | None:
    """The ``"fold"`` of each training entry (MONAI's datafold_read reads them), or None unless every
    entry has a whole number >= 0 there and they make two folds or more. Before the seventy-sixth
    session they were ignored, and a fraction split trained on the cases the file marks for validation
    (a probe of a MONAI user's datalist); keys on some entries only, of other meanings ("train"), or
    of one fold are still no split of folds, and the file splits as before."""
    if not isinstance(entries, list) or not entries:
        return None
    folds = [entry.get("fold") if isinstance(entry, Mapping) else None for entry in entries]
    # NumPy's integers too: a datalist given in Python numbered by sklearn's KFold or a DataFrame's column was
    # split by the fraction, as if it had no folds, and validated on cases its folds train on (a review's probe)
    if not all(isinstance(fold, numbers.Integral) and not isinstance(fold, bool) and fold >= 0 for fold in folds):
        return None
    folds = [int(fold) for fold in folds]
    return folds if len(set(folds)) > 1 else None


class TwoSplits(NamedTuple):
    """How the messages and ``Manifest.split`` name the two splits of a source whose training entries carry
    'fold' keys and which lists validation cases of its own too: a datalist JSON's "validation" list
    (:meth:`of_json`), or the validation_pairs given to from_pairs beside its pairs (formats.pairs). Each
    names what its user gave: the pairs' user wrote no file and no 'validation' list."""

    gives: str  # the source, with its verb: ".../datalist.json gives"
    keys: str  # the keys after "two splits:" and where they run to a fold none has: "its training entries' 'fold' keys"
    keys_of: str  # the keys after "out of range:": ".../datalist.json's 'fold' keys"
    its_keys: str  # the keys that make another number of folds than data.num_folds: "its 'fold' keys"
    listed: str  # the list as the source's: "its 'validation' list"
    the_list: str  # the list named again: "the 'validation' list"
    the_list_is: str  # ... with its verb: "the 'validation' list is"
    entries: str  # Manifest.split's name of the keys' entries: the file's name, "datalist.json"
    list_split: str  # Manifest.split's name of the list: "datalist.json 'validation'"
    list_is: str = "dataset"  # what SplitOrigin calls the list: the file's own ("dataset"), or "validation_pairs"

    @classmethod
    def of_json(cls, json_path: Path) -> "TwoSplits":
        """A datalist JSON's: its path, its training entries' keys and its 'validation' list. Manifest.split names
        the file by its name, as given: "dataset.json" whatever it was called until the ninetieth session, which
        sent a user of MONAI's datalist.json looking for a file that the run never read."""
        return cls(f"{json_path} gives", "its training entries' 'fold' keys", f"{json_path}'s 'fold' keys",
                   "its 'fold' keys", "its 'validation' list", "the 'validation' list", "the 'validation' list is",
                   json_path.name, f"{json_path.name} 'validation'")


def fold_keys_split(cases: list[Case], folds: list[int], settings: SplitSettings, json_path: Path | str,
                    names: TwoSplits, listed: int | None = None) -> tuple[list[Case], list[Case], str]:
    """Fold ``settings.fold`` of the entries' own folds held out, as MONAI's datafold_read does
    (``json_path``: where the messages say the entries are, "from_pairs" for pairs; ``names``: how the messages
    and the split name the keys, and the list, in the source's words; ``listed``: the number of cases in the
    source's own validation list, which these folds then leave unused). The names are given each time: the
    pairs' were a file's, "from_pairs: pairs" standing for its path ("from_pairs: pairs's 'fold' keys"), and a
    default "dataset.json" named every JSON so (ninetieth session)."""
    count = max(folds) + 1
    if missing := sorted(set(range(count)) - set(folds)):
        raise DataError(f"{json_path}: {names.keys} run to {count - 1} but no entry has fold {missing[0]}: number "
                        f"the folds 0..{len(set(folds)) - 1}")
    if settings.num_folds > 1 and settings.num_folds != count:
        # Beside a validation list, data.num_folds=0 validates on that list, not on these folds
        folds_is = settings.said("num_folds")
        use = (f"set {folds_is} to 0 or {count} to use them, or drop the keys" if listed is None else
               f"set {folds_is} to {count} to use them (0 validates on {names.listed}), or drop the keys "
               f"and {names.the_list}")
        raise DataError(f"{json_path}: {names.its_keys} make {count} fold(s) but {folds_is}={settings.num_folds}; "
                        f"{use} to make {settings.num_folds} folds")
    if not 0 <= settings.fold < count:
        raise DataError(f"{settings.said('fold')}={settings.fold} is out of range: {names.keys_of} make {count} "
                        f"fold(s); use 0..{count - 1}")
    training = [case for case, fold in zip(cases, folds) if fold != settings.fold]
    validation = [case for case, fold in zip(cases, folds) if fold == settings.fold]
    unused = None if listed is None else (names.list_is, f"{names.the_list} ({listed} case(s))")
    held_out = f"{names.entries} 'fold' keys: fold {settings.fold} of {count}"
    return training, validation, settings.given_fold(held_out, count, unused)


def fold_keys_or_list(training: list[Case], folds: list[int], listed: list[Case], settings: SplitSettings,
                      json_path: Path | str, names: TwoSplits) -> tuple[list[Case], list[Case], str]:
    """The split of a source whose training entries carry 'fold' keys and which lists validation cases too (a
    datalist JSON's 'validation' list, from_pairs' validation_pairs), each named as ``names`` says.

    data.num_folds decides, so that every fold of a cross-validation (data.num_folds set, each data.fold)
    splits alike: set, the 'fold' keys, as MONAI's datafold_read (Auto3DSeg reads the 'validation' list only
    when its validation_key names it), and the list is left out, said so; unset, the list as before, the
    keys said unused. A data.fold alone was told that the dataset had no folds of its own ("remove
    data.fold"), which this one has: it is refused naming both and the setting that picks each. One
    function for both sources: the pairs kept the old refusal after the JSON's was fixed (ninetieth session)."""
    count = max(folds) + 1
    gap = set(range(count)) != set(folds)
    if settings.num_folds > 1 or settings.fold != 0 and gap:  # a fold asked of keys with a gap: told of the gap
        return fold_keys_split(training, folds, settings, json_path, names, listed=len(listed))
    if gap:  # keys of folds 0 and 2 alone make no split: the list, as before, without offering them as one
        return training, listed, settings.given(names.list_split, names.list_is)
    fold_is, folds_is = settings.said("fold"), settings.said("num_folds")
    if settings.fold >= count:  # no data.num_folds makes that fold: the range, not a setting that fails next
        raise DataError(f"{fold_is}={settings.fold} is out of range: {names.keys_of} make {count} fold(s); "
                        f"use 0..{count - 1} with {folds_is}={count}, or remove {fold_is} to validate on "
                        f"{names.listed}")
    if settings.fold != 0:
        raise DataError(f"{fold_is}={settings.fold} is set, but {names.gives} two splits: {names.keys} ({count} "
                        f"folds) and {names.listed} ({len(listed)} case(s)); set {folds_is}={count} to validate "
                        f"on fold {settings.fold} of the 'fold' keys ({names.the_list_is} then left out), or remove "
                        f"{fold_is} to validate on {names.the_list}")
    return training, listed, settings.given(names.list_split, names.list_is, unused_folds=count)


def lists_nnunet_v1_names(entries: Any, root: Path) -> bool:
    """Whether the list is an nnU-Net v1 task's (``nnUNet_raw_data/Task004_Hippocampus``, a Decathlon task
    after nnU-Net v1's conversion): it names each case's image ``./imagesTr/<case>.nii.gz``, where the files
    are one per channel, ``<case>_0000.nii.gz``, ``<case>_0001.nii.gz``, ..., as nnU-Net v1 reads them.
    Decided by the first entry whose listed image or channel-0 file is there, as a v1 list names every case so:
    its listed image absent, the file of its channel 0 there. An entry with neither (a typo) decides nothing: the
    first entry's sent every case of a v1 task back to "file not found" (hundred-and-fifth session). Until then
    every listed image was "file not found"."""
    for entry in entries if isinstance(entries, list) else []:
        image = entry.get("image") if isinstance(entry, dict) else None
        if not isinstance(image, str) or is_blank(image) or folder_named(image) or nifti_stem(image) is None:
            return False
        listed = resolve(image, root)
        if listed.exists() or listed.is_symlink():
            return False
        if file_or_unfetched(channel_file(listed, 0)):
            return True
    return False


def channel_file(image: Path, channel: int) -> Path:
    """nnU-Net's file of one channel of the image ``image`` names: ``case.nii.gz`` -> ``case_0001.nii.gz``."""
    stem = nifti_stem(image) or image.name
    return image.with_name(f"{stem}_{channel:04d}{image.name[len(stem):]}")


def _parse_msd_cases(entries: Any, key: str, root: Path, json_path: Path, num_channels: int,
                     channels_declared: bool = True, v1_names: bool = False) -> list[Case]:
    """Turn the JSON list under ``key`` into Cases with absolute paths (``channels_declared``: the JSON
    names its channels, rather than one being assumed; ``v1_names``: each listed image stands for its
    channel files, nnU-Net v1's naming, :func:`lists_nnunet_v1_names`)."""
    if not isinstance(entries, list):
        raise DataError(f"{json_path}: '{key}' must be a list of {{\"image\": ..., \"label\": ...}} entries")
    cases = []
    for position, entry in enumerate(entries):
        where = f"{json_path}: '{key}' entry {position}"
        if not isinstance(entry, dict):
            raise DataError(f'{where} is {entry!r}, not an entry {{"image": ..., "label": ...}}')
        keys = f" (its keys: {', '.join(map(str, entry))})" if entry else ""
        if "image" not in entry:
            raise DataError(f'{where} has no "image"{keys}; each entry needs "image" and "label" paths')
        if entry.get("label") is None:
            # Both lists feed supervised training/validation, so an unlabelled entry is a mistake.
            typo = f"{keys}: a misspelt key?" if set(entry) - {"image", "label"} else ""
            raise DataError(f'{where} has no "label"{typo}; move unlabelled cases to "test"')

        image_field = entry["image"]
        _refuse_unusable_paths(entry, where, json_path)
        if isinstance(image_field, str) and v1_names:
            images = tuple(channel_file(resolve(image_field, root), channel) for channel in range(num_channels))
        elif isinstance(image_field, str):
            images = (resolve(image_field, root),)
        elif isinstance(image_field, list) and image_field and all(isinstance(p, str) for p in image_field):
            images = tuple(resolve(p, root) for p in image_field)
            # A single string may be a 4D multi-channel file (MSD BrainTumour), so only lists are
            # counted here; the pre-flight checks then ask for that file to be split.
            if len(images) != num_channels and not channels_declared:
                raise DataError(
                    f"{where} lists {len(images)} image file(s) but {json_path.name} names no channels, so one is "
                    f"assumed; name one per file: \"modality\": {{\"0\": \"T1\", \"1\": \"T2\", ...}}")
            if len(images) != num_channels:
                raise DataError(
                    f"{where} lists {len(images)} image file(s) but {json_path.name} declares "
                    f"{num_channels} channel(s); give one file per channel"
                )
        else:
            raise DataError(f'{where}: "image" must be a path or a list of paths, got {image_field!r}')
        label = resolve(entry["label"], root)

        # The label is named after the case; multi-channel image files often carry a channel suffix.
        cases.append(Case(id=file_stem(label), images=images, label=label))
    return cases


def _refuse_unusable_paths(entry: dict, where: str, json_path: Path) -> None:
    """Refuse an empty path, and a label that is no path: "" was the JSON's own folder, which the checks
    called "a folder, not a NIfTI file"; a list or a number was made a path by its text, "['a.nii.gz']" not
    found (ninety-second session's probe)."""
    if blank := [name for name in ("image", "label") if is_blank(entry[name])
                 or (isinstance(entry[name], list) and any(is_blank(path) for path in entry[name]))]:
        raise DataError(f'{where}: "{blank[0]}" is an empty path ({entry[blank[0]]!r}); give the file\'s path '
                        f'(relative to {json_path.name}\'s folder)')
    _refuse_a_folder_named(entry, where, json_path)
    if not isinstance(label := entry["label"], str):
        one = " (one label map per case, whatever its channels)" if isinstance(label, list) else ""
        raise DataError(f'{where}: "label" must be the path of the case\'s label map, got {label!r}{one}')


def _refuse_a_folder_named(entry: dict, where: str, json_path: Path) -> None:
    """``"./"`` or ``"."`` is dataset.json's own folder once its leading "./" is dropped, and ``"imagesTr/"`` a
    folder: the pre-flight checks called them "a folder, not a NIfTI file", the first naming a folder the
    file never lists, the case named after it where it was the label; refused here naming the entry and its
    key, before any file is looked at, since the ninety-third session."""
    for name in ("image", "label"):
        paths = entry[name] if isinstance(entry[name], list) else [entry[name]]
        for channel, path in enumerate(paths):
            if folder := folder_named(path):
                which = f'"{name}" channel {channel}' if len(paths) > 1 else f'"{name}"'
                raise DataError(f"{where}: {which} is {folder}; give the file's path (relative to {json_path.name}'s "
                                f"folder)")


def labels_declared_twice(json_path: Path) -> DataError:
    """The refusal of data.labels beside a dataset.json (an MSD's, an nnU-Net's, a datalist's) that declares its own:
    training's, and check's of the embedded phantoms before they are written (``synthetic.phantoms_without_cases``).
    The file is named by its name: "dataset.json" whatever it was called until the ninety-first session."""
    return DataError(f"{json_path}: labels are declared by {json_path.name}; drop the labels argument (data.labels) "
                     f"or edit 'labels' in {json_path.name}")
