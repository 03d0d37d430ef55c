"""Post-processing of a predicted label map: each chosen class kept to its largest connected component.

A liver, a spleen or a brain is one piece, so a network's islands of it elsewhere are false positives;
nnU-Net removes them for the classes where that raised its cross-validation Dice. Here the user
chooses the classes (``predict --keep-largest``): not kidneys (two pieces) or lesions (often many),
whose other pieces this would delete.
Connected means sharing a face, an edge or a corner (26-connectivity, as MONAI's and scikit-image's
default). MONAI's ``KeepLargestConnectedComponent`` does this through scikit-image, which this
package does not otherwise need; scipy's ``ndimage.label``, already a dependency, does the labelling.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy import ndimage

from .config import ConfigError

_FULLY_CONNECTED = ndimage.generate_binary_structure(3, 3)


def keep_largest_components(classes: np.ndarray, keep: Sequence[int]) -> np.ndarray:
    """``classes`` (X, Y, Z class indices) with every voxel of a class in ``keep`` outside that class's
    largest connected component set to background (class 0). Classes are treated one by one."""
    classes = classes.copy()
    for index in keep:
        components, count = ndimage.label(classes == index, structure=_FULLY_CONNECTED)
        if count <= 1:
            continue
        sizes = np.bincount(components.ravel())
        sizes[0] = 0  # the voxels of other classes
        classes[(components != 0) & (components != sizes.argmax())] = 0
    return classes


def largest_component_classes(keep_largest: bool | Sequence[int] | None, values: np.ndarray) -> tuple[int, ...]:
    """The class indices to keep to their largest component: every foreground class for ``True``;
    for label values (as the written label map holds them, ``values``: class index -> value), theirs.

    Raises:
        ConfigError: a value the model does not write, or background's.
    """
    if keep_largest is None or keep_largest is False:
        return ()
    if keep_largest is True:
        return tuple(range(1, len(values)))
    index_of = {int(value): index for index, value in enumerate(values)}
    wrong = [value for value in keep_largest if index_of.get(int(value), 0) == 0]
    if wrong:
        raise ConfigError(f"keep_largest: {', '.join(map(str, wrong))} is not a foreground label of the model; its "
                          f"label values are {', '.join(str(int(v)) for v in values[1:])} (background {int(values[0])})")
    return tuple(sorted({index_of[int(value)] for value in keep_largest}))
