"""Which classes ``accelerated-seg evaluate`` scores, and their names (``classes_to_score``): those a dataset.json
or an export's config.json names (``class_names_from_json``; its regions, ignore label and binarized training
too), 1..``num_classes``-1, or the values the files hold; and each map's values checked against them
(``require_known_values``), where a value outside them, a mask saved as 0 and 255 or an unannotated voxels' mark,
is refused naming what to give. Moved out of ``evaluate.py`` in the ninety-sixth session; the JSON readers are
importable from there as before.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from .data.errors import DataError
from .data.formats.dataset_json import DATASET_READER, copy_it_again, dangling_link, read_edited_json
from .data.labels import split_ignore, split_regions
from .data.preprocess_settings import class_values, preprocess_settings
from .evaluate_setting_names import SettingNames
from .hand_edited import KeyGivenTwice
from .label_map_reading import read_label_map
from .model_folders import COPY_AGAIN
from .regions import Regions


# The files that name the classes, as --labels takes them: a dataset's (MSD, nnU-Net) and a model's (an export's).
DECLARATIONS = ("dataset.json", "config.json")


def foreground_classes(classes: int | Sequence[int], setting: str = "num_classes") -> list[int]:
    """``classes`` as the label values to score: an int C means 1..C-1 (0 is background); ``setting`` names it."""
    if isinstance(classes, (int, np.integer)):
        if classes < 2:
            raise ValueError(f"{setting} must count background and at least one class (>= 2), got {classes}")
        return list(range(1, int(classes)))
    return [int(c) for c in classes]


def classes_to_score(pairs, num_classes: int | None, dataset_json, given: Mapping[int, str], merge_foreground: bool,
                 named: SettingNames, ignore_value: int | None = None) -> dict[int, str]:
    """The foreground classes to score -> their names; ``named``: the settings' names in the errors; the value of
    unannotated voxels (``ignore_value``) is no class."""
    if dataset_json is not None:
        names = {c: n for c, n in class_names_from_json(dataset_json, named.dataset_json).items() if c != 0}
        if num_classes is not None and sorted(names) != list(range(1, num_classes)):
            raise ValueError(f"{named.num_classes} {num_classes} disagrees with the classes {sorted(names)} "
                             f"(+ background) named in {dataset_json}; drop one of the two")
        if merge_foreground and sorted(names) != [1]:  # the others would score Dice 1 for being in no file
            raise ValueError(f"{dataset_json} names the classes {sorted(names)}, but {named.merge_foreground} scores "
                             f"every foreground value as class 1: drop one of the two")
    elif num_classes is not None:
        names = {c: given.get(c, f"class_{c}") for c in foreground_classes(num_classes, named.num_classes)}
    else:  # the values present anywhere: a class only ever predicted must still count against the model
        found = ClassesFound(named, ignore_value)
        for _, pred_path, label_path in pairs:
            for path, role in ((pred_path, "prediction"), (label_path, "reference")):
                found.add(read_label_map(path, role), path, role)
        return found.classes(merge_foreground)
    _require_a_class(names, named)
    return names


class ClassesFound:
    """The classes that the values held in the maps make, where neither a class count nor a JSON names them:
    ``add`` each map as it is read, then ``classes``. ``evaluate_folders`` adds them as scoring reads them,
    which made a read of every map before the scoring's needless (until the hundredth session,
    ``classes_to_score`` read each one twice); the value of unannotated voxels (``ignore_value``) is no class."""

    def __init__(self, named: SettingNames, ignore_value: int | None = None):
        self.named, self.ignore_value = named, ignore_value
        self.predicted, self.referenced = set(), set()

    def add(self, array: np.ndarray, path: Path, role: str) -> np.ndarray:
        """Take in the values of one map (``role``: "prediction" or "reference") and return them (``np.unique``);
        raises for a value below 0."""
        held = np.unique(array)
        # the ignore value is no class: it was scored as one ("class_3", Dice 1 wherever the reference held it),
        # and a prediction holding it passed as that class's
        values = {int(v) for v in held} - {self.ignore_value}
        if negative := sorted(v for v in values if v < 0):  # scored as "class_-1" before the 72nd session
            raise DataError(f"{path}: label value(s) {negative[:8]} below 0 are no class (the classes "
                            f"are 0, 1, 2, ...); fix the file (a map of unannotated voxels marks them with "
                            f"a value above the classes, named \"ignore\" in a dataset.json given as "
                            f"{self.named.dataset_json})")
        (self.predicted if role == "prediction" else self.referenced).update(values)
        return held

    def classes(self, merge_foreground: bool) -> dict[int, str]:
        """The foreground classes to score -> their names ("class_<value>"), from every map added."""
        predicted, referenced = self.predicted, self.referenced
        if merge_foreground:
            predicted, referenced = ({min(value, 1) for value in found} for found in (predicted, referenced))
        _require_shared_classes(predicted - {0}, referenced - {0}, self.named, self.ignore_value)
        names = {c: f"class_{c}" for c in sorted((predicted | referenced) - {0})}
        _require_a_class(names, self.named)
        return names


def _require_a_class(names: Mapping[int, str], named: SettingNames) -> None:
    """Raise where no foreground class is left to score, naming the settings that give the classes."""
    if not names:
        raise DataError(f"no foreground class to score: every label and prediction is all background; give "
                        f"{named.num_classes}, or {named.dataset_json} a dataset.json naming the classes")


def _require_shared_classes(predicted: set[int], referenced: set[int], named: SettingNames,
                            ignore_value: int | None = None) -> None:
    """Raise where the classes are taken from the files and the predictions' foreground values share
    none with the references': every Dice is then 0, whatever the predictions' overlap. A binary mask
    saved as 0 and 255 against predictions of 0 and 1 was scored so, as two classes, without a word
    (seventy-eighth session's probe)."""
    if not predicted or not referenced or predicted & referenced:
        return
    # --merge-foreground scores both sides' foreground as class 1, so the two would meet. It is named where one side
    # is likely a single foreground: references of one value (masks saved as 0 and 255) against a binary model's 1
    # or a multi-class model's classes (until the ninetieth session only against the 1: the merge took the
    # references alone), or a binary model's 1 against references of many structures. Classes on both sides are
    # more likely numbered apart (class indices against a dataset's values) than one foreground.
    if len(referenced) == 1:
        merge = f"if the references are masks saved as 0 and {min(referenced)}"
    elif predicted == {1}:
        merge = "if the model segments the references' structures as one foreground"
    else:
        merge = ""
    way = f"; {merge}, {merge_foreground_said(named, ignore_value)}" if merge else ""
    raise DataError(f"the predictions hold the values {sorted(predicted)[:8]} and the references "
                    f"{sorted(referenced)[:8]} (besides background): no class in common, so every Dice would be 0"
                    f"{way}; to score each value as a class all the same, give {named.dataset_json} a dataset.json "
                    f"naming them (or {named.num_classes} above the largest)")


def require_known_values(array: np.ndarray, path: Path, classes: Sequence[int], named: SettingNames,
                          reference: bool = False, prediction: bool = False, ignore_value: int | None = None) -> None:
    """Raise for a value outside the classes scored; in a reference without an ignore label, one such
    value may be its mark for unannotated voxels (255, -1), which only a dataset.json can declare, or,
    where it is the reference's only foreground value (or a ``prediction``'s), the foreground of a mask
    saved as 0 and 255, which the merge takes in (but ``ignore_value``, the references' unannotated voxels)."""
    values = set(np.unique(array).tolist())
    unknown = sorted(values - {0, *classes})
    if unknown:
        ignore = (f"; if {unknown[0]} marks unannotated voxels, give {named.dataset_json} a dataset.json that names "
                  f"it the \"ignore\" label" if reference and len(unknown) == 1 else "")
        # a prediction holding the declared ignore value was told only to check --labels, which declares it, and,
        # where it held no other, offered the merge, which leaves that value out (until the hundred-and-twenty-fifth
        # session's helper h138, a new user's walk): which value it is, and why refused
        holds_ignore = prediction and ignore_value in unknown
        # a prediction too: another tool's binary masks, saved as 0 and 255, against references of 0 and 1
        mask = (f"; if the {'reference' if reference else 'prediction'} is a mask saved as 0 and {unknown[0]}, "
                f"{merge_foreground_said(named, ignore_value)}"
                if (reference or prediction) and values - {0} == {unknown[0]} and not holds_ignore else "")
        unannotated = (f"; {ignore_value} is the ignore label, the references' mark for unannotated voxels, which "
                       f"no prediction holds: give the predictions of a model that segments the classes alone, or "
                       f"set those voxels to 0 or their class" if holds_ignore else "")
        # the first eight, the ignore value among them where the clause names it (review r117: one above them was
        # named by the clause alone)
        shown = unknown[:8] if not holds_ignore or ignore_value in unknown[:8] else [*unknown[:7], ignore_value]
        raise DataError(f"{path}: label value(s) {shown} are not among the classes scored "
                        f"{[0, *classes]}; check {named.num_classes} / {named.dataset_json}, or the file"
                        f"{ignore}{unannotated}{mask}")


def merged_foreground(array: np.ndarray, ignore_value: int | None) -> np.ndarray:
    """Every value above 0 as 1 (``--merge-foreground``), except the ignore label's: merged, its voxels would
    count in Dice as foreground, and a prediction holding it would not be refused."""
    foreground = array > 0
    if ignore_value is not None:
        foreground &= array != ignore_value
    return np.where(foreground, 1, array)


def merge_foreground_said(named: SettingNames, ignore_value: int | None = None) -> str:
    """What the merge does, for the refusals that name it, in the words of summary.json's note
    (``merged_foreground_note``). They said it "scores every non-zero value as class 1" until the ninety-ninth
    session: a value below 0 and the ignore value are not merged."""
    but = f", but the ignore value {ignore_value}" if ignore_value is not None else ""
    return (f"{named.merge_foreground} makes class 1 the foreground: every value above 0 in the references and in "
            f"the predictions merged into one{but}")


def merged_foreground_note(merge_predictions: bool, ignore_value: int | None) -> str:
    """summary.json's note on the merge: what class 1's numbers are of, which side's values it merges (the
    references alone where a binarized model's config.json implied it) and over which voxels."""
    sides = "the references and in the predictions" if merge_predictions else "the references"
    note = (f"class 1 is the foreground: every value above 0 in {sides} (classes 1, 2, ..., a mask's 255) merged "
            f"into one")
    if ignore_value is not None:  # merged_foreground leaves it as it is: unannotated, not foreground
        note += f", but the ignore value {ignore_value}"
    if not merge_predictions:
        note += (", as a model trained with data.binarize saw them; the predictions (such a model's 0 and 1) taken "
                 "as written")
    voxels = ("every voxel of each case" if ignore_value is None
              else f"the voxels not labelled {ignore_value} (see ignore)")
    return f"{note}; scored against 0, the background, over {voxels}"


def class_names_from_json(path: str | Path, setting: str = "dataset_json") -> dict[int, str]:
    """Class value -> name from the ``"labels"`` of an MSD/nnU-Net ``dataset.json`` or an export's config.json
    (``setting``: the file's name in the errors)."""
    path = check_labels_file(Path(path), setting)  # a folder: the file in it that names the classes
    try:
        # a file saved as UTF-16, cut short or with a comma JSON does not allow was told it "needs a "labels"
        # object", the parser's words after it, until the hundred-and-twenty-second session (hand_edited.py); read
        # by training's reader since review r106, each fault its line there: "copy dataset.json again from where it
        # was written" was said here, "from the dataset's download, or regenerate it" there (and predict's "copy the
        # export's config.json again from the run folder that wrote it"), and brackets nested too deep a traceback
        document = _labels_json(path)
        if "num_classes" in document and "model" in document:  # an export: names keyed by class index
            return _exportclasses_to_score(document)
        raw, _ = split_ignore(document["labels"], f'{path}: "labels"')  # unannotated voxels: no class
        if all(isinstance(v, int) and not isinstance(v, bool) for v in raw.values()):
            return dict(sorted((int(v), str(k)) for k, v in raw.items()))  # nnU-Net v2: name -> value
        return dict(sorted((int(k), str(v)) for k, v in raw.items()))  # MSD: "value" -> name
    except DataError:  # a key given twice, a file that does not read: its own message
        raise
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as err:
        raise DataError(f'{path}: needs a "labels" object such as {{"0": "background", "1": "tumour"}} '
                        f"(MSD) or {{\"background\": 0, \"tumour\": 1}} (nnU-Net v2); "
                        f"{type(err).__name__}: {err}") from err


def _labels_json(path: Path) -> Any:
    """``--labels``' JSON, a dataset.json or an export's config.json, read as training and predict read each
    (``read_edited_json``, hand_edited's one reader of hand-edited JSON): each fault its line there."""
    config = path.name == "config.json"
    return read_edited_json(path, COPY_AGAIN if config else copy_it_again(path), "json.load" if config else
                            DATASET_READER)


#: What to do of a --labels file that is a dangling link.
_MOUNT_IT = "mount or make what it names, or give the dataset.json (or a model's config.json) that names the classes"


def _a_folder(path: Path, setting: str) -> str:
    """A dataset.json or config.json that is a folder (a copy that made one, or a link to one), said as load_cases
    says a dataset's (``manifest.load_cases``, review r113): "a folder without a dataset.json" until review r116."""
    linked = f" (a symbolic link to {os.readlink(path)})" if path.is_symlink() else ""
    if path.name == "config.json":
        return (f"{path} is a folder{linked}, not the model's JSON file: export the model again, or give {setting} "
                f"the dataset.json (or a model's config.json) that names the classes")
    return (f"{path} is a folder{linked}, not the dataset's JSON file: put the dataset's dataset.json in its place "
            f"(copy it again from the dataset's download), or give {setting} the dataset.json (or a model's "
            f"config.json) that names the classes")


def _itself(file: Path) -> str:
    """The way on to the readable one of a folder's dataset.json and config.json, the other not a file."""
    whose = "a model's, in the values predict writes" if file.name == "config.json" else "the dataset's"
    return f"{file} itself ({whose}), where its classes are the ones to score"


def check_labels_file(path: Path, setting: str = "dataset_json", count_setting: str = "num_classes") -> Path:
    """The file ``setting`` (``--labels``) names the classes in: ``path``, or where it is a folder (an nnU-Net or
    Decathlon dataset's, a model's as predict takes it), the dataset.json or config.json it holds. Raises, before
    any case is read, for a missing file, a CSV (since the hundredth session), or a folder holding both or
    neither: a folder gave "[Errno 21] Is a
    directory" alone, once every header was read (ninety-second session's probe), and was refused naming the
    dataset.json inside until the ninety-seventh session, which is taken since. A CSV's refusal names
    ``count_setting`` too, for predictions that no model of ours made (since the hundredth session)."""
    if path.is_dir() and path.name in DECLARATIONS and not any((path / name).is_file() for name in DECLARATIONS):
        raise DataError(_a_folder(path, setting))
    if not path.is_dir():
        if link := dangling_link(path, _MOUNT_IT):  # "file not found" of a link there, until the
            raise DataError(link)                    # hundred-and-twenty-fourth session
        if not path.exists():
            raise DataError(f"{path}: {setting} file not found; give the dataset.json that names the classes")
        if path.suffix.lower() == ".csv":  # was told it "needs a \"labels\" object" and JSON's decode error
            raise DataError(f"{path}: a CSV, where {setting} takes the dataset.json (or a model's config.json) that "
                            f"names the classes: a CSV names none (training took them from data.labels); give the "
                            f"config.json of the model that predicted, or its folder (best_model/, model/); for "
                            f"predictions another tool made, give {count_setting} (classes including background) "
                            f"instead")
        return path
    inside = [path / name for name in DECLARATIONS if (path / name).is_file()]
    # a link to nothing or a folder by either name, said before the other is taken: "a folder without a
    # dataset.json" of a link to nothing until the hundred-and-twenty-fourth session, of a folder (or a link to one)
    # until review r116, and the config.json beside either taken without a word, where both readable are two
    for name in DECLARATIONS:
        beside = [file for file in inside if file.name != name]  # the other, readable
        if said := dangling_link(path / name, f"mount or make what it names, or give {_itself(beside[0])}"
                                 if beside else _MOUNT_IT):
            raise DataError(said)
        if (path / name).is_dir():
            raise DataError(_a_folder(path / name, setting) + (f", or {_itself(beside[0])}" if beside else ""))
    if len(inside) == 1:
        return inside[0]
    if inside:  # a dataset's values or a model's, which predict writes (BraTS' class 3 as 4): not ours to choose
        raise DataError(f"{path}: a folder holding both {' and '.join(DECLARATIONS)}, where {setting} takes the one "
                        f"file that names the classes: give {inside[0]} (the dataset's) or {inside[1]} (a model's, "
                        f"in the values predict writes)")
    below = sorted(folder for folder in path.iterdir() if folder.is_dir() and any(
        (folder / name).is_file() for name in DECLARATIONS))  # a run's best_model/ and model/, say
    raise DataError(f"{path}: a folder without a {' or '.join(DECLARATIONS)}, where {setting} takes the dataset.json "
                    f"(or a model's config.json) that names the classes, or the folder holding it"
                    + (f"; give one of {', '.join(map(str, below[:4]))}{', ...' if len(below) > 4 else ''}"
                       if len(below) > 1 else f"; give {below[0]}" if below else ""))


def ignore_from_json(path: str | Path) -> int | None:
    """The value of unannotated voxels (an "ignore" label) that an export's config.json or a dataset.json
    declares; None where it declares none."""
    document, is_export = _labels_document(path)
    if document is None:
        return None
    if is_export:
        return document.get("ignore_value")
    return split_ignore(document.get("labels"), f'{path}: "labels"')[1]


def binarized_from_json(path: str | Path) -> bool:
    """Whether ``--labels`` is the config.json of a model trained binarized (``data.binarize``), whose
    foreground is every non-zero value of its references, declared or not (an aseg's dozens)."""
    document, is_export = _labels_document(path)
    return bool(is_export and preprocess_settings(document).binarize)


def regions_from_json(path: str | Path) -> Regions | None:
    """The regions (``regions.py``) an export's config.json or an nnU-Net dataset.json declares, in label
    values; None where it declares classes."""
    document, is_export = _labels_document(path)
    if document is None:
        return None
    if is_export:
        return Regions.from_dict(document["regions"]) if document.get("regions") is not None else None
    declared, _ = split_ignore(document.get("labels"), f'{path}: "labels"')
    declared, regions = split_regions(declared)
    if regions is None:
        return None
    values = sorted(declared.values()) if isinstance(declared, dict) else []
    return Regions.declared(regions, values, f'{path}: "labels"', document.get("regions_class_order"))


def _labels_document(path: str | Path) -> tuple[dict | None, bool]:
    """(the JSON object of ``--labels``, whether it is an export's config.json); (None, False) where it
    is not a readable object, which ``class_names_from_json`` reports."""
    path = Path(path)
    if path.is_dir():  # a dataset's or a model's folder: the file in it that names the classes
        path = check_labels_file(path)
    try:
        document = _labels_json(path)
    except KeyGivenTwice:
        raise
    # nesting too deep and a file this user may not read (PermissionError) were a traceback here, before
    # class_names_from_json's line (read_edited_json's), until review r106
    except DataError:
        return None, False
    if not isinstance(document, dict):
        return None, False
    return document, "num_classes" in document and "model" in document


def export_class_values(path: str | Path | None) -> set[int]:
    """The label values of the classes an export's config.json (``path``) was trained on; none for
    another file. A model of regions was trained on every one: a value in no region is background to each."""
    document, is_export = _labels_document(path) if path is not None else (None, False)
    if not is_export:
        return set()
    try:
        return {int(value) for value in class_values(preprocess_settings(document), int(document["num_classes"]))}
    except (KeyError, TypeError, ValueError):  # a damaged one: its classes are not read, as before
        return set()


def _exportclasses_to_score(config: dict) -> dict[int, str]:
    """An export's config.json names classes by index (0..C-1), but ``predict`` writes each class as
    the dataset's own value (BraTS' enhancing tumour, class 3, as 4): the names go to those values,
    so that scoring predictions against the dataset's references compares like with like."""
    values = class_values(preprocess_settings(config), int(config["num_classes"]))
    return dict(sorted((int(values[int(index)]), str(name)) for index, name in config["labels"].items()))
