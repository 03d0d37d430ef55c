"""The label values a dataset declares, as the checks allow them in its label files and name them in their errors.
"""

from __future__ import annotations

import numpy as np


class DeclaredLabels:
    """The allowed label values, with a fast path for the usual 0..C-1."""

    def __init__(self, values: list[int], declared_in: str, any_foreground: bool = False,
                 ignore_value: int | None = None, from_files: bool = False):
        self.values = values
        self.from_files = from_files  # said in Dataset.from_files' words (check_cases)
        self.ignore_value = ignore_value  # among the values, but no class
        self.declared_in = declared_in
        self.any_foreground = any_foreground  # binarized: every value > 0 becomes foreground
        self.contiguous = values == list(range(len(values)))
        self.array = np.asarray(values)

    def undeclared(self, slab: np.ndarray) -> np.ndarray:
        """Boolean mask of the voxels whose value is not declared."""
        if self.any_foreground:
            return slab < 0
        if self.contiguous:
            return (slab < 0) | (slab >= len(self.values))
        return ~np.isin(slab, self.array)

    def describe(self) -> str:
        if self.any_foreground:
            return "any whole value >= 0, binarized: 0 is background, the rest foreground"
        # The ignore value is allowed in the files but is no class: "num_classes=5" for 4 misled
        ignore = "" if self.ignore_value is None else f", {self.ignore_value} = ignore (unannotated)"
        if self.contiguous:
            classes = "n_classes" if self.from_files else "num_classes"
            return f"0..{len(self.values) - 1}, {classes}={len(self.values) - bool(ignore)}{ignore}"
        return f"{self.values}{ignore}"
