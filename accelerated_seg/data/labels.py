"""Label declarations: which raw values a dataset's label maps hold, and what each class is called.

:func:`parse_labels` reads a dataset.json ``"labels"`` entry (MSD or nnU-Net v2 direction);
:func:`labels_declaration` turns the ``labels`` argument of the CSV and pairs readers, which
have no file to declare labels in, into such an entry; :func:`as_class_indices` reads a label map's
values as the classes they stand for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from accelerated_seg.data.errors import DataError
from accelerated_seg.model_folders import Names

if TYPE_CHECKING:
    from accelerated_seg.regions import Regions

#: Class indices are stored one byte per voxel (uint8) in the preprocessed cache and in the batches, which
#: keeps both small; a 257th class would wrap around to class 0 without a word, so more are refused.
MAX_CLASSES = 256

#: The name nnU-Net v2 gives the value of voxels left unannotated (sparse annotation, ``split_ignore``).
IGNORE_NAME = "ignore"

#: What a caller may pass as label declaration for CSV/pairs: {value: name}, {name: value},
#: a list of names for values 0..C-1, or a class count C.
LabelsArgument = Union[Mapping[Any, Any], Sequence[str], int, None]


# The declaration each format's own files write, for the examples of its errors: an nnU-Net v2 user told to
# write the Decathlon's {"0": "background"} (accepted, but not what nnU-Net itself reads) was sent from their
# own tool's form (ninety-sixth session's probe).
MSD_LABELS_EXAMPLE = '{"0": "background", "1": "tumour"}'
NNUNET_LABELS_EXAMPLE = '{"background": 0, "tumour": 1}'


def parse_labels(raw: Any, where: str, binarize: bool = False,
                 example: str = MSD_LABELS_EXAMPLE) -> tuple[dict[int, str], list[int]]:
    """Turn a label declaration into (class index -> name, raw values in class order).

    MSD writes ``{"0": "background", "1": "tumour"}`` and nnU-Net v2 ``{"background": 0,
    "tumour": 1}``; both are accepted because datasets get converted back and forth. Values need
    not be contiguous: ``{0, 1, 2, 4}`` gives classes 0..3 in ascending order of value.

    Args:
        raw: The declaration (a dict in either direction).
        where: The file or argument it came from, for messages.
        binarize: Return the two classes background/foreground (raw values are kept).
        example: The declaration the errors show, in the form of the file's format.

    Returns:
        ``(labels, label_values)`` for :class:`Manifest`.

    Raises:
        DataError: The declaration is empty or malformed, uses nnU-Net regions (read by
            :func:`split_regions` first), repeats a value, lacks background 0, or declares more than
            :data:`MAX_CLASSES` classes. The readers take an "ignore" entry out first (:func:`split_ignore`).
    """
    if raw is None or raw == {}:
        raise DataError(f"{where}: missing or empty; declare the classes, e.g. {example}")
    if not isinstance(raw, Mapping):
        raise DataError(f"{where}: expected a mapping between label values and class names such as {example}, "
                        f"got {raw!r}")

    def is_value(item: Any) -> bool:
        return isinstance(item, int) and not isinstance(item, bool)

    if all(is_value(value) or isinstance(value, list) for value in raw.values()):
        regions = [name for name, value in raw.items() if isinstance(value, list)]
        if regions:
            raise DataError(
                f"{where}: {regions} map to lists of values (nnU-Net region-based training), which only an nnU-Net "
                'v2 dataset.json declares; declare one value per class, e.g. {"background": 0, "edema": 1, '
                '"enhancing": 2}, and the regions in data.regions, e.g. {tumor: [1, 2], enhancing: [2]}'
            )
        pairs = [(value, str(name)) for name, value in raw.items()]  # nnU-Net v2: name -> value
    else:
        keys = [_whole_number(key) for key in raw]  # MSD: "value" -> name
        if None in keys and raw and all(isinstance(value, str) and _whole_number(value) is not None
                                        for value in raw.values()):
            # nnU-Net's direction with its values written as text: "keys must be label values" named the
            # keys, which are names as they should be (a user-journey probe)
            first, more = list(raw.items())[:3], ", ..." if len(raw) > 3 else ""
            text = ", ".join(f'"{name}": "{value}"' for name, value in first)
            numbers = ", ".join(f'"{name}": {_whole_number(value)}' for name, value in first)
            raise DataError(f"{where}: its values are text ({{{text}{more}}}); write each class's value as a "
                            f"number, as nnU-Net v2 does: {{{numbers}{more}}}")
        if None in keys:
            raise DataError(
                f'{where}: keys must be label values like "0", "1" (or names mapped to values); got {list(raw)}'
            )
        # null in YAML or JSON (a name left out) became a class called "None"
        unnamed = {key: name for key, name in zip(keys, raw.values()) if not isinstance(name, str)}
        if unnamed and not binarize:
            raise DataError(f"{where}: value(s) {sorted(unnamed)} have no class name ({unnamed}); a name is text, "
                            f"e.g. {example}: name every class")
        pairs = [(key, str(name)) for key, name in zip(keys, raw.values())]

    values = sorted(value for value, _ in pairs)
    if negative := [value for value in values if value < 0]:
        raise DataError(f"{where}: label value(s) {negative} are negative; a class is a whole number >= 0 "
                        "(-1 often marks unlabelled voxels: to leave them out of the loss and the metrics, give "
                        "them a value above the classes' and declare it the \"ignore\" label; else relabel them "
                        "as background or a class)")
    repeated = sorted(value for value, count in Counter(values).items() if count > 1)
    if repeated:
        raise DataError(f"{where}: value(s) {repeated} declared for more than one class; give each class its own value")
    declared = dict(pairs)
    if values[0] != 0:
        raise DataError(
            f"{where}: the background must be value 0 (padding and resampling fill with 0); got values {values}; "
            'declare 0 as background, e.g. "0": "background"'
        )
    if len(values) < 2:
        raise DataError(f"{where}: only the background is declared; add the foreground class(es)")
    if not binarize:  # the names key the per-class metrics (val/dice_<name>): each must be there, once
        if unnamed := [value for value, name in pairs if not name.strip()]:
            raise DataError(f"{where}: value(s) {sorted(unnamed)} have an empty class name; name every class")
        named = Counter(name for _, name in pairs)
        if shared := sorted(name for name, count in named.items() if count > 1):
            raise DataError(f"{where}: class name(s) {shared} are given to more than one value; the per-class "
                            "metrics are keyed by name, so give each class its own name (or set data.binarize "
                            "to train all of them as one foreground class)")

    if binarize:
        return {0: "background", 1: "foreground"}, values
    if len(values) > MAX_CLASSES:
        raise DataError(f"{where}: {len(values)} classes declared, but at most {MAX_CLASSES} (background included) "
                        f"can be trained: labels are stored one byte per voxel. Merge classes into at most "
                        f"{MAX_CLASSES}, or set data.binarize to train one foreground class")
    return {index: declared[value] for index, value in enumerate(values)}, values


def _whole_number(key: Any) -> int | None:
    """A declared label value: an int, a whole float (YAML's 1.0), or its text ("1"); None for anything else,
    such as 1.5, which ``int()`` would silently truncate to 1."""
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key
    if isinstance(key, float):
        return int(key) if key.is_integer() else None
    try:
        return int(str(key).strip())
    except ValueError:  # "1.5", "zero", "+-1"
        return None


def labels_declaration(labels: LabelsArgument) -> Any:
    """Normalise the labels argument of CSV/pairs into a declaration dict; ``None`` means binary."""
    if labels is None:
        return {0: "background", 1: "foreground"}
    if isinstance(labels, int) and not isinstance(labels, bool):
        return {0: "background", **{k: f"class_{k}" for k in range(1, labels)}}
    if isinstance(labels, Sequence) and not isinstance(labels, str):
        return dict(enumerate(str(name) for name in labels))
    return labels


def split_regions(raw: Any) -> tuple[Any, dict[str, list[int]] | None]:
    """nnU-Net v2's region-based declaration, ``{"background": 0, "whole tumor": [1, 2, 3], "tumor core":
    [2, 3], "enhancing tumor": 3}``, as (a declaration of the values the label files hold, the regions).

    As in nnU-Net, once one entry is a list every foreground entry is a region (a single value is a
    region of one). The values' own names are those of single-value entries, else ``label_<value>``, which
    the nnU-Net reader replaces by the name of the region that paints the value (``Regions.painted_names``).
    A declaration without lists is returned as it is, with no regions.
    """
    if not isinstance(raw, Mapping) or not any(isinstance(value, list) for value in raw.values()):
        return raw, None
    regions = {str(name): (value if isinstance(value, list) else [value]) for name, value in raw.items()
               if value != 0}
    single = {value: str(name) for name, value in raw.items() if not isinstance(value, list)}
    values = sorted({v for members in regions.values() for v in members if isinstance(v, int)} | {0})
    return {single.get(v, "background" if v == 0 else _unnamed(v)): v for v in values}, regions


def _unnamed(value: int) -> str:
    """The name of a value no entry names on its own, only regions holding it (``split_regions``)."""
    return f"label_{value}"


def named_by_regions(labels: Mapping[int, str], label_values: Sequence[int], regions: Regions,
                     replacing: Regions | None = None) -> dict[int, str]:
    """The classes' names, each value only regions hold named after the region of ``regions`` that paints it
    (``Regions.painted_names``): what it stands for in the predicted maps; ``label_<value>`` where none paints it.
    A value the declaration names on its own keeps its name (a Decathlon's "edema" under data.regions too).

    ``replacing``: the regions ``regions`` take the place of (a dataset.json's own, under data.regions). The
    names they gave such values name regions the network no longer has; check and the export kept them.
    """
    painted, before = regions.painted_names(), replacing.painted_names() if replacing is not None else {}
    held = dict(zip(replacing.names, replacing.values)) if replacing is not None else {}
    named = {}
    for index, value in enumerate(label_values):
        name = labels[index]
        # a region of this value alone is nnU-Net's way of naming the value ("enhancing tumor": 3): its own name
        only_regions_name_it = name == _unnamed(value) or (before.get(value) == name and held[name] != (value,))
        named[index] = painted.get(value, _unnamed(value)) if only_regions_name_it else name
    return named


def labels_given(names: Names) -> str:
    """The ``labels`` a CSV's, a datalist's or the pairs' reader was given, as its caller names them, for the
    messages of their declaration: a config's ``data.labels`` (check's ``--labels`` sets it), or the ``labels``
    argument from Python; "labels argument" of both until the ninety-ninth session."""
    said = names.setting("data.labels")
    return said if "." in said else f"the {said} argument"


def split_ignore(raw: Any, where: str, binarize: bool = False, names: Names = Names()) -> tuple[Any, int | None]:
    """nnU-Net v2's ignore label, ``{"background": 0, "tumour": 1, "ignore": 2}`` (or MSD's ``"2": "ignore"``):
    the value of voxels nobody annotated, as (the declaration without it, that value or None).

    Sparse annotation (a few slices, scribbles) marks the rest of each label map with it; training then
    learns from the annotated voxels alone and validation scores them alone. nnU-Net requires the value
    to be the highest; any value that no class uses is taken here, so every dataset made for nnU-Net is.

    Args:
        raw: the declaration, either way round.
        where: where it came from, as the caller names it (``cases.csv``'s ``data.labels``, a dataset.json's
            ``"labels"``), which begins each message.
        binarize: whether the labels are binarized, which an ignore label cannot go with.
        names: how the caller names the settings (``data.binarize`` in a config, ``binarize`` as a keyword).

    Raises:
        DataError: two ignore entries, a value that is not a whole number > 0 or that a class uses,
            binarize with an ignore label, or no room left for it among the stored class indices; each names
            ``where`` and what to do (since the ninety-ninth session: the last two gave no way on).
    """
    if not isinstance(raw, Mapping):
        return raw, None
    name_to_value = all(isinstance(value, (int, list)) and not isinstance(value, bool) for value in raw.values())
    entries = [(key, value) for key, value in raw.items()
               if str(value if not name_to_value else key).strip().lower() == IGNORE_NAME]
    if not entries:
        return raw, None
    if len(entries) > 1:
        raise DataError(f'{where}: {len(entries)} entries are called "ignore" ({[key for key, _ in entries]}); '
                        "keep one, the value of the unannotated voxels, and rename or remove the others")
    key, value = entries[0]
    ignore = value if name_to_value else _whole_number(key)
    rest = {k: v for k, v in raw.items() if k != key}
    used = list(rest.values()) if name_to_value else [_whole_number(k) for k in rest]
    example = _ignore_example(used, name_to_value)
    if not isinstance(ignore, int) or ignore <= 0:
        raise DataError(f'{where}: the "ignore" label has value {value if name_to_value else key!r}; give it a whole '
                        f"number above the classes' values (nnU-Net: the highest), e.g. {example}")
    if any(ignore == v or (isinstance(v, list) and ignore in v) for v in used):
        raise DataError(f'{where}: the "ignore" label\'s value {ignore} is a class\'s (or a region\'s) value too; '
                        f"give the unannotated voxels a value of their own, the highest, in the label files and "
                        f"here, e.g. {example}")
    if binarize:
        setting = names.setting("data.binarize")
        raise DataError(f'{where}: declares an "ignore" label, and {setting} would merge it into the foreground with '
                        f"every other value above 0; train the classes on the annotated voxels with "
                        f"{names.set_to('data.binarize', False)}, or remove the \"ignore\" entry to binarize "
                        f"labels annotated in every voxel")
    if len(rest) >= MAX_CLASSES:
        raise DataError(f"{where}: {len(rest)} classes and an ignore label, but the stored labels (one byte per "
                        f"voxel) hold the ignore label as class index {len(rest)}: at most {MAX_CLASSES - 1} classes "
                        f"beside it; merge classes into at most {MAX_CLASSES - 1}, or remove the \"ignore\" entry "
                        f"and give those voxels a class ({MAX_CLASSES} classes at most without it)")
    return rest, ignore


def _ignore_example(used: list, name_to_value: bool) -> str:
    """An "ignore" entry in the declaration's own form, its value one above the highest value in ``used`` (the
    classes' and the regions'): ``"ignore": 3`` of nnU-Net's, ``"3": "ignore"`` of the Decathlon's."""
    values = [v for value in used for v in (value if isinstance(value, list) else [value])
              if isinstance(v, int) and not isinstance(v, bool)]
    above = max(values, default=0) + 1
    return f'"ignore": {above}' if name_to_value else f'"{above}": "ignore"'


def as_class_indices(values: np.ndarray, lookup: Mapping[int, int] | None,
                     merge_foreground: bool = False) -> np.ndarray:
    """A label map's raw values as class indices (``Manifest.label_map``, or an export's; None: they are
    already); values not in ``lookup`` stay, for the caller to report. ``merge_foreground``: every value
    above 0 is class 1, as binarized training saw it."""
    if merge_foreground:
        return np.where(values > 0, 1, values)
    if not lookup:
        return values
    classes = values.copy()
    for raw, index in lookup.items():
        classes[values == raw] = index
    return classes
