"""Whether each ``model.args`` value is of a kind its MONAI constructor can take, read off the
constructor's type annotations: whole numbers where it counts (channels, strides, feature sizes).

MONAI checks few of its arguments' types, so a mistyped one failed deep inside the constructor or the
first forward pass, in words that did not name it: ``channels: [8, "x"]`` gave "not all arguments
converted during string formatting", ``channels: 8`` "object of type 'int' has no len()" (an
eighty-eighth session's probe). Only annotations made of whole numbers are judged (``int``,
``Sequence[int]``, ``Sequence[int] | int``, DynUNet's ``Sequence[Sequence[int] | int]``, each optionally
``| None``), and only by what the value is made of: a whole number where one goes, or a list whose
items are whole numbers or lists of them, at any depth, since MONAI takes more than it annotates (UNet's
``strides: Sequence[int]`` takes one stride per axis, ``[[2, 2, 1], ...]``). Its other annotations
are narrower still (UNet's ``dropout: float`` takes ADN's ``"DROPOUT"``, SegResNet's ``blocks_down:
tuple`` a YAML list), so they are left to MONAI: refusing what trains would be worse than a late error.
"""

from __future__ import annotations

import collections.abc
import functools
import numbers
import types
import typing


class _Kind(typing.NamedTuple):
    number: bool  # a whole number is taken
    listed: bool  # a list (of whole numbers, or of lists of them) is taken
    per_axis: bool  # the annotation's list items may be lists themselves (DynUNet's strides)
    optional: bool  # None is taken


def mistyped_arg(monai_class: str, name: str, value) -> str | None:
    """What ``value`` should be for ``monai_class``'s argument ``name``, in words, where it is not of
    that kind; None where it is, or where the annotation is not one judged here."""
    kind = _kinds(monai_class).get(name)
    value = value.tolist() if hasattr(value, "tolist") else value  # a NumPy array or number, as plain data
    if kind is None or value is None and kind.optional:
        return None
    if kind.number and _whole(value) or kind.listed and isinstance(value, (list, tuple)) and _all_whole(value):
        return None
    listed = "a list of whole numbers" + (" or of lists of them, one per axis" if kind.per_axis else "")
    return " or ".join(words for words, taken in (("a whole number", kind.number), (listed, kind.listed)) if taken)


def _whole(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _all_whole(items) -> bool:
    return all(_all_whole(item) if isinstance(item, (list, tuple)) else _whole(item) for item in items)


@functools.lru_cache(maxsize=None)
def _kinds(monai_class: str) -> dict[str, _Kind]:
    import monai.networks.nets as monai_nets

    try:
        hints = typing.get_type_hints(getattr(monai_nets, monai_class).__init__)
    except Exception:  # an annotation that does not resolve in this MONAI: judge nothing, as before
        return {}
    kinds = {}
    for name, annotation in hints.items():
        alternatives = [a for a in _alternatives(annotation) if a is not type(None)]
        sequences = [a for a in alternatives if _is_sequence(a)]
        inner = [i for s in sequences for i in _alternatives(typing.get_args(s)[0])]
        if not alternatives or not all(a is int or a in sequences for a in alternatives) or \
                not all(i is int or _is_sequence(i) and typing.get_args(i) == (int,) for i in inner):
            continue  # something besides whole numbers and lists of them: not judged
        kinds[name] = _Kind(number=int in alternatives, listed=bool(sequences), per_axis=inner != [int] * len(inner),
                            optional=type(None) in _alternatives(annotation))
    return kinds


def _alternatives(annotation) -> tuple:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return (annotation,)


def _is_sequence(annotation) -> bool:
    return typing.get_origin(annotation) is collections.abc.Sequence and len(typing.get_args(annotation)) == 1
