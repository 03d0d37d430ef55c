"""Which of the network's outputs the preprocessed cases hold, and a warning where a split holds none.

The pre-flight checks read the label files as stored. What trains and what validation scores is the
label once preprocessed, and the two can differ:

- a class that no training case holds once preprocessed cannot be learned. A structure smaller than
  a voxel of the ``data.spacing`` grid vanishes in the (nearest-neighbour) resampling: a probe's
  3-voxel organ at 3 x 3 x 6 mm was gone from every case, unsaid (seventy-seventh session);
- a class that no validation case holds is scored 1 while the network predicts it nowhere and 0 once
  it predicts one voxel of it (both empty is a match, as MONAI's ``ignore_empty=False``). It moves
  the validation mean, and so which step is kept as ``best_model``, by up to 1/N each, while its
  own Dice says nothing of the class: the same probe's erased organ was scored 1.

Counted from the case tables' ``class_voxels`` (voxels per foreground class, as preprocessed), so
nothing is read again. ``accelerated-seg check``, which preprocesses nothing, tells the same of the
label files as stored (``stored_class_presence_warnings``), from what its pass over every label found:
before the seventy-ninth session only training said that a split held no case of a class.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..regions import Regions

if TYPE_CHECKING:
    from .manifest import Manifest


def output_names(manifest: Manifest) -> list[str]:
    """The scored outputs as the warnings name them: each foreground class with the label value that
    marks it in the files, or each region."""
    if manifest.regions is not None:
        return [f"region {name}" for name in manifest.regions.names]
    values = manifest.label_values or list(range(manifest.num_classes))
    return [f"{manifest.labels[c]} (label {values[c]})" if not manifest.binarized else manifest.labels[c]
            for c in range(1, manifest.num_classes)]


def absent_outputs(class_voxels: Sequence[Sequence[int]], regions: Regions | None) -> list[int]:
    """The scored outputs that none of these cases holds: indices into the foreground classes
    (class ``i + 1``), or into ``regions`` (over class indices) when given."""
    present = np.asarray(class_voxels, dtype=np.int64).sum(axis=0) > 0  # per foreground class 1..C-1
    if regions is None:
        return [index for index, held in enumerate(present) if not held]
    return [index for index, members in enumerate(regions.values) if not any(present[c - 1] for c in members)]


def class_presence_warnings(names: Sequence[str], regions: Regions | None,
                            training_voxels: Sequence[Sequence[int]],
                            validation_voxels: Sequence[Sequence[int]] | None, spacing: Sequence[float] | None,
                            as_stored: bool = False, validated: bool = True) -> list[str]:
    """The warnings for outputs that no training case, or no validation case, holds as preprocessed.

    Args:
        names: the scored outputs' names, in order ("pancreas (label 11)", or the regions').
        regions: the regions over class indices, or None for classes.
        training_voxels, validation_voxels: each case's voxels per foreground class, as preprocessed;
            ``validation_voxels`` None where nothing is validated.
        spacing: the preprocessing's voxel size in mm (None: as stored), for the message.
        as_stored: the voxels are counted in the label files as stored, not as preprocessed; an
            output in no case at all is then left to the checks' warning of the declared values.
        validated: whether the run validates; else an output that no validation case holds goes unsaid.
    """
    untrained = set(absent_outputs(training_voxels, regions)) if len(training_voxels) else set()
    unscored = (set(absent_outputs(validation_voxels, regions))
                if validation_voxels is not None and len(validation_voxels) else set())
    grid = f"the {' x '.join(f'{size:g}' for size in spacing)} mm grid" if spacing else "the stored grid"
    vanish = (f"A structure smaller than a voxel of {grid} can vanish in the resampling (a finer data.spacing keeps "
              f"it), and one outside the foreground crop is cut (data.crop_foreground)")
    scored = (f"validation scores each such one 1 while the network predicts it nowhere and 0 once it predicts a voxel "
              f"of it, which moves the mean Dice, and which step is kept as best_model, by up to 1/{len(names)} each "
              f"while saying nothing of the class")
    stage = "'s label file" if as_stored else " once preprocessed"
    warnings = []
    if (nowhere := sorted(untrained & unscored)) and not as_stored:
        it = "it" if len(nowhere) == 1 else "them"
        warnings.append(f"warning: {_named(names, nowhere)} in no case once preprocessed: the network cannot learn "
                        f"{it}, and {scored}. {vanish}; a class the label files do not hold at all is best removed "
                        f"from the labels")
    if only_untrained := sorted(untrained - unscored):
        it = "it" if len(only_untrained) == 1 else "them"
        otherwise = "Move" if as_stored else f"{vanish}; otherwise move"
        warnings.append(f"warning: {_named(names, only_untrained)} in no training case{stage}: the network cannot "
                        f"learn {it}. {otherwise} cases that hold {it} into training")
    if (only_unscored := sorted(unscored - untrained)) and validated:
        it = "it" if len(only_unscored) == 1 else "them"
        warnings.append(f"warning: {_named(names, only_unscored)} in no validation case{stage}: {scored}. "
                        f"Hold out cases that hold {it} (another data.fold or split), or judge a model by the classes "
                        f"present (accelerated-seg evaluate's dice_mean_without_both_empty)")
    return warnings


def _named(names: Sequence[str], indices: Sequence[int]) -> str:
    listed = ", ".join(names[index] for index in indices)
    return f"{listed} is" if len(indices) == 1 else f"{len(indices)} outputs ({listed}) are"


def stored_class_presence_warnings(manifest: Manifest, labelled: Mapping[str, Collection[int]],
                                   validated: bool) -> list[str]:
    """``class_presence_warnings`` of the label files as stored, for a check report: the outputs that no
    training case, or no validation case, holds.

    Args:
        manifest: the dataset as training splits it.
        labelled: case id -> the declared label values its label file holds (``CheckReport.labelled``);
            a case not listed (one with errors) is left out.
        validated: whether the run validates (``train.val_every``); else no validation warning.
    """
    values = manifest.label_values or list(range(manifest.num_classes))

    def presence(cases) -> list[list[int]]:
        return [[int(values[c] in labelled[case.id]) for c in range(1, manifest.num_classes)]
                for case in cases if case.id in labelled]

    told = class_presence_warnings(output_names(manifest), manifest.class_regions, presence(manifest.training),
                                   presence(manifest.validation), None, as_stored=True, validated=validated)
    return [warning.removeprefix("warning: ") for warning in told]  # a check report's warnings, which say so
