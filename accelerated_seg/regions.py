"""Region-based training: the network predicts regions that may overlap, each the union of some label
values, with one sigmoid per region, instead of exclusive classes with one softmax.

BraTS is scored on nested regions (whole tumour = edema + non-enhancing + enhancing tumour, tumour core
= non-enhancing + enhancing, enhancing tumour), and nnU-Net trains on those regions directly, which it
found better than training the classes and merging them afterwards. A region is declared in the label
files' own values: ``data.regions: {whole_tumor: [1, 2, 4], tumor_core: [1, 4], enhancing_tumor: [4]}`` in
BraTS' (1 necrosis, 2 edema, 4 enhancing, as MONAI's ConvertToMultiChannelBasedOnBratsClasses reads them),
``{whole_tumor: [1, 2, 3], tumor_core: [2, 3], enhancing_tumor: [3]}`` in the Decathlon's Task01_BrainTumour
(1 edema, 2 non-enhancing, 3 enhancing), or nnU-Net's dataset.json ``"labels"`` with lists and its
``"regions_class_order"``.

- Training scores each output channel, through a sigmoid, against its region's mask (``masks``).
- A label map is painted back from the regions in declaration order (``paint``): where region k is
  predicted (probability > 0.5) the voxel takes the value ``order[k]``, later regions over earlier
  ones. nnU-Net's ``regions_class_order`` is that list; left out, each region paints the one value it
  holds that no later region does (BraTS' 1, 2, 3 above), and a declaration where that is not one
  value has to give the order.
- Validation, ``predict`` and ``evaluate`` all score the regions of the painted map, so the numbers
  seen during training are the ones the written label maps give.

The same declaration over class indices (what the preprocessed labels hold) is ``in_classes``.

    regions = Regions.declared({"tumor": [1, 2], "core": [2]}, label_values=[0, 1, 2], where="data.regions")
    regions.masks(label)           # (B, 2, X, Y, Z) bool from a (B, 1, X, Y, Z) label map
    regions.paint(probabilities)   # (X, Y, Z) label map from (2, X, Y, Z) probabilities
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .data.errors import DataError

if TYPE_CHECKING:  # torch is imported where a map is masked or painted: evaluate reads a declaration before it
    import torch

# A region counts as predicted where its probability is above this (its logit above 0).
THRESHOLD = 0.5


@dataclass(frozen=True)
class Regions:
    """Named regions, each a set of label values, and the value painted for each.

    Args:
        names: one per region (per output channel), in painting order.
        values: the label values each region unites.
        order: the value painted where each region is predicted (nnU-Net's ``regions_class_order``).
    """

    names: tuple[str, ...]
    values: tuple[tuple[int, ...], ...]
    order: tuple[int, ...]

    @classmethod
    def declared(cls, raw: Any, label_values: Sequence[int], where: str,
                 order: Sequence[int] | None = None, ignore_value: int | None = None) -> Regions:
        """Check a declaration {name: [values]} against the dataset's label values.

        Args:
            raw: the declaration, in painting order.
            label_values: the values the label files hold (background 0 first).
            where: the setting or file it came from, for messages.
            order: the value painted for each region; None derives it (the module docstring).
            ignore_value: the labels' value for unannotated voxels, if any: named where a region holds it.

        Raises:
            DataError: an empty or malformed declaration, a value the labels do not declare, the
                background in a region, two regions alike, or an order that cannot be derived or
                does not fit.
        """
        example = "{whole_tumor: [1, 2, 3], tumor_core: [2, 3], enhancing_tumor: [3]}"
        if not isinstance(raw, Mapping) or not raw:
            raise DataError(f"{where}: expected a mapping of region names to lists of label values, such as "
                            f"{example}; got {raw!r}")
        names, values = [], []
        for name, members in raw.items():
            members = [members] if _is_value(members) else members
            if not (isinstance(members, (list, tuple)) and members and all(_is_value(v) for v in members)):
                raise DataError(f"{where}: region {name!r} is {members!r}; a region is a non-empty list of label "
                                f"values, e.g. {example}")
            names.append(str(name))
            values.append(tuple(sorted(set(int(v) for v in members))))
        known = set(label_values)
        if unknown := sorted({v for region in values for v in region} - known):
            ignored = (f"; {ignore_value} is the ignore label, the voxels nobody annotated, which are in no region"
                       if ignore_value in unknown else "")
            raise DataError(f"{where}: label value(s) {unknown} are not among the dataset's values {sorted(known)}; "
                            f"a region unites values the label files hold{ignored}")
        if 0 in {v for region in values for v in region}:
            raise DataError(f"{where}: a region holds 0, the background; regions are made of foreground values "
                            f"(every voxel outside them is background)")
        if len(set(values)) < len(values):
            raise DataError(f"{where}: two regions hold the same values {values}; give each region its own")
        order = _painting_order(names, values, where) if order is None else tuple(_checked_order(order, values, where))
        return cls(tuple(names), tuple(values), order)

    @property
    def count(self) -> int:
        """Regions, which is the network's output channels."""
        return len(self.names)

    def painted_names(self) -> dict[int, str]:
        """Each value one region paints -> that region's name: what the value stands for in a painted map. A value
        two regions paint (an order that says so) is left out, as neither name is its own."""
        painters = Counter(self.order)
        return {value: name for name, value in zip(self.names, self.order) if painters[value] == 1}

    def in_classes(self, class_of_value: Mapping[int, int]) -> Regions:
        """The same regions over class indices: ``class_of_value`` maps each label value to its index."""
        return Regions(self.names, tuple(tuple(sorted(class_of_value[v] for v in region)) for region in self.values),
                       tuple(class_of_value[v] for v in self.order))

    def masks(self, label: torch.Tensor) -> torch.Tensor:
        """Each region's mask of a label map: (B, 1, *spatial) -> (B, regions, *spatial) bool.

        Compared value by value with Python numbers: ``torch.isin`` with a tensor of the values made
        one copy from the host per region and micro-batch, each waiting for the GPU's queue."""
        import functools
        import operator

        import torch

        return torch.cat([functools.reduce(operator.or_, (label == value for value in region))
                          for region in self.values], dim=1)

    def paint(self, probabilities: torch.Tensor, threshold: float = THRESHOLD) -> torch.Tensor:
        """A label map from region probabilities along the first axis: each region's value where its probability
        is above ``threshold``, in declaration order (later regions over earlier ones); 0 elsewhere.
        Logits paint the same with ``threshold=0``."""
        import torch

        shape = probabilities.shape[1:]
        dtype = next(t for t in (torch.uint8, torch.int16, torch.int32) if max(self.order) <= torch.iinfo(t).max)
        painted = torch.zeros(shape, dtype=dtype, device=probabilities.device)
        for value, probability in zip(self.order, probabilities):
            painted[probability > threshold] = value
        return painted

    def to_dict(self) -> dict:
        """As an export's ``config.json`` keeps it (``from_dict`` reads it back)."""
        return {"names": list(self.names), "values": [list(v) for v in self.values], "order": list(self.order)}

    @classmethod
    def from_dict(cls, raw: Mapping) -> Regions:
        return cls(tuple(raw["names"]), tuple(tuple(int(v) for v in region) for region in raw["values"]),
                   tuple(int(v) for v in raw["order"]))


def _is_value(item: Any) -> bool:
    return isinstance(item, int) and not isinstance(item, bool)


def _painting_order(names: Sequence[str], values: Sequence[tuple[int, ...]], where: str) -> tuple[int, ...]:
    """For each region, the one value it holds that no later region does: what it paints."""
    order = []
    for k, (name, region) in enumerate(zip(names, values)):
        later = {v for other in values[k + 1:] for v in other}
        own = [v for v in region if v not in later]
        if len(own) != 1:
            raise DataError(f"{where}: cannot tell which value region {name!r} paints in a label map (it holds "
                            f"{list(own) or 'no'} value(s) that no later region holds); give the value painted for "
                            f"each region in order, as nnU-Net's regions_class_order (data.region_order)")
        order.append(own[0])
    return tuple(order)


def _checked_order(order: Any, values: Sequence[tuple[int, ...]], where: str) -> list[int]:
    if not (isinstance(order, (list, tuple)) and all(_is_value(v) for v in order)):
        raise DataError(f"{where}: the painting order {order!r} is not a list of label values")
    if len(order) != len(values):
        raise DataError(f"{where}: the painting order {list(order)} gives {len(order)} value(s) for {len(values)} "
                        f"regions; give one label value per region, in the regions' order")
    if outside := [(v, list(region)) for v, region in zip(order, values) if v not in region]:
        raise DataError(f"{where}: the painting order paints a value outside its region: {outside}; each region "
                        f"paints one of its own values")
    return [int(v) for v in order]
